#include "knobfiles.h"

#include "inventory.h"
#include "knobdiff.h"
#include "redaction.h"
#include "remotefiles.h"
#include "transport.h"
#include "unifieddiff.h"

#include <QCryptographicHash>
#include <QDateTime>
#include <QRegularExpression>
#include <algorithm>
#include <memory>

namespace opsdeck::knobs {

namespace {

QString folderOf(const QString &path)
{
    const qsizetype slash = path.lastIndexOf(QLatin1Char('/'));
    return slash < 0 ? QStringLiteral(".") : slash == 0 ? QStringLiteral("/") : path.left(slash);
}

QString fileNameOf(const QString &path)
{
    return path.mid(path.lastIndexOf(QLatin1Char('/')) + 1);
}

QString beside(const QString &path, const QString &name)
{
    const qsizetype slash = path.lastIndexOf(QLatin1Char('/'));
    return slash < 0 ? name : path.left(slash + 1) + name;
}

} // namespace

KnobFiles::KnobFiles(remote::RemoteFiles *files, remote::Transport *transport, QObject *parent)
    : QObject(parent), m_files(files), m_transport(transport)
{
    connect(m_files, &remote::RemoteFiles::fileFinished, this, &KnobFiles::onFile);
    if (m_transport)
        connect(m_transport, &remote::Transport::commandFinished, this,
                [this](quint64 id, const remote::CommandResult &result) {
                    const auto check = m_checks.take(id);
                    if (!check)
                        return;
                    if (result.succeeded())
                        check({});
                    else if (result.outcome == remote::CommandResult::Outcome::Exited)
                        check(QString::fromUtf8(result.standardError).trimmed());
                    else
                        check(QStringLiteral("host %1: bash -n did not finish: %2")
                                  .arg(m_transport->hostName(), result.describe()));
                });
}

KnobFiles::~KnobFiles() = default;

QByteArray KnobFiles::sha256(const QByteArray &bytes)
{
    return QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex();
}

history::AuditEntry KnobFiles::auditEntry(const Plan &plan, const Applied &state,
                                          const QString &action)
{
    history::AuditEntry entry;
    entry.kind = QStringLiteral("knob");
    entry.host = plan.host;
    entry.action = action;
    entry.detail =
        QStringLiteral("%1: %2; backup %3 sha256 %4%5\n%6")
            .arg(plan.path, plan.what, state.backupPath, QString::fromLatin1(state.backupSha256),
                 state.error.isEmpty() ? QString() : QStringLiteral("; ") + state.error,
                 plan.auditDiff);
    return entry;
}

const KnobFiles::Backup *KnobFiles::backupAsOf(const QVector<Backup> &backups, qint64 msecs)
{
    const Backup *after = nullptr;
    const Backup *before = nullptr;
    for (const Backup &backup : backups) { // newest first
        if (!backup.error.isEmpty() || backup.path.isEmpty())
            continue;
        if (backup.modifiedMsecs > msecs && backup.byOpsDeck)
            after = &backup;
        else if (backup.modifiedMsecs <= msecs && !before)
            before = &backup;
    }
    return after ? after : before;
}

bool KnobFiles::isBackupName(const QString &scriptName, const QString &name, bool *byOpsDeck)
{
    static const QRegularExpression ours(
        QStringLiteral("^\\.opsdeck-\\d{8}T\\d{6}Z(-\\d+)?\\.bak$"));
    if (!name.startsWith(scriptName) || name == scriptName)
        return false;
    const QString rest = name.mid(scriptName.size());
    if (byOpsDeck)
        *byOpsDeck = ours.match(rest).hasMatch();
    return rest == u".bak" || rest == u".orig" || rest == u"~" ||
           (rest.startsWith(u'.') && rest.endsWith(u".bak") && rest.size() > 5);
}

void KnobFiles::call(quint64 id, FileThen then)
{
    m_pending.insert(id, std::move(then));
}

void KnobFiles::onFile(quint64 id, const remote::RemoteFileResult &result)
{
    const FileThen then = m_pending.take(id);
    if (then)
        then(result);
}

void KnobFiles::read(const QString &path, std::function<void(const Read &)> done)
{
    call(m_files->read(path.toUtf8(), kMaxScriptBytes),
         [this, path, done](const remote::RemoteFileResult &result) {
             Read read;
             if (!result.ok) {
                 read.error = result.errorText;
             } else if (result.truncated) {
                 read.error = QStringLiteral("host %1: %2 is larger than %3 bytes: not a serve "
                                             "script OpsDeck reads or edits")
                                  .arg(m_files->hostName(), path)
                                  .arg(kMaxScriptBytes);
             } else {
                 read.ok = true;
                 read.bytes = result.data;
                 read.sha256 = sha256(result.data);
                 read.info = result.info;
             }
             done(read);
         });
}

void KnobFiles::planBytes(const Read &read, const QString &path, const QByteArray &after,
                          const QString &what, int line, std::function<void(const Plan &)> done)
{
    Plan plan;
    plan.host = m_files->hostName();
    plan.path = path;
    plan.what = what;
    plan.line = line;
    plan.before = read.bytes;
    plan.beforeSha256 = read.sha256;
    plan.permissions = read.info.permissions & 07777;
    plan.after = after;
    const ServeScript before = ServeScript::parse(read.bytes);
    const ServeScript changed = ServeScript::parse(after);
    plan.diff = unifiedDiff(read.bytes, after, path, path);
    plan.auditDiff = unifiedDiff(redactedScript(before), redactedScript(changed), path, path);
    plan.changes = knobDiff(before, changed);
    plan.ok = true;
    done(plan);
}

void KnobFiles::refuseLink(const QString &path, std::function<void(const QString &)> then)
{
    call(m_files->list(folderOf(path).toUtf8()),
         [this, path, then](const remote::RemoteFileResult &listed) {
             const QByteArray name = fileNameOf(path).toUtf8();
             for (const remote::RemoteFileInfo &entry : listed.entries) {
                 if (entry.name != name)
                     continue;
                 if (entry.type == remote::RemoteFileInfo::Type::Symlink)
                     return then(QStringLiteral("host %1: %2 is a symbolic link: OpsDeck changes "
                                                "the file itself, never through a link (give "
                                                "the link's target)")
                                     .arg(m_files->hostName(), path));
                 // The edit writes a new file under this name: every other
                 // name would keep the old script, and whatever starts the
                 // service through it the old knob.
                 if (entry.links > 1)
                     return then(QStringLiteral("host %1: %2 has %3 names (hard links): an edit "
                                                "would change it under this name only, the "
                                                "others keeping the old script; nothing changed "
                                                "(give the script one name)")
                                     .arg(m_files->hostName(), path)
                                     .arg(entry.links));
             }
             then({}); // an unlistable folder: the read says why
         });
}

void KnobFiles::unlessLink(const QString &path, std::function<void(const Plan &)> done,
                           std::function<void()> go)
{
    // An audit log, journal or backup parsed as a script would be rewritten
    // line by line by an edit meant for a serve script.
    if (inventory::isOwnFileName(path)) {
        Plan refused;
        refused.error = QStringLiteral("host %1: %2 is named as one of OpsDeck's own files (%3), "
                                       "not a serve script: nothing changed")
                            .arg(m_files->hostName(), path,
                                 inventory::ownFilePatterns().join(QStringLiteral(", ")));
        return done(refused);
    }
    refuseLink(path, [done, go](const QString &link) {
        if (link.isEmpty())
            return go();
        Plan failed;
        failed.error = link;
        done(failed);
    });
}

void KnobFiles::plan(const QString &path, const ScriptEdit &edit,
                     std::function<void(const Plan &)> done)
{
    unlessLink(path, done, [this, path, edit, done] { planEdit(path, edit, done); });
}

void KnobFiles::planEdit(const QString &path, const ScriptEdit &edit,
                         std::function<void(const Plan &)> done)
{
    read(path, [this, path, edit, done](const Read &read) {
        if (!read.ok) {
            Plan failed;
            failed.error = read.error;
            done(failed);
            return;
        }
        const ScriptEdit::Result result = edit.apply(ServeScript::parse(read.bytes));
        if (!result.ok) {
            Plan failed;
            failed.error =
                QStringLiteral("host %1: %2: %3").arg(m_files->hostName(), path, result.error);
            done(failed);
            return;
        }
        const QString what =
            edit.operation == ScriptEdit::Operation::Set
                ? QStringLiteral("set %1%2")
                      .arg(edit.name, edit.value.isEmpty() && edit.name.startsWith(u"--")
                                          ? QString()
                                          : u"=" + redactedValue(edit.name, edit.value))
                : QStringLiteral("%1 %2").arg(ScriptEdit::operationName(edit.operation), edit.name);
        planBytes(read, path, result.bytes, what, result.line, done);
    });
}

void KnobFiles::planRestore(const QString &path, const QString &backupPath,
                            std::function<void(const Plan &)> done)
{
    unlessLink(path, done,
               [this, path, backupPath, done] { planRestoreOf(path, backupPath, done); });
}

void KnobFiles::planRestoreOf(const QString &path, const QString &backupPath,
                              std::function<void(const Plan &)> done)
{
    read(path, [this, path, backupPath, done](const Read &current) {
        if (!current.ok) {
            Plan failed;
            failed.error = current.error;
            done(failed);
            return;
        }
        read(backupPath, [this, path, backupPath, current, done](const Read &backup) {
            if (!backup.ok) {
                Plan failed;
                failed.error = backup.error;
                done(failed);
                return;
            }
            if (backup.bytes == current.bytes) {
                Plan failed;
                failed.error = QStringLiteral("host %1: %2 is already the same as %3: nothing to "
                                              "restore")
                                   .arg(m_files->hostName(), path, backupPath);
                done(failed);
                return;
            }
            planBytes(current, path, backup.bytes,
                      QStringLiteral("restore from %1").arg(backupPath), 0, done);
        });
    });
}

void KnobFiles::backupName(const QString &path, int attempt,
                           std::function<void(const QString &)> done)
{
    const QString stamp = QDateTime::currentDateTimeUtc().toString(u"yyyyMMdd'T'HHmmss'Z'"_qs);
    const QString name =
        QStringLiteral("%1.opsdeck-%2%3.bak")
            .arg(path, stamp, attempt > 1 ? QStringLiteral("-%1").arg(attempt) : QString());
    call(m_files->stat(name.toUtf8()),
         [this, path, attempt, name, done](const remote::RemoteFileResult &result) {
             // Taken (two edits in one second): the next suffix; never over
             // an existing backup, whatever the count.
             if (result.ok)
                 return attempt < kMaxBackupsPerSecond ? backupName(path, attempt + 1, done)
                                                       : done(QString());
             done(name);
         });
}

void KnobFiles::apply(const Plan &plan, AuditStep audit, std::function<void(const Applied &)> done)
{
    auto state = std::make_shared<Applied>();
    const QString host = m_files->hostName();
    auto fail = [state, done, audit, plan](const QString &why, bool audited) {
        state->error = why;
        if (!audited)
            return done(*state);
        audit(plan, *state, QStringLiteral("edit-failed"),
              [state, done](bool, const QString &) { done(*state); });
    };
    read(plan.path, [=, this](const Read &now) {
        if (!now.ok)
            return fail(now.error + QStringLiteral(": nothing changed"), false);
        if (now.sha256 != plan.beforeSha256)
            return fail(QStringLiteral("host %1: %2 changed on disk since preview: nothing "
                                       "changed (preview again)")
                            .arg(host, plan.path),
                        false);
        backupName(plan.path, 1, [=, this](const QString &backupPath) {
            if (backupPath.isEmpty())
                return fail(QStringLiteral("host %1: %2 backups of %3 were already made this "
                                           "second: no free backup name, nothing changed (try "
                                           "again)")
                                .arg(host)
                                .arg(kMaxBackupsPerSecond)
                                .arg(plan.path),
                            false);
            state->backupPath = backupPath;
            call(m_files->write(backupPath.toUtf8(), now.bytes, plan.permissions & 0777),
                 [=, this](const remote::RemoteFileResult &written) {
                     if (!written.ok)
                         return fail(QStringLiteral("the backup could not be written (%1): "
                                                    "nothing changed")
                                         .arg(written.errorText),
                                     false);
                     read(backupPath, [=, this](const Read &backup) {
                         if (!backup.ok || backup.sha256 != now.sha256)
                             return fail(QStringLiteral("host %1: the backup %2 did not read "
                                                        "back identical (%3): nothing changed")
                                             .arg(host, backupPath,
                                                  backup.ok
                                                      ? QStringLiteral("sha256 %1, not %2")
                                                            .arg(QString::fromLatin1(backup.sha256),
                                                                 QString::fromLatin1(now.sha256))
                                                      : backup.error),
                                         false);
                         state->backupSha256 = backup.sha256;
                         // The script is written only once its entry is on disk.
                         audit(plan, *state, QStringLiteral("edit"),
                               [=, this](bool audited, const QString &auditError) {
                                   if (!audited)
                                       return fail(QStringLiteral("the audit entry could not be "
                                                                  "written (%1): nothing changed")
                                                       .arg(auditError),
                                                   false);
                                   // Checked again just before the write: another edit (a
                                   // teammate's, another console's) may have landed while
                                   // the backup was made and the entry written.
                                   read(plan.path, [=, this](const Read &again) {
                                       if (!again.ok || again.sha256 != plan.beforeSha256)
                                           return fail(
                                               QStringLiteral("host %1: %2 changed on disk since "
                                                              "preview (while its backup and "
                                                              "audit entry were written): "
                                                              "nothing changed (preview again)")
                                                   .arg(host, plan.path),
                                               true);
                                       writeScript(plan, state, fail, audit, done);
                                   });
                               });
                     });
                 });
        });
    });
}

void KnobFiles::writeScript(const Plan &plan, std::shared_ptr<Applied> state,
                            std::function<void(const QString &, bool)> fail, AuditStep audit,
                            std::function<void(const Applied &)> done)
{
    const QString host = m_files->hostName();
    call(m_files->write(plan.path.toUtf8(), plan.after, plan.permissions & 0777),
         [=, this](const remote::RemoteFileResult &written) {
             if (!written.ok)
                 return fail(QStringLiteral("the script could not be written (%1): it is as it "
                                            "was; the backup is %2")
                                 .arg(written.errorText, state->backupPath),
                             true);
             read(plan.path, [=](const Read &back) {
                 if (!back.ok || back.bytes != plan.after)
                     return fail(QStringLiteral("host %1: %2 did not read back as written (%3): "
                                                "restore it from %4")
                                     .arg(host, plan.path,
                                          back.ok ? QStringLiteral("sha256 %1")
                                                        .arg(QString::fromLatin1(back.sha256))
                                                  : back.error,
                                          state->backupPath),
                                 true);
                 state->afterSha256 = back.sha256;
                 state->ok = true;
                 audit(plan, *state, QStringLiteral("edited"),
                       [state, done](bool audited, const QString &auditError) {
                           if (!audited)
                               state->error = QStringLiteral("the script was changed, but its "
                                                             "\"edited\" audit entry could not "
                                                             "be written: %1")
                                                  .arg(auditError);
                           done(*state);
                       });
             });
         });
}

void KnobFiles::backups(const QString &path, std::function<void(const QVector<Backup> &)> done)
{
    read(path, [this, path, done](const Read &current) {
        backupsAgainst(path, current.ok ? current.bytes : QByteArray(), done);
    });
}

void KnobFiles::backupsAgainst(const QString &path, const QByteArray &current,
                               std::function<void(const QVector<Backup> &)> done)
{
    call(m_files->list(folderOf(path).toUtf8()),
         [this, path, current, done](const remote::RemoteFileResult &listed) {
             QVector<Backup> found;
             if (!listed.ok) {
                 Backup failed;
                 failed.error = listed.errorText;
                 done({failed});
                 return;
             }
             const QString script = fileNameOf(path);
             for (const remote::RemoteFileInfo &entry : listed.entries) {
                 Backup backup;
                 const QString name = QString::fromUtf8(entry.name);
                 if (entry.type != remote::RemoteFileInfo::Type::File ||
                     !isBackupName(script, name, &backup.byOpsDeck))
                     continue;
                 backup.path = beside(path, name);
                 backup.modifiedMsecs = entry.modifiedMsecs;
                 backup.size = entry.size;
                 found.append(backup);
             }
             std::sort(found.begin(), found.end(), [](const Backup &a, const Backup &b) {
                 return a.modifiedMsecs != b.modifiedMsecs ? a.modifiedMsecs > b.modifiedMsecs
                                                           : a.path > b.path;
             });
             hashBackups(found, 0, current, done);
         });
}

void KnobFiles::hashBackups(QVector<Backup> backups, int next, QByteArray current,
                            std::function<void(const QVector<Backup> &)> done)
{
    if (next >= backups.size()) {
        done(backups);
        return;
    }
    read(backups.at(next).path, [=, this](const Read &read) mutable {
        Backup &backup = backups[next];
        if (read.ok) {
            backup.sha256 = read.sha256;
            backup.changes = knobDiff(ServeScript::parse(read.bytes), ServeScript::parse(current));
        } else {
            backup.error = read.error;
        }
        hashBackups(backups, next + 1, current, done);
    });
}

void KnobFiles::syntaxCheck(const QString &path, std::function<void(const QString &)> done)
{
    remote::CommandRequest request;
    request.argv = {QStringLiteral("bash"), QStringLiteral("-n"), QStringLiteral("--"), path};
    request.deadline = std::chrono::seconds(20);
    m_checks.insert(m_transport->run(request), std::move(done));
}

} // namespace opsdeck::knobs
