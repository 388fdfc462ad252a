#pragma once

#include "logbuffer.h"

#include <QDateTime>
#include <QObject>
#include <QPointer>
#include <QTimer>
#include <chrono>

namespace opsdeck::remote {

class Transport;
struct CommandResult;

/// Tails one log file on a host (a service's inventory `log`) through its
/// Transport, by polling: every read is one short command (LogChunk::script)
/// that prints what was appended since the last byte offset, so it never
/// holds the host's one-command-at-a-time SSH queue the way `tail -f` would.
/// At most one read is in flight; while following, the next starts
/// pollInterval after the last ended (at once when a read was capped and the
/// file has more). The first read takes the file's last 256 KiB.
///
/// A missing, unreadable or replaced file, a failed or timed-out command are
/// reported in errorText() (naming host and path) and polling goes on; the
/// lines already read stay. Results of other commands on the same transport
/// are ignored (matched by id).
/// Thread: the GUI thread (or any thread with an event loop, the transport's);
/// nothing here blocks.
class LogTail : public QObject
{
    Q_OBJECT
public:
    /// `transport` is not owned and may be shared with other users; `path` as
    /// the inventory writes it (LogChunk::script() on `~` and `$`).
    LogTail(Transport *transport, QString path, int maxLines = LogBuffer::defaultMaxLines,
            QObject *parent = nullptr);
    /// Cancels a read still in flight.
    ~LogTail() override;

    QString hostName() const { return m_hostName; }
    QString path() const { return m_path; }
    const LogBuffer &buffer() const { return m_buffer; }

    /// Polls while true (the panel sets it while it is shown and Follow is on).
    void setFollowing(bool following);
    bool following() const { return m_following; }
    /// Time between the end of one read and the start of the next, ms (default 2 s).
    void setPollInterval(std::chrono::milliseconds interval) { m_interval = interval; }
    std::chrono::milliseconds pollInterval() const { return m_interval; }
    /// Deadline of each read command, ms (default 10 s); past it the read is
    /// reported as timed out and tried again at the next poll.
    void setReadDeadline(std::chrono::milliseconds deadline) { m_deadline = deadline; }

    /// Reads once now (after the read in flight, if any), following or not.
    void refresh();
    bool reading() const { return m_readId != 0; }
    /// Why the last read brought nothing (file missing, command failed...),
    /// naming host and path; empty when it worked.
    QString errorText() const { return m_error; }
    /// Local time the last read succeeded; invalid before.
    QDateTime lastUpdated() const { return m_updated; }
    /// Local time of the last rotation or truncation noticed; invalid when none.
    QDateTime lastRestart() const { return m_restartedAt; }
    /// Reads finished so far (successful or not).
    int readCount() const { return m_reads; }

Q_SIGNALS:
    /// Lines [firstLine, firstLine + count) were added to buffer(); older
    /// lines may have been dropped (buffer().firstLine()).
    void linesAdded(qint64 firstLine, int count);
    /// A read ended: size, update time, errorText() may have changed.
    void readFinished();

private:
    void startRead();
    void onCommandFinished(quint64 id, const opsdeck::remote::CommandResult &result);
    void scheduleNext(bool soon);
    QString describeFailure(const CommandResult &result) const;

    QPointer<Transport> m_transport;
    QString m_hostName;
    QString m_path;
    LogBuffer m_buffer;
    QTimer m_timer;
    std::chrono::milliseconds m_interval = std::chrono::seconds(2);
    std::chrono::milliseconds m_deadline = std::chrono::seconds(10);
    bool m_following = false;
    bool m_refreshPending = false;
    quint64 m_readId = 0;
    QString m_error;
    QDateTime m_updated;
    QDateTime m_restartedAt;
    int m_reads = 0;
};

} // namespace opsdeck::remote
