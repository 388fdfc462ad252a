#pragma once

#include "hostkeydecision.h"

#include <QDateTime>
#include <QHash>
#include <QString>
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
/// Thread: any (SshSettings::hostKeyDecided calls it from session threads).
class HostKeyAuditor
{
public:
    explicit HostKeyAuditor(std::shared_ptr<history::AuditLog> log,
                            std::chrono::seconds repeatWindow = std::chrono::minutes(10));
    /// One writing to `<data dir>/audit.jsonl` (AppPaths::dataDir(dataDir)),
    /// as the window and every opsdeck-cli command do.
    static std::shared_ptr<HostKeyAuditor> inDataDir(const QString &dataDir);

    /// For SshSettings::hostKeyDecided: true when the decision is on disk (or
    /// needs no entry: a matching key, a refusal repeated within the window).
    /// A failed append is logged (spdlog error naming the file) and returns
    /// false with `error`; for `accepted-new` the key is then not saved.
    bool record(const remote::HostKeyDecision &decision, QString *error = nullptr);
    /// The operator's answer to the unknown-key dialog: `accepted` true means
    /// "accept and save" (the connect that follows writes `accepted-new`),
    /// false `refused-by-operator`.
    void recordOperatorAnswer(const QString &host, const QString &keyType,
                              const QString &fingerprint, bool accepted);

    history::AuditLog *log() const { return m_log.get(); }

private:
    bool append(const QString &host, const QString &action, const QString &detail,
                QString *error = nullptr);

    std::shared_ptr<history::AuditLog> m_log;
    std::chrono::seconds m_repeatWindow;
    std::mutex m_mutex;
    QHash<QString, QDateTime> m_lastWritten; ///< "host|action|fingerprint" -> when
};

} // namespace opsdeck::hosts
