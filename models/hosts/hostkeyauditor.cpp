#include "hostkeyauditor.h"

#include "auditkey.h"
#include "auditlog.h"

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QThread>
#include <atomic>
#include <spdlog/spdlog.h>

namespace opsdeck::hosts {

HostKeyAuditor::HostKeyAuditor(std::shared_ptr<history::AuditLog> log,
                               std::chrono::seconds repeatWindow)
    : m_log(std::move(log)), m_writer(m_thread.adopt(new QObject)), m_repeatWindow(repeatWindow)
{
}

HostKeyAuditor::~HostKeyAuditor()
{
    // No event is delivered here: this runs while its owners are being torn
    // down. Every queued entry is still written before the thread ends.
    QMetaObject::invokeMethod(
        m_writer, [] {}, Qt::BlockingQueuedConnection);
}

void HostKeyAuditor::flush()
{
    // Queued calls run in order: the marker runs after every earlier append.
    // This thread keeps delivering its events meanwhile: an append may be
    // waiting for the keychain's answer, which arrives through them.
    auto done = std::make_shared<std::atomic<bool>>(false);
    QMetaObject::invokeMethod(
        m_writer, [done] { *done = true; }, Qt::QueuedConnection);
    QDeadlineTimer deadline(std::chrono::seconds(30));
    while (!*done && !deadline.hasExpired()) {
        QCoreApplication::processEvents(QEventLoop::AllEvents, 10);
        if (!*done)
            QThread::msleep(2);
    }
}

void HostKeyAuditor::appendLater(const QString &host, const QString &action, const QString &detail)
{
    QMetaObject::invokeMethod(
        m_writer, [this, host, action, detail] { append(host, action, detail); },
        Qt::QueuedConnection);
}

void HostKeyAuditor::appendEntry(const history::AuditEntry &entry, QObject *context,
                                 std::function<void(bool, const QString &)> done,
                                 std::function<void()> afterwards)
{
    const QPointer<QObject> answerTo(context);
    QMetaObject::invokeMethod(
        m_writer,
        [this, entry, answerTo, done = std::move(done), afterwards = std::move(afterwards)] {
            QString error;
            const bool ok = m_log->append(entry, &error);
            if (ok && afterwards)
                afterwards();
            if (answerTo)
                QMetaObject::invokeMethod(
                    answerTo, [done, ok, error] { done(ok, error); }, Qt::QueuedConnection);
        },
        Qt::QueuedConnection);
}

std::shared_ptr<HostKeyAuditor> HostKeyAuditor::inDataDir(const QString &dataDir)
{
    return std::make_shared<HostKeyAuditor>(history::AuditKey::inDataDir(dataDir));
}

bool HostKeyAuditor::record(const remote::HostKeyDecision &decision, QString *error)
{
    if (decision.outcome == QLatin1String("matched"))
        return true;
    const QString who = decision.jumpHost
                            ? QStringLiteral("%1 (ProxyJump hop)").arg(decision.hostEntry)
                            : decision.hostEntry;
    QString detail = QStringLiteral("%1 %2 %3; known_hosts %4")
                         .arg(who, decision.keyType, decision.fingerprint, decision.knownHostsFile);
    if (!decision.message.isEmpty())
        detail += QStringLiteral("; ") + decision.message.section(u'\n', 0, 0);
    const QString key = decision.host + u'|' + decision.outcome + u'|' + decision.fingerprint;
    {
        std::lock_guard lock(m_mutex);
        const QDateTime now = QDateTime::currentDateTimeUtc();
        const auto last = m_lastWritten.constFind(key);
        // Accepting is written every time; a repeated refusal once per window.
        if (decision.outcome != QLatin1String("accepted-new") && last != m_lastWritten.cend() &&
            last->secsTo(now) < m_repeatWindow.count())
            return true;
        // Taken before writing: two session threads deciding at once write it once.
        m_lastWritten.insert(key, now);
    }
    if (decision.outcome != QLatin1String("accepted-new")) {
        appendLater(decision.host, decision.outcome, detail);
        return true;
    }
    // On the auditor's thread too, after what was queued before it, and
    // waited for: the key is saved only once this entry is on disk.
    bool written = false;
    QString why;
    QMetaObject::invokeMethod(
        m_writer, [&] { written = append(decision.host, decision.outcome, detail, &why); },
        Qt::BlockingQueuedConnection);
    if (written)
        return true;
    if (error)
        *error = why;
    std::lock_guard lock(m_mutex);
    m_lastWritten.remove(key); // not on disk: the next decision tries again
    return false;
}

void HostKeyAuditor::recordOperatorAnswer(const QString &host, const QString &keyType,
                                          const QString &fingerprint, bool accepted)
{
    appendLater(host,
                accepted ? QStringLiteral("accepted-by-operator")
                         : QStringLiteral("refused-by-operator"),
                QStringLiteral("unknown host key %1 %2 %3 in the dialog")
                    .arg(keyType, fingerprint,
                         accepted ? QStringLiteral("accepted") : QStringLiteral("refused")));
}

bool HostKeyAuditor::append(const QString &host, const QString &action, const QString &detail,
                            QString *error)
{
    history::AuditEntry entry;
    entry.kind = QStringLiteral("host-key");
    entry.host = host;
    entry.action = action;
    entry.detail = detail;
    QString why;
    if (m_log->append(entry, &why))
        return true;
    spdlog::error("{} (host-key {} for {})", why.toStdString(), action.toStdString(),
                  host.toStdString());
    if (error)
        *error = QStringLiteral("its audit entry could not be written (%1)").arg(why);
    return false;
}

} // namespace opsdeck::hosts
