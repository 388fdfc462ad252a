#pragma once

#include "commandrequest.h"
#include "commandresult.h"

#include <QHash>
#include <QStringList>

namespace opsdeck::knobs {

/// A running server as /proc shows it: its pid, command line and
/// environment, read on its host by one bash script (request()).
///
/// The pid is the pid file's, else the process listening on the service's
/// port; when that is a `bash` or `sh` that runs the serve script without
/// `exec`, its child (the server) is read instead. The environment of a
/// process of another user cannot be read without root: `environmentRead`
/// is false and `problem` says so (the inventory's `sudo: true` on the host
/// lets the request use `sudo -n`).
struct ProcessView
{
    qint64 pid = 0;
    QStringList arguments;               ///< /proc/PID/cmdline, argv[0] first
    QHash<QString, QString> environment; ///< /proc/PID/environ
    bool environmentRead = false;
    QString problem; ///< why nothing (or not the environment) could be read; names the host

    /// The script: `pidFile` (may be empty) and `port` (0: none) as the
    /// inventory gives them. Its output has one `key=base64` line per field.
    static remote::CommandRequest request(const QString &pidFile, int port, bool sudo);
    /// Reads request()'s result; `host` names the host in problems.
    static ProcessView parse(const remote::CommandResult &result, const QString &host);
};

} // namespace opsdeck::knobs
