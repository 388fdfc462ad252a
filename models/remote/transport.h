#pragma once

#include "commandrequest.h"
#include "commandresult.h"
#include "outputchannel.h"

#include <QObject>

namespace opsdeck::remote {

/// Runs commands on one host. Implementations (LocalTransport over QProcess,
/// SshTransport over libssh) share these semantics: run() never blocks, every result arrives
/// through commandFinished() carrying the id run() returned, and a command
/// always ends (deadline, cancel) with one CommandResult. While it runs, its
/// output is streamed through commandOutput() (see there).
/// Thread: use a transport from the thread it lives in; both signals are
/// emitted in that thread.
class Transport : public QObject
{
    Q_OBJECT
public:
    using QObject::QObject;
    ~Transport() override = default;

    /// Host name as the inventory calls it, for messages.
    virtual QString hostName() const = 0;
    /// Starts `request`; returns its id (never 0).
    virtual quint64 run(const CommandRequest &request) = 0;
    /// Kills the command if it still runs; its result is then Cancelled.
    virtual void cancel(quint64 id) = 0;
    /// Commands started and not yet finished.
    virtual int runningCount() const = 0;

Q_SIGNALS:
    /// Output of command `id` as it arrives, for live views (a log tail, a
    /// long script). Guarantees, the same for every implementation:
    /// - only kept bytes are streamed: the chunks of one id and channel,
    ///   joined in order, equal the result's standardOutput / standardError
    ///   byte for byte (at most CommandRequest::outputCap each); bytes past
    ///   the cap are only counted (standardOutputDropped), never streamed;
    /// - bytes keep their order within a channel; all chunks of an id come
    ///   before its commandFinished, none after it; a command that never
    ///   started (FailedToStart, cancelled while queued) has none;
    /// - chunk boundaries mean nothing (not lines, not writes), and a chunk
    ///   is never empty; bytes are raw (need not be UTF-8).
    /// How often: LocalTransport emits once per pipe read (QProcess
    /// readyRead, already in this thread); SshTransport gathers output in the
    /// session thread and hands it over at most every 50 ms or per 64 KiB
    /// (OutputCoalescer), so a fast command costs a bounded number of queued
    /// calls, and a slow one's output shows within about 50 ms.
    void commandOutput(quint64 id, opsdeck::remote::OutputChannel channel, const QByteArray &chunk);
    void commandFinished(quint64 id, const opsdeck::remote::CommandResult &result);
};

} // namespace opsdeck::remote
