#include "workflowknobs.h"

#include "awaitanswer.h"
#include "clioutput.h"
#include "knobfiles.h"
#include "servescript.h"
#include "workflowjournal.h"

#include <QFileInfo>
#include <QJsonArray>

using namespace Qt::StringLiterals;

namespace opsdeck::cli {

namespace {

using knobs::KnobFiles;
using knobs::ScriptEdit;
using knobs::ServeScript;

std::optional<KnobFiles::Read> readFile(KnobFiles &files, const QString &path)
{
    return awaitAnswer<KnobFiles::Read>([&](auto done) { files.read(path, std::move(done)); });
}

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
    for (const auto &journal : workflows::WorkflowJournal::list(dataDir)) {
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

} // namespace

std::optional<QVector<workflows::WorkflowPlan::KnobEdit>>
planKnobEdits(const inventory::Inventory &inventory, workflows::WorkflowKind kind,
              const QString &cluster, const QString &service, const QString &knob,
              const QString &backup, const QString &dataDir,
              const std::function<knobs::KnobFiles *(const QString &host)> &filesOf)
{
    const QString key = knob.section(u'=', 0, 0);
    if (key.isEmpty()) {
        printError(u"%1 needs --knob KEY (or KEY=VALUE)"_s.arg(workflows::workflowKindName(kind)));
        return std::nullopt;
    }
    const inventory::Cluster *members = inventory.cluster(cluster);
    if (!members) {
        printError(u"no cluster '%1' in %2"_s.arg(cluster, inventory.path));
        return std::nullopt;
    }
    QStringList candidates;
    if (!service.isEmpty())
        candidates << service;
    else
        candidates << members->prefill << members->decode << members->router << members->proxy;
    QVector<workflows::WorkflowPlan::KnobEdit> edits;
    QStringList looked;
    for (const QString &name : candidates) {
        const inventory::Service *s = inventory.service(name);
        if (!s || s->serveScript.isEmpty()) {
            if (!service.isEmpty()) {
                printError(u"service %1 has no serve_script in %2"_s.arg(name, inventory.path));
                return std::nullopt;
            }
            continue;
        }
        KnobFiles *files = filesOf(s->host);
        if (!files)
            return std::nullopt;
        const auto read = readFile(*files, s->serveScript);
        if (!read || !read->ok) {
            printError(read ? read->error : u"no answer from host %1"_s.arg(s->host));
            return std::nullopt;
        }
        looked << s->serveScript;
        const ServeScript script = ServeScript::parse(read->bytes);
        const bool restore = kind == workflows::WorkflowKind::RestoreKnob;
        // restore-knob: the scripts a revert of the knob edited (it may be
        // commented out now), or the one the backup given belongs to.
        std::optional<Revert> revert;
        if (restore && backup.isEmpty())
            revert = lastRevert(dataDir, cluster, key, s->serveScript);
        bool byOpsDeck = false;
        const bool backupIsItsOwn =
            !backup.isEmpty() &&
            QFileInfo(backup).absolutePath() == QFileInfo(s->serveScript).absolutePath() &&
            KnobFiles::isBackupName(QFileInfo(s->serveScript).fileName(),
                                    QFileInfo(backup).fileName(), &byOpsDeck);
        const bool concerned = restore ? (revert || backupIsItsOwn) : bool(script.knob(key));
        if (!concerned) {
            if (!service.isEmpty()) {
                printError(
                    restore
                        ? u"no revert-knob of %1 on %2 (service %3) is recorded in %4: "
                          "give --backup PATH"_s.arg(key, s->serveScript, name,
                                                     workflows::WorkflowJournal::folderIn(dataDir))
                        : u"%1 (service %2) does not set %3"_s.arg(s->serveScript, name, key));
                return std::nullopt;
            }
            continue;
        }
        ScriptEdit edit;
        edit.name = key;
        QString from = backup;
        // Untouched since the revert: its backup goes back whole, byte for byte.
        const bool wholeFile = revert && revert->afterSha256 == read->sha256;
        if (revert)
            from = revert->backup;
        if (wholeFile) {
            const auto plan = awaitAnswer<KnobFiles::Plan>(
                [&](auto done) { files->planRestore(s->serveScript, from, std::move(done)); });
            if (!plan || !plan->ok) {
                printError(plan ? plan->error : u"no answer from host %1"_s.arg(s->host));
                return std::nullopt;
            }
            edits.append({0, name, *plan});
            continue;
        }
        if (!from.isEmpty()) {
            const auto old = readFile(*files, from);
            if (!old || !old->ok) {
                printError(old ? old->error : u"no answer from host %1"_s.arg(s->host));
                return std::nullopt;
            }
            const std::optional<knobs::Knob> was = ServeScript::parse(old->bytes).knob(key);
            edit.operation = was ? ScriptEdit::Operation::Set : ScriptEdit::Operation::Comment;
            edit.value = was ? was->value : QString();
        } else if (knob.contains(u'=')) {
            edit.operation = ScriptEdit::Operation::Set;
            edit.value = knob.section(u'=', 1);
        } else {
            edit.operation = ScriptEdit::Operation::Comment;
        }
        const auto plan = awaitAnswer<KnobFiles::Plan>(
            [&](auto done) { files->plan(s->serveScript, edit, std::move(done)); });
        if (!plan || !plan->ok) {
            printError(plan ? plan->error : u"no answer from host %1"_s.arg(s->host));
            return std::nullopt;
        }
        if (plan->changes.isEmpty() && plan->before == plan->after) {
            printError(u"%1 (service %2) already has %3 as asked: nothing to change"_s.arg(
                s->serveScript, name, key));
            return std::nullopt;
        }
        edits.append({0, name, *plan});
    }
    if (edits.isEmpty()) {
        printError(u"no serve script of cluster %1 sets %2 (read: %3)"_s.arg(
            cluster, key, looked.isEmpty() ? u"none"_s : looked.join(u", "_s)));
        return std::nullopt;
    }
    return edits;
}

} // namespace opsdeck::cli
