#include "knobeditplanner.h"

#include "knobfiles.h"
#include "servescript.h"
#include "workflowjournal.h"

#include <QFileInfo>
#include <QJsonArray>
#include <memory>

using namespace Qt::StringLiterals;

namespace opsdeck::workflows {

namespace {

using knobs::KnobFiles;
using knobs::ScriptEdit;
using knobs::ServeScript;

// What a revert-knob (or, when undoing one workflow, that workflow) did to
// `script`: the backup it made, the backup's SHA-256 then and the script's
// after the edit.
struct Revert
{
    QString workflow;
    QString backup;
    QByteArray backupSha256;
    QByteArray afterSha256;
};

// The edit of `script` the newest matching journal recorded; nothing, with
// `refusal` set, when that journal cannot be trusted to say which backup
// holds the script from before it.
std::optional<Revert> recordedEdit(const KnobEditPlanner::Request &request, const QString &key,
                                   const QString &script, QString *refusal)
{
    for (const auto &journal : WorkflowJournal::list(request.dataDir)) {
        const QJsonObject &plan = journal.plan;
        // A backup given: whichever workflow made it (found by its path).
        const bool candidate =
            !request.backup.isEmpty() ||
            (request.undoing.isEmpty()
                 ? plan.value(u"kind"_s).toString() == u"revert-knob" &&
                       plan.value(u"knob"_s).toString().section(u'=', 0, 0) == key
                 : journal.id == request.undoing);
        if (!candidate || plan.value(u"cluster"_s).toString() != request.cluster)
            continue;
        for (const QJsonValue &value : plan.value(u"steps"_s).toArray()) {
            const QJsonObject step = value.toObject();
            if (step.value(u"action"_s).toString() != u"edit-knob" ||
                !step.value(u"title"_s).toString().startsWith(u"edit "_s + script + u" on "_s))
                continue;
            // Killed between its start and its end: whether it edited the
            // script, and which backup holds the script from before it, is
            // not known; an older revert's backup would put an older value.
            const int n = step.value(u"n"_s).toInt();
            if (journal.unended.contains(n) && request.backup.isEmpty()) {
                *refusal = u"workflow %1 started editing %2 and never recorded its end (a run "
                           "that was killed): which backup holds the script from before it is "
                           "not known. Give the backup beside the script with --backup"_s.arg(
                               journal.id, script);
                return std::nullopt;
            }
            // "backup PATH (sha256 X); the script's sha256 is now Y"
            const QString detail = journal.endedDetail.value(n);
            const QString backup = detail.mid(7).section(u" (sha256 "_s, 0, 0);
            if (!request.backup.isEmpty() && QFileInfo(backup).absoluteFilePath() !=
                                                 QFileInfo(request.backup).absoluteFilePath())
                continue;
            // Only one of OpsDeck's own backups beside the script: a journal
            // edited to name another file must not put that file in place.
            bool byOpsDeck = false;
            if (detail.startsWith(u"backup "_s) &&
                (QFileInfo(backup).absolutePath() != QFileInfo(script).absolutePath() ||
                 !KnobFiles::isBackupName(QFileInfo(script).fileName(),
                                          QFileInfo(backup).fileName(), &byOpsDeck) ||
                 !byOpsDeck)) {
                *refusal = u"workflow %1's journal names %2 as the backup of %3, which is not one "
                           "of OpsDeck's backups beside it (an edited journal?): nothing "
                           "restored"_s.arg(journal.id, backup, script);
                return std::nullopt;
            }
            if (detail.startsWith(u"backup "_s))
                return Revert{
                    journal.id, backup,
                    detail.section(u" (sha256 "_s, 1).section(u')', 0, 0).toLatin1(),
                    detail.section(u"is now "_s, 1).section(u';', 0, 0).trimmed().toLatin1()};
        }
        if (!request.undoing.isEmpty())
            break;
    }
    return std::nullopt;
}

// One plan in flight: the candidates are looked at one after the other, each
// answer continuing with the next.
struct Planning : std::enable_shared_from_this<Planning>
{
    inventory::Inventory inventory;
    KnobEditPlanner::Request request;
    KnobEditPlanner::FilesOf filesOf;
    KnobEditPlanner::Done done;
    QString key;
    QStringList candidates;
    int index = 0;
    QStringList looked;
    QVector<WorkflowPlan::KnobEdit> edits;

    void fail(const QString &error) { done(std::nullopt, error); }
    static QString noAnswer(const QString &host) { return u"no answer from host %1"_s.arg(host); }

    void next()
    {
        if (index >= candidates.size()) {
            const QString read = looked.isEmpty() ? u"none"_s : looked.join(u", "_s);
            if (edits.isEmpty() && request.kind == WorkflowKind::RestoreKnob)
                return fail(
                    !request.backup.isEmpty()
                        ? u"%1 is not a backup of a serve script of cluster %2 (read: "
                          "%3)"_s.arg(request.backup, request.cluster, read)
                    : request.undoing.isEmpty()
                        ? u"no revert-knob of %1 in cluster %2 is recorded in %3 for its "
                          "serve scripts (read: %4): give a backup"_s.arg(
                              key, request.cluster, WorkflowJournal::folderIn(request.dataDir),
                              read)
                        : u"workflow %1 edited no serve script of cluster %2 (read: %3): "
                          "nothing to restore"_s.arg(request.undoing, request.cluster, read));
            if (edits.isEmpty())
                return fail(u"no serve script of cluster %1 sets %2 (read: %3)"_s.arg(
                    request.cluster, key, read));
            return done(edits, QString());
        }
        const QString name = candidates.at(index++);
        const inventory::Service *s = inventory.service(name);
        if (!s || s->serveScript.isEmpty()) {
            if (!request.service.isEmpty())
                return fail(u"service %1 has no serve_script in %2"_s.arg(name, inventory.path));
            return next();
        }
        KnobFiles *files = filesOf(s->host);
        if (!files)
            return fail(u"host %1 (service %2) cannot be reached"_s.arg(s->host, name));
        looked << s->serveScript;
        auto self = shared_from_this();
        const QString host = s->host;
        const QString script = s->serveScript;
        files->read(script, [self, files, name, host, script](const KnobFiles::Read &read) {
            if (!read.ok)
                return self->fail(read.error.isEmpty() ? noAnswer(host) : read.error);
            self->planOne(*files, name, script, read);
        });
    }

    void planOne(KnobFiles &files, const QString &name, const QString &scriptPath,
                 const KnobFiles::Read &read)
    {
        const ServeScript script = ServeScript::parse(read.bytes);
        const bool restore = request.kind == WorkflowKind::RestoreKnob;
        // restore-knob: the scripts a revert of the knob edited (it may be
        // commented out now), or the one the backup given belongs to.
        std::optional<Revert> revert;
        if (restore) {
            QString refusal;
            revert = recordedEdit(request, key, scriptPath, &refusal);
            if (!refusal.isEmpty())
                return fail(refusal);
        }
        bool byOpsDeck = false;
        const bool backupIsItsOwn =
            !request.backup.isEmpty() &&
            QFileInfo(request.backup).absolutePath() == QFileInfo(scriptPath).absolutePath() &&
            KnobFiles::isBackupName(QFileInfo(scriptPath).fileName(),
                                    QFileInfo(request.backup).fileName(), &byOpsDeck);
        // A backup given belongs to one script: the others are not concerned.
        if (revert && !request.backup.isEmpty() && !backupIsItsOwn)
            revert.reset();
        const bool concerned = restore ? (revert || backupIsItsOwn) : bool(script.knob(key));
        if (!concerned) {
            if (!request.service.isEmpty())
                return fail(restore
                                ? (request.undoing.isEmpty()
                                       ? u"no revert-knob of %1 on %2 (service %3) is recorded in "
                                         "%4: give a backup"_s.arg(
                                             key, scriptPath, name,
                                             WorkflowJournal::folderIn(request.dataDir))
                                       : u"workflow %1 did not edit %2 (service %3): nothing to "
                                         "restore"_s.arg(request.undoing, scriptPath, name))
                                : u"%1 (service %2) does not set %3"_s.arg(scriptPath, name, key));
            return next();
        }
        auto self = shared_from_this();
        const auto planned = [self, name, scriptPath](const KnobFiles::Plan &plan) {
            if (!plan.ok)
                return self->fail(plan.error);
            if (plan.changes.isEmpty() && plan.before == plan.after)
                return self->fail(
                    u"%1 (service %2) already has %3 as asked: nothing to change"_s.arg(
                        scriptPath, name, self->key));
            self->edits.append({0, name, plan});
            self->next();
        };
        QString from = request.backup;
        if (revert)
            from = revert->backup;
        ScriptEdit edit;
        edit.name = key;
        if (from.isEmpty()) {
            const bool set = request.knob.contains(u'=');
            edit.operation = set ? ScriptEdit::Operation::Set : ScriptEdit::Operation::Comment;
            edit.value = set ? request.knob.section(u'=', 1) : QString();
            return files.plan(scriptPath, edit, planned);
        }
        KnobFiles *filesPtr = &files;
        const QByteArray current = read.sha256;
        files.read(from, [self, filesPtr, scriptPath, from, revert, current, edit,
                          planned](const KnobFiles::Read &old) {
            if (!old.ok)
                return self->fail(old.error);
            // A backup changed since it was made no longer holds the script
            // as it was: restoring it would put unknown bytes in place.
            if (revert && old.sha256 != revert->backupSha256)
                return self->fail(
                    u"backup %1 is not the one workflow %2 made: its sha256 is %3, the journal "
                    "recorded %4; nothing restored"_s.arg(
                        from, revert->workflow, QString::fromLatin1(old.sha256),
                        QString::fromLatin1(revert->backupSha256)));
            // Untouched since the edit: the backup goes back whole, byte for byte.
            // planRestore reads the backup again: what it plans to write must
            // be the bytes checked above, not a file swapped in between.
            if (revert && revert->afterSha256 == current)
                return filesPtr->planRestore(
                    scriptPath, from,
                    [self, from, checked = old.bytes, planned](const KnobFiles::Plan &plan) {
                        if (plan.ok && plan.after != checked)
                            return self->fail(
                                u"backup %1 changed while it was read (its sha256 is now %2, "
                                "the one checked was %3); nothing restored"_s.arg(
                                    from, QString::fromLatin1(KnobFiles::sha256(plan.after)),
                                    QString::fromLatin1(KnobFiles::sha256(checked))));
                        planned(plan);
                    });
            ScriptEdit fromBackup = edit;
            const std::optional<knobs::Knob> was = ServeScript::parse(old.bytes).knob(self->key);
            fromBackup.operation =
                was ? ScriptEdit::Operation::Set : ScriptEdit::Operation::Comment;
            fromBackup.value = was ? was->value : QString();
            filesPtr->plan(scriptPath, fromBackup, planned);
        });
    }
};

} // namespace

void KnobEditPlanner::plan(const inventory::Inventory &inventory, const Request &request,
                           FilesOf filesOf, Done done)
{
    auto planning = std::make_shared<Planning>();
    planning->inventory = inventory;
    planning->request = request;
    planning->filesOf = std::move(filesOf);
    planning->done = std::move(done);
    planning->key = request.knob.section(u'=', 0, 0);
    if (planning->key.isEmpty())
        return planning->fail(
            u"%1 needs a knob: KEY or KEY=VALUE"_s.arg(workflowKindName(request.kind)));
    const inventory::Cluster *members = inventory.cluster(request.cluster);
    if (!members)
        return planning->fail(u"no cluster '%1' in %2"_s.arg(request.cluster, inventory.path));
    if (!request.service.isEmpty())
        planning->candidates << request.service;
    else
        planning->candidates << members->prefill << members->decode << members->router
                             << members->proxy;
    planning->next();
}

} // namespace opsdeck::workflows
