#include "knobscommand.h"

#include "apppaths.h"
#include "auditkey.h"
#include "auditlog.h"
#include "awaitanswer.h"
#include "cliinventory.h"
#include "clioutput.h"
#include "historystore.h"
#include "hostfiles.h"
#include "knobcatalog.h"
#include "knobdiff.h"
#include "knobdrift.h"
#include "knobfiles.h"
#include "knobjson.h"
#include "redaction.h"
#include "remotefiles.h"
#include "servescript.h"
#include "synchronousrun.h"
#include "transport.h"
#include "visibletext.h"

#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonObject>
#include <QRegularExpression>

using namespace Qt::StringLiterals;

namespace opsdeck::cli {

namespace {

using knobs::KnobFiles;
using knobs::ScriptEdit;

// Where SCRIPT lives and what the inventory says about it.
struct Target
{
    HostFiles host;
    QString script;
    std::optional<inventory::Inventory> inventory;
    std::optional<inventory::Service> service; ///< the service whose serve_script it is
};

// `script` names `service`'s serve script: the same path once cleaned, or,
// on a local host, the same file.
bool sameScript(const inventory::Inventory &inventory, const inventory::Service &service,
                const QString &script)
{
    if (QDir::cleanPath(service.serveScript) == QDir::cleanPath(script))
        return true;
    const inventory::Host *host = inventory.host(service.host);
    if (!host || host->kind != inventory::HostKind::Local)
        return false;
    const QString a = QFileInfo(service.serveScript).canonicalFilePath();
    return !a.isEmpty() && a == QFileInfo(script).canonicalFilePath();
}

std::optional<Target> targetOf(const QCommandLineParser &parser, const QString &script)
{
    Target target;
    target.script = script;
    if (!parser.isSet(u"inventory"_s)) {
        if (parser.isSet(u"host"_s)) {
            printError(u"--host needs --inventory (the file that says how to reach it)"_s);
            return std::nullopt;
        }
        // The user's own file: relative to here, for bash -n as for the file calls.
        target.script = QFileInfo(script).absoluteFilePath();
        target.host = HostFiles::local();
        return target;
    }
    target.inventory = loadInventoryOrSay(parser.value(u"inventory"_s));
    if (!target.inventory)
        return std::nullopt;
    QString host = parser.value(u"host"_s);
    for (const inventory::Service &service : target.inventory->services)
        if (sameScript(*target.inventory, service, script) &&
            (host.isEmpty() || service.host == host)) {
            target.service = service;
            if (host.isEmpty())
                host = service.host;
            break;
        }
    // Whatever the spelling (./, //, .., a link on this machine), the script
    // of a service is that service's: its guards apply.
    if (target.service)
        target.script = target.service->serveScript;
    if (host.isEmpty()) {
        printError(u"%1: no service has serve_script %2: name its host with --host"_s.arg(
            target.inventory->path, script));
        return std::nullopt;
    }
    std::optional<HostFiles> files = HostFiles::of(*target.inventory, host, parser);
    if (!files)
        return std::nullopt;
    target.host = std::move(*files);
    return target;
}

// An inventory's host is changed only when armed, a production service only
// with its name confirmed; the user's own file (no inventory) as an editor would.
bool allowedToChange(const Target &target, const QCommandLineParser &parser)
{
    if (!target.inventory)
        return true;
    if (!target.inventory->armed) {
        printError(u"%1 is not armed (armed: false): OpsDeck changes nothing on its hosts. Set "
                   "`armed: true` in it to allow edits."_s.arg(target.inventory->path));
        return false;
    }
    if (target.service && target.service->isProduction() &&
        parser.value(u"confirm"_s) != target.service->name) {
        printError(u"service %1 is tagged production: repeat its name with --confirm %1 to "
                   "change %2"_s.arg(target.service->name, target.script));
        return false;
    }
    return true;
}

// The catalog's paragraph on a knob; empty for one it does not know.
QString help(const QString &name)
{
    const std::optional<knobs::KnobInfo> info = knobs::KnobCatalog::builtIn().info(name);
    return info ? info->help() : QString();
}

int readScript(Target &target, bool json)
{
    KnobFiles files(target.host.files.get(), target.host.transport.get());
    const auto read = awaitAnswer<KnobFiles::Read>(
        [&](auto done) { files.read(target.script, std::move(done)); });
    if (!read || !read->ok) {
        printError(read ? read->error : u"no answer from host %1"_s.arg(target.host.host));
        return ExitFailed;
    }
    const auto syntax =
        awaitAnswer<QString>([&](auto done) { files.syntaxCheck(target.script, std::move(done)); });
    const knobs::ServeScript script = knobs::ServeScript::parse(read->bytes);
    QVector<knobs::ScriptWarning> warnings = script.warnings();
    bool bashFails = false;
    if (syntax && !syntax->isEmpty()) {
        bashFails = true;
        static const QRegularExpression lineOf(u"line (\\d+):"_s);
        warnings.append({lineOf.match(*syntax).captured(1).toInt(), u"bash -n: "_s + *syntax});
    }
    if (json) {
        QJsonArray knobsArray;
        for (const knobs::Knob &knob : script.knobs())
            knobsArray.append(
                QJsonObject{{u"name"_s, knob.name},
                            {u"value"_s, knob.value},
                            {u"line"_s, knob.line},
                            {u"kind"_s, knobs::Knob::kindName(knob.kind)},
                            {u"quoted"_s, knob.quoted},
                            {u"references"_s, QJsonArray::fromStringList(knob.references)},
                            {u"exported"_s, knob.exported},
                            {u"has_value"_s, knob.hasValue},
                            {u"conditional"_s, knob.conditional},
                            {u"help"_s, help(knob.name)}});
        QJsonArray warningsArray;
        for (const knobs::ScriptWarning &warning : warnings)
            warningsArray.append(
                QJsonObject{{u"line"_s, warning.line}, {u"reason"_s, warning.reason}});
        printJson(
            QJsonDocument(QJsonObject{{u"knobs"_s, knobsArray}, {u"warnings"_s, warningsArray}}));
    } else {
        for (const knobs::Knob &knob : script.knobs())
            printLine(
                u"%1  %2  %3%4%5"_s.arg(knob.line, 4)
                    .arg(knobs::Knob::kindName(knob.kind), -10)
                    .arg(knob.name,
                         knob.hasValue ? (knob.isFlag() ? u" "_s : u"="_s) + knob.value : QString(),
                         knob.references.isEmpty()
                             ? QString()
                             : u"   (expands %1)"_s.arg(knob.references.join(u", "_s))));
        for (const knobs::ScriptWarning &warning : std::as_const(warnings))
            printError(warning.line > 0
                           ? u"%1:%2: %3"_s.arg(target.script).arg(warning.line).arg(warning.reason)
                           : u"%1: %2"_s.arg(target.script, warning.reason));
    }
    return bashFails ? ExitFailed : ExitOk;
}

void addMarker(const QCommandLineParser &parser, const Target &target, const KnobFiles::Plan &plan)
{
    history::Marker marker;
    marker.timeMs = QDateTime::currentMSecsSinceEpoch();
    marker.kind = u"knob"_s;
    marker.text = u"knob: %1 in %2 on %3"_s.arg(
        plan.what, plan.path.mid(plan.path.lastIndexOf(u'/') + 1), target.host.host);
    marker.link = plan.path;
    marker.service = target.service ? target.service->name : QString();
    QString error;
    const QString database =
        history::HistoryStore::pathIn(settings::AppPaths::dataDir(parser.value(u"data-dir"_s)));
    if (!history::HistoryStore::addMarkerTo(database, marker, &error))
        printError(u"the change is made, but its marker was not added to history: %1"_s.arg(error));
}

// Plans with `makePlan`, prints the diff, and unless --dry-run applies it.
int change(
    Target &target, const QCommandLineParser &parser,
    const std::function<void(KnobFiles &, std::function<void(const KnobFiles::Plan &)>)> &makePlan)
{
    const bool json = parser.isSet(u"json"_s);
    const bool dryRun = parser.isSet(u"dry-run"_s);
    if (!dryRun && !allowedToChange(target, parser))
        return ExitBadInput;
    KnobFiles files(target.host.files.get(), target.host.transport.get());
    const auto plan =
        awaitAnswer<KnobFiles::Plan>([&](auto done) { makePlan(files, std::move(done)); });
    if (!plan || !plan->ok) {
        printError(plan ? plan->error : u"no answer from host %1"_s.arg(target.host.host));
        return plan && plan->error.contains(u"changed on disk"_s) ? ExitFailed : ExitBadInput;
    }
    QJsonObject out{{u"host"_s, target.host.host},
                    {u"script"_s, plan->path},
                    {u"what"_s, plan->what},
                    {u"diff"_s, plan->diff},
                    {u"changes"_s, knobChangesJson(plan->changes)},
                    {u"applied"_s, false}};
    if (!json)
        std::fputs(plan->diff.toUtf8().constData(), stdout);
    if (dryRun) {
        if (json)
            printJson(QJsonDocument(out));
        else
            printLine(u"dry run: %1 is unchanged"_s.arg(plan->path));
        return ExitOk;
    }
    const std::shared_ptr<history::AuditLog> log =
        history::AuditKey::inDataDir(parser.value(u"data-dir"_s));
    const auto applied = awaitAnswer<KnobFiles::Applied>([&](auto done) {
        files.apply(
            *plan,
            [&](const KnobFiles::Plan &p, const KnobFiles::Applied &state, const QString &action,
                const KnobFiles::AuditDone &audited) {
                QString error;
                const bool ok = log->append(KnobFiles::auditEntry(p, state, action), &error);
                audited(ok, error);
            },
            std::move(done));
    });
    if (!applied) {
        printError(u"no answer from host %1: %2 may or may not be changed; compare it with its "
                   "newest backup"_s.arg(target.host.host, plan->path));
        return ExitUnknown;
    }
    out[u"applied"_s] = applied->ok;
    out[u"backup"_s] = applied->backupPath;
    out[u"backup_sha256"_s] = QString::fromLatin1(applied->backupSha256);
    out[u"error"_s] = applied->error;
    if (applied->ok)
        addMarker(parser, target, *plan);
    if (json) {
        printJson(QJsonDocument(out));
    } else if (applied->ok) {
        printLine(u"changed %1 on %2 (%3); backup %4 (sha256 %5). A running service sees it "
                  "after its next restart."_s.arg(plan->path, target.host.host, plan->what,
                                                  applied->backupPath,
                                                  QString::fromLatin1(applied->backupSha256)));
    }
    if (!applied->error.isEmpty())
        printError(applied->error);
    // Changed but its "edited" entry not written: a failure to say, not a success.
    return applied->ok && applied->error.isEmpty() ? ExitOk : ExitFailed;
}

int listBackups(Target &target, bool json)
{
    KnobFiles files(target.host.files.get(), target.host.transport.get());
    const auto found = awaitAnswer<QVector<KnobFiles::Backup>>(
        [&](auto done) { files.backups(target.script, std::move(done)); });
    if (!found) {
        printError(u"no answer from host %1"_s.arg(target.host.host));
        return ExitUnknown;
    }
    if (found->size() == 1 && found->first().path.isEmpty()) {
        printError(found->first().error);
        return ExitFailed;
    }
    QJsonArray array;
    for (const KnobFiles::Backup &backup : *found) {
        const QString time =
            QDateTime::fromMSecsSinceEpoch(backup.modifiedMsecs, Qt::UTC).toString(Qt::ISODate);
        if (json) {
            array.append(QJsonObject{{u"path"_s, backup.path},
                                     {u"by_opsdeck"_s, backup.byOpsDeck},
                                     {u"time"_s, time},
                                     {u"size"_s, backup.size},
                                     {u"sha256"_s, QString::fromLatin1(backup.sha256)},
                                     {u"changes"_s, knobChangesJson(backup.changes)},
                                     {u"error"_s, backup.error}});
            continue;
        }
        printLine(u"%1  %2 bytes  sha256 %3  %4  (%5)"_s.arg(time)
                      .arg(backup.size)
                      .arg(QString::fromLatin1(backup.sha256.left(12)),
                           logging::visibleText(backup.path),
                           backup.byOpsDeck ? u"by OpsDeck"_s : u"by hand"_s));
        if (!backup.error.isEmpty())
            printLine(u"    cannot read it: "_s + backup.error);
        else if (backup.changes.isEmpty())
            printLine(u"    the same knobs as the script now"_s);
        for (const knobs::KnobChange &change : backup.changes)
            printLine(u"    "_s + change.text());
    }
    if (json)
        printJson(QJsonDocument(QJsonObject{{u"backups"_s, array}}));
    return ExitOk;
}

int diffScripts(Target &target, const QString &other, bool json)
{
    KnobFiles files(target.host.files.get(), target.host.transport.get());
    QVector<knobs::ServeScript> scripts;
    for (const QString &path : {target.script, other}) {
        const auto read =
            awaitAnswer<KnobFiles::Read>([&](auto done) { files.read(path, std::move(done)); });
        if (!read || !read->ok) {
            printError(read ? read->error : u"no answer from host %1"_s.arg(target.host.host));
            return ExitBadInput;
        }
        scripts.append(knobs::ServeScript::parse(read->bytes));
    }
    const QVector<knobs::KnobChange> changes = knobs::knobDiff(scripts.at(0), scripts.at(1));
    if (json) {
        printJson(QJsonDocument(QJsonObject{{u"changes"_s, knobChangesJson(changes)}}));
    } else {
        for (const knobs::KnobChange &change : changes)
            printLine(change.text());
    }
    return changes.isEmpty() ? ExitOk : ExitFailed;
}

// The serve script of a service against the process that runs it now.
int drift(const QCommandLineParser &parser)
{
    const bool json = parser.isSet(u"json"_s);
    if (!parser.isSet(u"inventory"_s) || !parser.isSet(u"service"_s)) {
        printError(u"usage: opsdeck-cli knobs drift --inventory FILE --service NAME [--json]"_s);
        return ExitBadInput;
    }
    const std::optional<inventory::Inventory> loaded =
        loadInventoryOrSay(parser.value(u"inventory"_s));
    if (!loaded)
        return ExitBadInput;
    const inventory::Service *service = loaded->service(parser.value(u"service"_s));
    if (!service || service->serveScript.isEmpty()) {
        printError(service ? u"%1: service %2 has no serve_script to compare"_s.arg(loaded->path,
                                                                                    service->name)
                           : u"%1: no service named \"%2\""_s.arg(loaded->path,
                                                                  parser.value(u"service"_s)));
        return ExitBadInput;
    }
    std::optional<HostFiles> host = HostFiles::of(*loaded, service->host, parser);
    if (!host)
        return ExitBadInput;
    KnobFiles files(host->files.get(), host->transport.get());
    const auto read = awaitAnswer<KnobFiles::Read>(
        [&](auto done) { files.read(service->serveScript, std::move(done)); });
    if (!read || !read->ok) {
        printError(read ? read->error : u"no answer from host %1"_s.arg(host->host));
        return ExitUnknown;
    }
    const inventory::Host *entry = loaded->host(service->host);
    const knobs::ProcessView process = knobs::ProcessView::parse(
        remote::runAndWait(*host->transport,
                           knobs::ProcessView::request(service->pidFile, service->url.port(),
                                                       entry && entry->sudo)),
        host->host);
    QVector<knobs::KnobDrift> items;
    if (process.pid > 0)
        items = knobs::knobDrift(knobs::ServeScript::parse(read->bytes), process);
    const bool drifted = std::any_of(items.cbegin(), items.cend(),
                                     [](const knobs::KnobDrift &d) { return d.drifted(); });
    if (json) {
        QJsonArray array;
        for (const knobs::KnobDrift &item : std::as_const(items))
            array.append(QJsonObject{{u"name"_s, item.name},
                                     {u"kind"_s, knobs::Knob::kindName(item.kind)},
                                     {u"script"_s, item.script},
                                     {u"process"_s, item.process},
                                     {u"state"_s, knobs::KnobDrift::stateName(item.state)},
                                     {u"says"_s, item.says()}});
        printJson(QJsonDocument(
            QJsonObject{{u"service"_s, service->name},
                        {u"host"_s, host->host},
                        {u"pid"_s, process.pid},
                        {u"script"_s, service->serveScript},
                        {u"in_sync"_s, process.pid > 0 && !drifted && process.problem.isEmpty()},
                        {u"knobs"_s, array},
                        {u"problem"_s, process.problem}}));
    } else {
        if (process.pid > 0)
            printLine(u"%1 on %2: pid %3 against %4"_s.arg(service->name, host->host)
                          .arg(process.pid)
                          .arg(service->serveScript));
        qsizetype width = 0;
        for (const knobs::KnobDrift &item : std::as_const(items))
            width = std::max(width, item.name.size());
        for (const knobs::KnobDrift &item : std::as_const(items))
            printLine(u"  %1  %2"_s.arg(item.name, -int(width)).arg(item.says()));
    }
    if (!process.problem.isEmpty())
        printError(process.problem);
    if (drifted)
        return ExitFailed;
    return process.problem.isEmpty() ? ExitOk : ExitUnknown;
}

// KEY and VALUE of set/unset/comment: positional, or --knob for a flag.
std::optional<ScriptEdit> editOf(const QString &action, const QStringList &positional,
                                 const QCommandLineParser &parser)
{
    QStringList rest = positional.mid(2);
    if (parser.isSet(u"knob"_s))
        rest.prepend(parser.value(u"knob"_s));
    ScriptEdit edit;
    edit.operation = action == u"set"     ? ScriptEdit::Operation::Set
                     : action == u"unset" ? ScriptEdit::Operation::Unset
                                          : ScriptEdit::Operation::Comment;
    edit.name = rest.value(0);
    const bool flag = edit.name.startsWith(u"--");
    const int most = edit.operation == ScriptEdit::Operation::Set ? 2 : 1;
    if (edit.name.isEmpty() || rest.size() > most ||
        (edit.operation == ScriptEdit::Operation::Set && !flag && rest.size() < 2)) {
        printError(u"usage: opsdeck-cli knobs %1 SCRIPT KEY%2 (a flag after --, or "
                   "--knob=--flag)"_s.arg(action, most == 2 ? u" VALUE"_s : QString()));
        return std::nullopt;
    }
    edit.value = rest.value(1);
    return edit;
}

} // namespace

int runKnobs(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        u"Read and change the knobs of a serve script as bash reads them: read, set, unset, "
        "comment, backups, restore, diff, drift. Changes are previewed as a diff, backed up and "
        "verified, audited, then written atomically; nothing is restarted."_s);
    parser.addPositionalArgument(u"action"_s,
                                 u"read, set, unset, comment, backups, restore, diff or drift"_s);
    parser.addPositionalArgument(u"script"_s, u"The serve script (a path on the host)."_s);
    parser.addOption(
        {u"inventory"_s, u"Inventory file: SCRIPT is on one of its hosts."_s, u"file"_s});
    parser.addOption({u"host"_s,
                      u"Inventory host SCRIPT is on (default: the host of the service "
                      "whose serve_script it is)."_s,
                      u"host"_s});
    parser.addOption(
        {u"knob"_s, u"The knob, for a flag spelled with dashes (--knob=--NAME)."_s, u"name"_s});
    parser.addOption(
        {u"confirm"_s, u"The service's name, for one tagged production."_s, u"name"_s});
    parser.addOption({u"service"_s, u"drift: the inventory's service to compare."_s, u"name"_s});
    parser.addOption({u"dry-run"_s, u"Print the diff; change nothing."_s});
    parser.addOption(jsonOption());
    parser.addOption(dataDirOption());
    addTunnelOptions(parser);
    if (!parseArguments(parser, arguments))
        return ExitBadInput;
    const QStringList positional = parser.positionalArguments();
    const QString action = positional.value(0);
    const bool json = parser.isSet(u"json"_s);
    static const QStringList actions{u"read"_s,    u"set"_s,     u"unset"_s, u"comment"_s,
                                     u"backups"_s, u"restore"_s, u"diff"_s,  u"drift"_s};
    if (action == u"drift")
        return drift(parser);
    if (!actions.contains(action) || positional.size() < 2) {
        printError(
            u"usage: opsdeck-cli knobs %1 SCRIPT ... (see --help)"_s.arg(actions.join(u'|')));
        return ExitBadInput;
    }
    std::optional<Target> target = targetOf(parser, positional.at(1));
    if (!target)
        return ExitBadInput;
    if (action == u"read")
        return readScript(*target, json);
    if (action == u"backups")
        return listBackups(*target, json);
    if (action == u"diff") {
        if (positional.size() != 3) {
            printError(u"usage: opsdeck-cli knobs diff A B [--json]"_s);
            return ExitBadInput;
        }
        return diffScripts(*target,
                           target->inventory ? positional.at(2)
                                             : QFileInfo(positional.at(2)).absoluteFilePath(),
                           json);
    }
    if (action == u"restore") {
        if (positional.size() != 3) {
            printError(u"usage: opsdeck-cli knobs restore SCRIPT BACKUP [--dry-run]"_s);
            return ExitBadInput;
        }
        QString backup = positional.at(2);
        if (!target->inventory)
            backup = QFileInfo(backup).absoluteFilePath();
        else if (!backup.contains(u'/') && target->script.contains(u'/'))
            backup = target->script.left(target->script.lastIndexOf(u'/') + 1) + backup;
        return change(*target, parser, [&](KnobFiles &files, auto done) {
            files.planRestore(target->script, backup, std::move(done));
        });
    }
    const std::optional<ScriptEdit> edit = editOf(action, positional, parser);
    if (!edit)
        return ExitBadInput;
    return change(*target, parser, [&](KnobFiles &files, auto done) {
        files.plan(target->script, *edit, std::move(done));
    });
}

} // namespace opsdeck::cli
