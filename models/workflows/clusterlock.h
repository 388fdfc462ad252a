#pragma once

#include "inventory.h"

#include <QDateTime>
#include <QHash>
#include <QObject>
#include <QString>
#include <functional>
#include <optional>

namespace opsdeck::remote {
class Transport;
struct CommandResult;
} // namespace opsdeck::remote

namespace opsdeck::workflows {

/// The cluster lock: a file `.opsdeck-lock-<cluster>` on the host of the
/// cluster's first prefill, in its `lock_dir` (default: the folder of that
/// service's serve script), created exclusively (bash noclobber) through the
/// host's transport, so that two engineers on two machines never restart the
/// same cluster at once. It holds `owner=` (user), `host=` (the machine the
/// console runs on), `time=` and `expires=` (ISO 8601 UTC) and `workflow=`
/// (the id). The file is meant for teammates (0644, not OpsDeck's private
/// files). A lock past its expiry is stale: shown with its owner and age, and
/// broken only deliberately (`lock break`, audited), never taken over.
/// Re-taking a lock that names the same workflow succeeds (a resume).
/// Thread: the transport's; every call answers once through its callback.
class ClusterLock : public QObject
{
    Q_OBJECT
public:
    struct Holder
    {
        QString owner;
        QString fromHost;
        QDateTime time;
        QDateTime expires;
        QString workflow;
        /// "alice on laptop-3, workflow 2026...-co-restart-1a2b, since 09:15 (12 min ago)";
        /// a holder with nothing in it (an empty lock file) says so and how to remove it
        QString describe(const QDateTime &now) const;
        bool staleAt(const QDateTime &now) const { return expires.isValid() && expires < now; }
    };
    struct Result
    {
        bool ok = false;
        QString error;                ///< why not (names the lock file and the host)
        std::optional<Holder> holder; ///< who holds it (status; a refused take)
        QString path;
        /// The lock file's text as read (status; its first 4 KiB): what a
        /// break removes only while the file still holds it.
        QByteArray text;
    };
    using Done = std::function<void(const Result &)>;

    /// The lock's path and host for `cluster`; empty path (with `error`) when
    /// the cluster has no prefill with a serve script and no lock_dir.
    static QString pathFor(const inventory::Inventory &inventory, const QString &cluster,
                           QString *host, QString *error);

    ClusterLock(remote::Transport *transport, QString path, QObject *parent = nullptr);

    /// Takes it for `me` (its time and expiry set here, `validity` from now;
    /// a lock already naming `me.workflow`, a resume's, is replaced whole
    /// with them, so that it never reads as stale while its workflow runs);
    /// not ok with the holder when another workflow holds it.
    void take(Holder me, std::chrono::seconds validity, Done done);
    /// Removes it when it names `workflow`; ok when it is already gone.
    void release(const QString &workflow, Done done);
    /// Who holds it (holder empty: free).
    void status(Done done);
    /// Removes it whoever holds it (the caller audits first), only while it
    /// still holds `seen` (status()'s text): a lock taken since by another
    /// workflow, or anything put at its name, is left, not ok, with its
    /// holder. Ok when it is already gone.
    void breakLock(const QByteArray &seen, Done done);

    /// The holder a lock file's text names; nothing when it names none.
    static std::optional<Holder> parse(const QByteArray &text);

private:
    /// The script that removes the lock only while `holds` (a shell test on
    /// the lock file "$lf") is true, else prints its text and exits kHeld;
    /// nothing there: done. A link or another file there is refused.
    QString removalWhile(const QString &holds) const;
    void run(const QString &script, std::function<void(const remote::CommandResult &)> then);

    remote::Transport *m_transport;
    QString m_path;
    QHash<quint64, std::function<void(const remote::CommandResult &)>> m_pending;
};

} // namespace opsdeck::workflows
