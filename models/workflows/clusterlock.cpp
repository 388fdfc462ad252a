#include "clusterlock.h"

#include "commandrequest.h"
#include "commandresult.h"
#include "shellquote.h"
#include "transport.h"

#include <QCryptographicHash>
#include <QFileInfo>

namespace opsdeck::workflows {

namespace {

QString name(const QString &cluster)
{
    return QStringLiteral(".opsdeck-lock-") + cluster;
}

QString iso(const QDateTime &time)
{
    return time.toUTC().toString(Qt::ISODate);
}

// Exit codes of the scripts.
constexpr int kHeld = 3;

// Anything but a regular file at the lock's name (a link to /dev/null that
// noclobber would write through, a FIFO it would block on) is refused.
const QString kOnlyAFile = QStringLiteral(
    "if [ -L \"$lf\" ] || { [ -e \"$lf\" ] && [ ! -f \"$lf\" ]; }; then\n"
    "  echo \"$lf is a link or not a regular file: not a lock OpsDeck takes or trusts; remove it "
    "after checking what it is\" >&2; exit 1\n"
    "fi\n");

} // namespace

QString ClusterLock::Holder::describe(const QDateTime &now) const
{
    if (owner.isEmpty() && fromHost.isEmpty() && workflow.isEmpty() && !time.isValid())
        return QStringLiteral("nobody it names: the lock file is empty or unreadable (a take that "
                              "could not write it?); check it, then `opsdeck-cli lock break`");
    const QString since = time.isValid()
                              ? QStringLiteral("since %1 UTC (%2 min ago)")
                                    .arg(time.toUTC().toString(QStringLiteral("yyyy-MM-dd HH:mm")))
                                    .arg(time.secsTo(now) / 60)
                              : QStringLiteral("since a time it does not say");
    return QStringLiteral("%1 on %2, workflow %3, %4%5")
        .arg(owner.isEmpty() ? QStringLiteral("someone") : owner,
             fromHost.isEmpty() ? QStringLiteral("an unknown machine") : fromHost,
             workflow.isEmpty() ? QStringLiteral("unknown") : workflow, since)
        .arg(staleAt(now) ? QStringLiteral(", STALE: expired at %1 UTC")
                                .arg(expires.toUTC().toString(QStringLiteral("HH:mm")))
                          : QString());
}

QString ClusterLock::pathFor(const inventory::Inventory &inventory, const QString &cluster,
                             QString *host, QString *error)
{
    const inventory::Cluster *members = inventory.cluster(cluster);
    const inventory::Service *first = members && !members->prefill.isEmpty()
                                          ? inventory.service(members->prefill.first())
                                          : nullptr;
    if (!first) {
        *error = QStringLiteral("no cluster '%1' in %2").arg(cluster, inventory.path);
        return {};
    }
    *host = first->host;
    QString dir = members->lockDir;
    if (dir.isEmpty() && !first->serveScript.isEmpty())
        dir = QFileInfo(first->serveScript).path();
    if (dir.isEmpty()) {
        *error = QStringLiteral("cluster %1: neither lock_dir nor a serve_script of %2 says where "
                                "its lock goes")
                     .arg(cluster, first->name);
        return {};
    }
    return dir + u'/' + name(cluster);
}

ClusterLock::ClusterLock(remote::Transport *transport, QString path, QObject *parent)
    : QObject(parent), m_transport(transport), m_path(std::move(path))
{
    connect(m_transport, &remote::Transport::commandFinished, this,
            [this](quint64 id, const remote::CommandResult &result) {
                const auto then = m_pending.take(id);
                if (then)
                    then(result);
            });
}

void ClusterLock::run(const QString &script,
                      std::function<void(const remote::CommandResult &)> then)
{
    remote::CommandRequest request;
    request.script = script;
    request.deadline = std::chrono::seconds(20);
    m_pending.insert(m_transport->run(request), std::move(then));
}

std::optional<ClusterLock::Holder> ClusterLock::parse(const QByteArray &text)
{
    Holder holder;
    bool any = false;
    for (const QByteArray &line : text.split('\n')) {
        const QString value = QString::fromUtf8(line.mid(line.indexOf('=') + 1)).trimmed();
        any = any || line.contains('=');
        if (line.startsWith("owner="))
            holder.owner = value;
        else if (line.startsWith("host="))
            holder.fromHost = value;
        else if (line.startsWith("time="))
            holder.time = QDateTime::fromString(value, Qt::ISODate);
        else if (line.startsWith("expires="))
            holder.expires = QDateTime::fromString(value, Qt::ISODate);
        else if (line.startsWith("workflow="))
            holder.workflow = value;
    }
    return any ? std::optional<Holder>(holder) : std::nullopt;
}

void ClusterLock::take(Holder me, std::chrono::seconds validity, Done done)
{
    me.time = QDateTime::currentDateTimeUtc();
    me.expires = me.time.addSecs(validity.count());
    const QString content =
        QStringLiteral("owner=%1\nhost=%2\ntime=%3\nexpires=%4\nworkflow=%5\n")
            .arg(me.owner, me.fromHost, iso(me.time), iso(me.expires), me.workflow);
    // noclobber: created only when absent, atomically (O_EXCL); a link planted
    // there is not followed (and one planted between the check and the write
    // is caught after it). One created but not filled (a full disk) is this
    // take's own: removed, so that it never stands as an empty lock blocking
    // every later run. Else what it holds, read bounded.
    const QString script =
        QStringLiteral("lf=%1\numask 022\n").arg(shell::singleQuoted(m_path)) + kOnlyAFile +
        QStringLiteral(
            "r=0\n"
            "( set -C\n"
            "  { exec 3>\"$lf\"; } 2>/dev/null || exit 1\n"
            "  printf '%s' %1 >&3 2>/dev/null || { rm -f \"$lf\"; exit 4; }\n"
            ") || r=$?\n"
            "if [ \"$r\" = 0 ]; then\n"
            "  [ -f \"$lf\" ] && [ ! -L \"$lf\" ] && grep -qxF %2 \"$lf\" && exit 0\n"
            "  echo \"$lf changed under the lock being taken: not taken\" >&2; exit 1\n"
            "fi\n"
            "if [ \"$r\" = 4 ]; then\n"
            "  echo \"$lf could not be written (a full disk?): removed again, not taken\" >&2; "
            "exit 1\n"
            "fi\n"
            // Its own (a resume): taken again with the time and expiry of
            // now, replaced whole, so that it never reads as stale while the
            // workflow runs and a break of what was read before refuses.
            "if [ -f \"$lf\" ] && [ ! -L \"$lf\" ] && grep -qxF %2 \"$lf\"; then\n"
            "  t=\"$lf.opsdeck-retake.$$\"\n"
            "  if ( set -C; printf '%s' %1 >\"$t\" ) 2>/dev/null && mv -f \"$t\" \"$lf\"; then "
            "exit 0; "
            "fi\n"
            "  rm -f \"$t\"; echo \"$lf could not be taken again (a full disk?)\" >&2; exit 1\n"
            "fi\n"
            "if [ -f \"$lf\" ] && [ ! -L \"$lf\" ]; then head -c 4096 \"$lf\"; exit %3; fi\n"
            "echo \"cannot create $lf\" >&2; exit 1\n")
            .arg(shell::singleQuoted(content),
                 shell::singleQuoted(QStringLiteral("workflow=") + me.workflow))
            .arg(kHeld);
    run(script, [this, me, done](const remote::CommandResult &result) {
        Result out;
        out.path = m_path;
        if (result.succeeded()) {
            out.ok = true;
            out.holder = me;
            return done(out);
        }
        if (result.outcome == remote::CommandResult::Outcome::Exited && result.exitCode == kHeld) {
            out.holder = parse(result.standardOutput);
            out.error =
                QStringLiteral("cluster lock %1 on %2 is held by %3")
                    .arg(m_path, m_transport->hostName(),
                         out.holder.value_or(Holder()).describe(QDateTime::currentDateTimeUtc()));
            return done(out);
        }
        out.error = QStringLiteral("cluster lock %1 on %2: %3 %4")
                        .arg(m_path, m_transport->hostName(), result.describe(),
                             QString::fromUtf8(result.standardError).trimmed());
        done(out);
    });
}

QString ClusterLock::removalWhile(const QString &holds) const
{
    return QStringLiteral("lf=%1\n[ -e \"$lf\" ] || [ -L \"$lf\" ] || exit 0\n")
               .arg(shell::singleQuoted(m_path)) +
           kOnlyAFile +
           QStringLiteral("%1 || { head -c 4096 \"$lf\"; exit %2; }\nrm -f \"$lf\"\n")
               .arg(holds)
               .arg(kHeld);
}

void ClusterLock::release(const QString &workflow, Done done)
{
    const QString script =
        removalWhile(QStringLiteral("grep -qxF %1 \"$lf\"")
                         .arg(shell::singleQuoted(QStringLiteral("workflow=") + workflow)));
    run(script, [this, done](const remote::CommandResult &result) {
        Result out;
        out.path = m_path;
        out.ok = result.succeeded();
        if (!out.ok) {
            out.holder = parse(result.standardOutput);
            out.error =
                QStringLiteral("cluster lock %1 on %2 was not released: %3")
                    .arg(m_path, m_transport->hostName(),
                         out.holder ? QString(QStringLiteral("it is held by ") +
                                              out.holder->describe(QDateTime::currentDateTimeUtc()))
                                    : QString(result.describe() + u' ' +
                                              QString::fromUtf8(result.standardError).trimmed()));
        }
        done(out);
    });
}

void ClusterLock::status(Done done)
{
    const QString script = QStringLiteral("lf=%1\n[ -e \"$lf\" ] || [ -L \"$lf\" ] || exit 0\n")
                               .arg(shell::singleQuoted(m_path)) +
                           kOnlyAFile +
                           QStringLiteral("head -c 4096 \"$lf\"; exit %1\n").arg(kHeld);
    run(script, [this, done](const remote::CommandResult &result) {
        Result out;
        out.path = m_path;
        out.ok = result.succeeded() || (result.outcome == remote::CommandResult::Outcome::Exited &&
                                        result.exitCode == kHeld);
        if (result.exitCode == kHeld) {
            out.holder = parse(result.standardOutput).value_or(Holder());
            out.text = result.standardOutput;
        }
        if (!out.ok)
            out.error = QStringLiteral("cluster lock %1 on %2: %3 %4")
                            .arg(m_path, m_transport->hostName(), result.describe(),
                                 QString::fromUtf8(result.standardError).trimmed());
        done(out);
    });
}

void ClusterLock::breakLock(const QByteArray &seen, Done done)
{
    // Compared by hash: the text may hold anything, the script only hex.
    const QString script = removalWhile(
        QStringLiteral("[ \"$(head -c 4096 \"$lf\" | sha256sum | cut -d' ' -f1)\" = %1 ]")
            .arg(QString::fromLatin1(
                QCryptographicHash::hash(seen.left(4096), QCryptographicHash::Sha256).toHex())));
    run(script, [this, done](const remote::CommandResult &result) {
        Result out;
        out.path = m_path;
        out.ok = result.succeeded();
        if (result.outcome == remote::CommandResult::Outcome::Exited && result.exitCode == kHeld) {
            out.holder = parse(result.standardOutput).value_or(Holder());
            out.error = QStringLiteral("cluster lock %1 on %2 changed since it was read (now held "
                                       "by %3): left in place")
                            .arg(m_path, m_transport->hostName(),
                                 out.holder->describe(QDateTime::currentDateTimeUtc()));
        } else if (!out.ok) {
            out.error = QStringLiteral("cluster lock %1 on %2 was not removed: %3 %4")
                            .arg(m_path, m_transport->hostName(), result.describe(),
                                 QString::fromUtf8(result.standardError).trimmed());
        }
        done(out);
    });
}

} // namespace opsdeck::workflows
