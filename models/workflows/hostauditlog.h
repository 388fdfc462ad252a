#pragma once

#include "auditentry.h"
#include "inventory.h"

#include <QHash>
#include <QObject>
#include <QQueue>
#include <functional>

namespace opsdeck::remote {
class Transport;
struct CommandResult;
} // namespace opsdeck::remote

namespace opsdeck::workflows {

/// The copy of a workflow's audit entries on the cluster's host, so that
/// teammates who log in there see who restarted or edited what: one JSON
/// object per line, appended (never rewritten) to the cluster's `audit_log`
/// (inventory), by default `opsdeck-audit.log` in the folder of the cluster
/// lock (the first prefill's lock_dir or serve-script folder). The line is
/// the entry of `opsdeck-cli audit --json` without its local line number,
/// plus "from" (the machine the console runs on). The data dir's audit.jsonl
/// stays the record OpsDeck verifies; this copy is for reading (mode 0644,
/// no chain). Entries are appended in the order given, one command at a
/// time (5 s each), only to a regular file (never through a link, never
/// into a FIFO, never one of OpsDeck's own files: inventory::ownFilePatterns()).
/// Thread: the transport's.
class HostAuditLog : public QObject
{
    Q_OBJECT
public:
    /// The copy's path and host for `cluster`; empty path (with `error`)
    /// when the inventory does not say where the cluster's files are, or its
    /// `audit_log` is not an absolute path.
    static QString pathFor(const inventory::Inventory &inventory, const QString &cluster,
                           QString *host, QString *error);
    /// The line written for `entry` (compact JSON, no newline).
    static QByteArray line(const history::AuditEntry &entry, const QString &fromMachine);

    HostAuditLog(remote::Transport *transport, QString path, QObject *parent = nullptr);

    /// Appends `entry`; `done` gets "" or what went wrong (naming the host
    /// and the file).
    void append(const history::AuditEntry &entry, std::function<void(const QString &problem)> done);
    QString path() const { return m_path; }
    /// Calls `then` once every entry given so far was appended (or failed):
    /// at once when none is pending.
    void whenIdle(std::function<void()> then);
    /// Gives up on the entries not yet appended (a host that does not
    /// answer): whenIdle()'s callbacks run now; the count dropped.
    int dropPending();

private:
    void next();

    remote::Transport *m_transport;
    QString m_path;
    struct Pending
    {
        QByteArray line;
        std::function<void(const QString &)> done;
    };
    QQueue<Pending> m_queue;
    quint64 m_running = 0; ///< the command in flight (0: none)
    QVector<std::function<void()>> m_idle;
};

} // namespace opsdeck::workflows
