#pragma once

#include "auditentry.h"
#include "hostkeydecision.h"
#include "workerthread.h"

#include <QDateTime>
#include <QHash>
#include <QPointer>
#include <QString>
#include <functional>
#include <memory>
#include <mutex>

namespace opsdeck::history {
class AuditLog;
}

namespace opsdeck::hosts {

/// Writes SSH host-key decisions to the audit log (issue 5: "each decision
/// is written to the audit log"): accepted keys, refused unknown and changed
/// keys, errors, and the operator's answer in the unknown-key dialog. A key
/// that matches known_hosts is routine, not a decision, and is not written.
/// The same refusal repeated (a poller knocking through a tunnel every few
/// seconds) is written once per `repeatWindow`, so the log stays readable.
/// Every entry is written in order on the auditor's own thread. An acceptance
/// is waited for (the key is saved only once it is on disk: never call
/// record() with one from the GUI thread). Refusals, errors and the
/// operator's answers change nothing and are not waited for, so
/// that neither an SSH session thread nor the GUI thread waits for the disk
/// or the keychain (the chain key's first answer) on their account; the
/// destructor waits until every one is written.
/// Thread: any (SshSettings::hostKeyDecided calls it from session threads).
class HostKeyAuditor
{
public:
    explicit HostKeyAuditor(std::shared_ptr<history::AuditLog> log,
                            std::chrono::seconds repeatWindow = std::chrono::minutes(10));
    ~HostKeyAuditor();
    HostKeyAuditor(const HostKeyAuditor &) = delete;
    HostKeyAuditor &operator=(const HostKeyAuditor &) = delete;
    /// Returns once every entry handed to the auditor's thread is written (at
    /// most 30 s), delivering the calling thread's events meanwhile: an entry
    /// may wait for the keychain's answer, which comes through them. Call it
    /// before letting go of the auditor (the destructor waits too, but
    /// delivers no event, so a first key can then take its 5 s deadline).
    void flush();
    /// One writing to `<data dir>/audit.jsonl` (AppPaths::dataDir(dataDir)),
    /// as the window and every opsdeck-cli command do.
    static std::shared_ptr<HostKeyAuditor> inDataDir(const QString &dataDir);

    /// For SshSettings::hostKeyDecided. `accepted-new`: true once it is on
    /// disk; a failed append is logged (spdlog error naming the file) and
    /// returns false with `error`, and the key is then not saved. Any other
    /// decision is queued for the auditor's thread and returns true.
    bool record(const remote::HostKeyDecision &decision, QString *error = nullptr);
    /// The operator's answer to the unknown-key dialog: `accepted` true means
    /// "accept and save" (the connect that follows writes `accepted-new`),
    /// false `refused-by-operator`.
    void recordOperatorAnswer(const QString &host, const QString &keyType,
                              const QString &fingerprint, bool accepted);

    /// Appends `entry` on the auditor's thread, after every entry handed over
    /// before it, then calls `done(ok, error)` on `context`'s thread: for an
    /// action that runs only once its entry is on disk (a knob edit in the
    /// window), without the GUI thread waiting for the disk or the keychain.
    /// Nothing is called when `context` is gone by then. `afterwards`, when
    /// given, runs on the auditor's thread once the entry is written (a
    /// history marker of the action: never on the GUI thread).
    void appendEntry(const history::AuditEntry &entry, QObject *context,
                     std::function<void(bool ok, const QString &error)> done,
                     std::function<void()> afterwards = {});

    history::AuditLog *log() const { return m_log.get(); }

private:
    bool append(const QString &host, const QString &action, const QString &detail,
                QString *error = nullptr);

    /// Writes on the auditor's thread (in order), for decisions that change nothing.
    void appendLater(const QString &host, const QString &action, const QString &detail);

    std::shared_ptr<history::AuditLog> m_log;
    threads::WorkerThread m_thread{QStringLiteral("audit")};
    QObject *m_writer; ///< lives on m_thread: the queued appends' receiver
    std::chrono::seconds m_repeatWindow;
    std::mutex m_mutex;
    QHash<QString, QDateTime> m_lastWritten; ///< "host|action|fingerprint" -> when
};

} // namespace opsdeck::hosts
