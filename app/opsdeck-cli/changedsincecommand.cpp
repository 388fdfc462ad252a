#include "changedsincecommand.h"

#include "apppaths.h"
#include "awaitanswer.h"
#include "changedsince.h"
#include "cliinventory.h"
#include "clioutput.h"
#include "historystore.h"
#include "hostfiles.h"
#include "knobfiles.h"
#include "knobjson.h"
#include "synchronousrun.h"
#include "transport.h"
#include "visibletext.h"

#include <QDateTime>
#include <QFileInfo>
#include <QHash>
#include <QJsonArray>
#include <QJsonObject>

using namespace Qt::StringLiterals;

namespace opsdeck::cli {

namespace {

using knobs::KnobFiles;

QString timeText(qint64 msecs)
{
    return QDateTime::fromMSecsSinceEpoch(msecs).toString(u"yyyy-MM-dd HH:mm:ss"_s);
}

// The newest marker of the data dir's history, as `@EPOCH`; empty without one.
QString newestMarker(const QString &dataDir)
{
    const QString database = history::HistoryStore::pathIn(settings::AppPaths::dataDir(dataDir));
    if (!QFileInfo::exists(database))
        return {};
    history::HistoryStore store(database);
    if (!store.open())
        return {};
    const QVector<history::Marker> markers = store.markers(0, QDateTime::currentMSecsSinceEpoch());
    qint64 newest = 0;
    for (const history::Marker &marker : markers)
        newest = std::max(newest, marker.timeMs);
    return newest > 0 ? u"@%1"_s.arg(newest / 1000) : QString();
}

QVector<KnobFiles::Backup> backupsOf(KnobFiles &files, const QString &script)
{
    return awaitAnswer<QVector<KnobFiles::Backup>>(
               [&](auto done) { files.backups(script, std::move(done)); })
        .value_or(QVector<KnobFiles::Backup>{});
}

} // namespace

int runChangedSince(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        u"What changed on a host since a time: the files under its watched folders (find "
        "-newermt on the host), each service's serve script knob by knob against its backup "
        "from then, and git state."_s);
    parser.addOption({u"inventory"_s, u"Inventory file (YAML)."_s, u"file"_s});
    parser.addOption({u"host"_s, u"Inventory host to look at."_s, u"host"_s});
    parser.addOption({u"since"_s,
                      u"ISO 8601, HH:MM (today, host time), 2h / 30m / 1d ago, or @EPOCH "
                      "(default: the newest history marker, else today 12:00)."_s,
                      u"time"_s});
    parser.addOption(jsonOption());
    parser.addOption(dataDirOption());
    addTunnelOptions(parser);
    if (!parseArguments(parser, arguments))
        return ExitBadInput;
    if (!parser.isSet(u"inventory"_s) || !parser.isSet(u"host"_s)) {
        printError(u"usage: opsdeck-cli changed-since --inventory FILE --host HOST [--since "
                   "TIME] [--json]"_s);
        return ExitBadInput;
    }
    const std::optional<inventory::Inventory> loaded =
        loadInventoryOrSay(parser.value(u"inventory"_s));
    if (!loaded)
        return ExitBadInput;
    const inventory::Inventory &inventory = *loaded;
    const inventory::Host *host = inventory.host(parser.value(u"host"_s));
    if (!host) {
        printError(u"%1: no host named \"%2\""_s.arg(inventory.path, parser.value(u"host"_s)));
        return ExitBadInput;
    }
    QStringList folders = host->watchPaths;
    QVector<inventory::Service> services;
    for (const inventory::Service &service : inventory.services) {
        if (service.host != host->name || service.serveScript.isEmpty())
            continue;
        services.append(service);
        const QString folder = service.serveScript.left(service.serveScript.lastIndexOf(u'/'));
        if (host->watchPaths.isEmpty() && !folder.isEmpty() && !folders.contains(folder))
            folders.append(folder);
    }
    if (folders.isEmpty()) {
        printError(u"%1: host %2 has no watch_paths and no service with a serve_script: nothing "
                   "to watch"_s.arg(inventory.path, host->name));
        return ExitBadInput;
    }
    QString since = parser.value(u"since"_s);
    std::optional<QString> spec;
    if (since.isEmpty()) {
        since = newestMarker(parser.value(u"data-dir"_s));
        spec = since.isEmpty() ? u"today 12:00"_s : since;
    } else {
        spec = knobs::ChangedSince::dateSpec(since);
        if (!spec) {
            printError(u"--since %1: give ISO 8601 (2026-12-03T12:00), HH:MM, 2h / 30m / 1d, or "
                       "@EPOCH"_s.arg(since));
            return ExitBadInput;
        }
    }
    std::optional<HostFiles> files = HostFiles::of(inventory, host->name, parser);
    if (!files)
        return ExitBadInput;
    const knobs::ChangedSince changed = knobs::ChangedSince::parse(
        remote::runAndWait(*files->transport, knobs::ChangedSince::request(folders, *spec)),
        host->name);
    if (!changed.error.isEmpty()) {
        printError(changed.error);
        return changed.error.contains(u"cannot read the time"_s) ? ExitBadInput : ExitUnknown;
    }

    KnobFiles knobFiles(files->files.get(), files->transport.get());
    // Each script's backups listed once, for its file line and its service.
    QHash<QString, QVector<KnobFiles::Backup>> listed;
    const auto backupsFor = [&](const QString &script) -> const QVector<KnobFiles::Backup> & {
        if (!listed.contains(script))
            listed.insert(script, backupsOf(knobFiles, script));
        return listed[script];
    };
    // A changed shell script with a backup from then: its knob diff. Bounded:
    // listing backups is one folder read per script.
    constexpr int kMaxScriptDiffs = 50;
    QHash<QString, KnobFiles::Backup> fileThen;
    int scriptsLooked = 0;
    for (const knobs::ChangedSince::File &file : changed.files) {
        const QString name = file.path.mid(file.path.lastIndexOf(u'/') + 1);
        if (!name.endsWith(u".sh") || scriptsLooked >= kMaxScriptDiffs)
            continue;
        ++scriptsLooked;
        if (const KnobFiles::Backup *then =
                KnobFiles::backupAsOf(backupsFor(file.path), changed.sinceMsecs))
            fileThen.insert(file.path, *then);
    }
    QJsonArray servicesJson;
    QStringList serviceLines;
    for (const inventory::Service &service : std::as_const(services)) {
        const KnobFiles::Backup *then =
            KnobFiles::backupAsOf(backupsFor(service.serveScript), changed.sinceMsecs);
        const QString note =
            then ? QString()
                 : u"no backup of %1 from then: how it was is not known"_s.arg(service.serveScript);
        servicesJson.append(QJsonObject{
            {u"service"_s, service.name},
            {u"script"_s, service.serveScript},
            {u"then"_s, then ? then->path : QString()},
            {u"changes"_s, knobChangesJson(then ? then->changes : QVector<knobs::KnobChange>{})},
            {u"note"_s, note}});
        serviceLines.append(u"%1 (%2):"_s.arg(service.name, service.serveScript));
        if (!then) {
            serviceLines.append(u"    "_s + note);
        } else if (then->changes.isEmpty()) {
            serviceLines.append(u"    no knob changed (against %1)"_s.arg(then->path));
        } else {
            for (const knobs::KnobChange &change : then->changes)
                serviceLines.append(u"    "_s + change.text());
            serviceLines.append(u"    (against %1)"_s.arg(then->path));
        }
    }

    if (parser.isSet(u"json"_s)) {
        QJsonArray filesJson;
        for (const knobs::ChangedSince::File &file : changed.files) {
            QJsonObject entry{
                {u"path"_s, file.path},
                {u"time"_s,
                 QDateTime::fromMSecsSinceEpoch(file.modifiedMsecs, Qt::UTC).toString(Qt::ISODate)},
                {u"size"_s, file.size}};
            if (const auto then = fileThen.constFind(file.path); then != fileThen.cend()) {
                entry[u"then"_s] = then->path;
                entry[u"changes"_s] = knobChangesJson(then->changes);
            }
            filesJson.append(entry);
        }
        QJsonArray gitJson;
        for (const knobs::ChangedSince::Git &git : changed.git)
            gitJson.append(QJsonObject{{u"folder"_s, git.folder},
                                       {u"top"_s, git.topLevel},
                                       {u"head"_s, git.head},
                                       {u"dirty"_s, QJsonArray::fromStringList(git.dirty)}});
        printJson(QJsonDocument(QJsonObject{
            {u"host"_s, host->name},
            {u"since"_s,
             QDateTime::fromMSecsSinceEpoch(changed.sinceMsecs, Qt::UTC).toString(Qt::ISODate)},
            {u"watched"_s, QJsonArray::fromStringList(folders)},
            {u"files"_s, filesJson},
            {u"total"_s, changed.total},
            {u"listed"_s, changed.files.size()},
            {u"services"_s, servicesJson},
            {u"git"_s, gitJson},
            {u"missing"_s, QJsonArray::fromStringList(changed.missing)}}));
        return ExitOk;
    }
    printLine(u"%1 since %2, in %3:"_s.arg(host->name, timeText(changed.sinceMsecs),
                                           folders.join(u", "_s)));
    for (const knobs::ChangedSince::File &file : changed.files) {
        printLine(u"  %1  %2  (%3 bytes)"_s
                      .arg(timeText(file.modifiedMsecs), logging::visibleText(file.path))
                      .arg(file.size));
        if (const auto then = fileThen.constFind(file.path); then != fileThen.cend())
            for (const knobs::KnobChange &change : then->changes)
                printLine(u"      "_s + change.text());
    }
    if (changed.total > changed.files.size())
        printLine(u"  ... and %1 more"_s.arg(changed.total - changed.files.size()));
    printLine(u"  %1 files changed"_s.arg(changed.total));
    for (const QString &folder : changed.missing)
        printError(u"host %1: %2 is not a folder there: nothing watched in it"_s.arg(
            host->name, logging::visibleText(folder)));
    for (const QString &line : std::as_const(serviceLines))
        printLine(line);
    for (const knobs::ChangedSince::Git &git : changed.git) {
        printLine(u"git %1 (work tree %2): HEAD %3, %4 dirty"_s
                      .arg(git.folder, git.topLevel, git.head.left(12))
                      .arg(git.dirty.size()));
        for (const QString &dirty : git.dirty)
            printLine(u"    "_s + dirty);
    }
    return ExitOk;
}

} // namespace opsdeck::cli
