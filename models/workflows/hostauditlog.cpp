#include "hostauditlog.h"

#include "auditexport.h"
#include "auditlog.h"
#include "clusterlock.h"
#include "shellquote.h"
#include "transport.h"

#include <QFileInfo>
#include <QJsonDocument>
#include <QSysInfo>

using namespace Qt::StringLiterals;

namespace opsdeck::workflows {

QString HostAuditLog::pathFor(const inventory::Inventory &inventory, const QString &cluster,
                              QString *host, QString *error)
{
    const inventory::Cluster *members = inventory.cluster(cluster);
    if (members && !members->auditLog.isEmpty()) {
        const inventory::Service *first =
            members->prefill.isEmpty() ? nullptr : inventory.service(members->prefill.first());
        *host = first ? first->host : QString();
        // Written through a shell on the host: only a plain absolute path
        // names the same file for every reader (no ~, nothing relative).
        if (!members->auditLog.startsWith(u'/') || members->auditLog.contains(u'\n')) {
            *error = u"cluster %1: audit_log '%2' is not an absolute path on %3"_s.arg(
                cluster, members->auditLog, *host);
            return {};
        }
        return members->auditLog;
    }
    // Next to the lock: the folder teammates already look in.
    const QString lock = ClusterLock::pathFor(inventory, cluster, host, error);
    return lock.isEmpty() ? QString() : QFileInfo(lock).path() + u"/opsdeck-audit.log"_s;
}

QByteArray HostAuditLog::line(const history::AuditEntry &entry, const QString &fromMachine)
{
    history::AuditEntry shown = entry;
    if (!shown.time.isValid())
        shown.time = QDateTime::currentDateTimeUtc();
    if (shown.user.isEmpty())
        shown.user = history::AuditLog::currentUser();
    QJsonObject o = history::AuditExport::json(shown);
    o.remove(u"id"_s); // the local log's line number means nothing here
    o[u"from"_s] = fromMachine;
    return QJsonDocument(o).toJson(QJsonDocument::Compact);
}

HostAuditLog::HostAuditLog(remote::Transport *transport, QString path, QObject *parent)
    : QObject(parent), m_transport(transport), m_path(std::move(path))
{
    connect(m_transport, &remote::Transport::commandFinished, this,
            [this](quint64 id, const remote::CommandResult &result) {
                if (id != m_running || m_queue.isEmpty())
                    return;
                m_running = 0;
                const Pending done = m_queue.dequeue();
                const QString why = QString::fromUtf8(result.standardError).trimmed();
                done.done(result.succeeded()
                              ? QString()
                              : u"the audit copy %1 on %2 was not appended: %3"_s.arg(
                                    m_path, m_transport->hostName(),
                                    why.isEmpty() ? result.describe() : why.left(300)));
                next();
            });
}

void HostAuditLog::append(const history::AuditEntry &entry,
                          std::function<void(const QString &problem)> done)
{
    m_queue.enqueue({line(entry, QSysInfo::machineHostName()), std::move(done)});
    if (!m_running)
        next();
}

void HostAuditLog::whenIdle(std::function<void()> then)
{
    if (m_queue.isEmpty())
        return then();
    m_idle.append(std::move(then));
}

int HostAuditLog::dropPending()
{
    const int dropped = static_cast<int>(m_queue.size());
    m_queue.clear();
    m_running = 0; // a late answer of the command in flight is ignored
    const auto idle = std::exchange(m_idle, {});
    for (const auto &then : idle)
        then();
    return dropped;
}

void HostAuditLog::next()
{
    if (m_queue.isEmpty()) {
        const auto idle = std::exchange(m_idle, {});
        for (const auto &then : idle)
            then();
        return;
    }
    // Appended only to a regular file (or a new one): never through a link
    // to another file (symbolic, or a second name of a hard-linked one),
    // never into a FIFO that would block, and never into OpsDeck's own files
    // (an inventory naming the data dir's audit log or history database
    // would break the chain for good, or stop the recorder; a serve script's
    // backup would no longer restore). Known by name (inventory::
    // ownFilePatterns()): the copy's default sits beside a demo's database.
    remote::CommandRequest request;
    request.script = u"umask 022\nf=%2\n"
                     "case ${f##*/} in %3)\n"
                     "  echo \"$f is one of OpsDeck's own files, not an audit copy\" >&2; exit 1;; "
                     "*.log) ;;\n"
                     "*) echo \"$f is not a .log file, not an audit copy\" >&2; exit 1;; esac\n"
                     "if [ -L \"$f\" ] || { [ -e \"$f\" ] && [ ! -f \"$f\" ]; }; then\n"
                     "  echo \"$f is not a regular file\" >&2\n  exit 1\nfi\n"
                     "if [ -e \"$f\" ] && [ \"$(stat -c %h -- \"$f\")\" != 1 ]; then\n"
                     "  echo \"$f has $(stat -c %h -- \"$f\") hard links: another file's name\" "
                     ">&2\n  exit 1\nfi\n"
                     "printf '%s\\n' %1 >> \"$f\"\n"_s.arg(
                         shell::singleQuoted(QString::fromUtf8(m_queue.head().line)),
                         shell::singleQuoted(m_path), inventory::ownFilePatterns().join(u'|'));
    request.deadline = std::chrono::seconds(5);
    m_running = m_transport->run(request);
}

} // namespace opsdeck::workflows
