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

// What the last revert-knob of `key` did to `script` in `cluster`: the
// backup it made and the script's SHA-256 after it.
struct Revert
{
    QString backup;
    QByteArray afterSha256;
};

std::optional<Revert> lastRevert(const QString &dataDir, const QString &cluster, const QString &key,
                                 const QString &script)
{
    for (const auto &journal : WorkflowJournal::list(dataDir)) {
        const QJsonObject &plan = journal.plan;
        if (plan.value(u"kind"_s).toString() != u"revert-knob" ||
            plan.value(u"cluster"_s).toString() != cluster ||
            plan.value(u"knob"_s).toString().section(u'=', 0, 0) != key)
            continue;
        for (const QJsonValue &value : plan.value(u"steps"_s).toArray()) {
            const QJsonObject step = value.toObject();
            if (step.value(u"action"_s).toString() != u"edit-knob" ||
                !step.value(u"title"_s).toString().startsWith(u"edit "_s + script + u" on "_s))
                continue;
            // "backup PATH (sha256 X); the script's sha256 is now Y"
            const QString detail = journal.endedDetail.value(step.value(u"n"_s).toInt());
            if (detail.startsWith(u"backup "_s))
                return Revert{detail.mid(7).section(u" (sha256"_s, 0, 0),
                              detail.section(u"is now "_s, 1).trimmed().toLatin1()};
        }
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
            if (edits.isEmpty())
                return fail(u"no serve script of cluster %1 sets %2 (read: %3)"_s.arg(
                    request.cluster, key, looked.isEmpty() ? u"none"_s : looked.join(u", "_s)));
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
        if (restore && request.backup.isEmpty())
            revert = lastRevert(request.dataDir, request.cluster, key, scriptPath);
        bool byOpsDeck = false;
        const bool backupIsItsOwn =
            !request.backup.isEmpty() &&
            QFileInfo(request.backup).absolutePath() == QFileInfo(scriptPath).absolutePath() &&
            KnobFiles::isBackupName(QFileInfo(scriptPath).fileName(),
                                    QFileInfo(request.backup).fileName(), &byOpsDeck);
        const bool concerned = restore ? (revert || backupIsItsOwn) : bool(script.knob(key));
        if (!concerned) {
            if (!request.service.isEmpty())
                return fail(
                    restore ? u"no revert-knob of %1 on %2 (service %3) is recorded in "
                              "%4: give a backup"_s.arg(key, scriptPath, name,
                                                        WorkflowJournal::folderIn(request.dataDir))
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
        // Untouched since the revert: its backup goes back whole, byte for byte.
        if (revert && revert->afterSha256 == read.sha256)
            return files.planRestore(scriptPath, from, planned);
        ScriptEdit edit;
        edit.name = key;
        if (from.isEmpty()) {
            const bool set = request.knob.contains(u'=');
            edit.operation = set ? ScriptEdit::Operation::Set : ScriptEdit::Operation::Comment;
            edit.value = set ? request.knob.section(u'=', 1) : QString();
            return files.plan(scriptPath, edit, planned);
        }
        KnobFiles *filesPtr = &files;
        files.read(from, [self, filesPtr, scriptPath, edit, planned](const KnobFiles::Read &old) {
            if (!old.ok)
                return self->fail(old.error);
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
