#pragma once

#include "inventory.h"

#include <QString>

namespace opsdeck::workflows {

/// A process OpsDeck starts and stops on a host: a service of the inventory,
/// or a helper process of the demo (its traffic generator). The commands run
/// through the host's transport with `bash -c`.
struct ManagedProcess
{
    QString name;
    QString host;   ///< inventory host name
    QString start;  ///< starts it detached and writes pidFile
    QString stop;   ///< asks it to stop (SIGTERM)
    QString status; ///< exits 0 while it runs
    QString kill;   ///< last resort after the stop deadline (SIGKILL)
    QString pidFile;

    /// From an inventory service; empty stop/status/kill are derived from
    /// the pid file.
    static ManagedProcess fromService(const inventory::Service &service);
    /// Fills empty stop/status/kill from pidFile.
    void deriveMissingCommands();
};

/// `'text'` quoted for bash (single quotes, embedded quotes escaped).
QString shellQuote(const QString &text);

} // namespace opsdeck::workflows
