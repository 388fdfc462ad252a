#include "lockcommand.h"

#include "auditkey.h"
#include "auditlog.h"
#include "awaitanswer.h"
#include "cliinventory.h"
#include "clioutput.h"
#include "clusterlock.h"
#include "hostfiles.h"
#include "transport.h"

#include <QJsonDocument>
#include <QJsonObject>

using namespace Qt::StringLiterals;

namespace opsdeck::cli {

namespace {

using workflows::ClusterLock;

std::optional<ClusterLock::Result> ask(ClusterLock &lock,
                                       void (ClusterLock::*call)(ClusterLock::Done))
{
    return awaitAnswer<ClusterLock::Result>([&](auto done) { (lock.*call)(std::move(done)); });
}

} // namespace

int runLock(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        u"Who holds a cluster's workflow lock (status), or remove it deliberately (break)."_s);
    parser.addPositionalArgument(u"action"_s, u"status or break"_s);
    parser.addOption({u"inventory"_s, u"Inventory file (YAML)."_s, u"FILE"_s});
    parser.addOption({u"cluster"_s, u"The cluster."_s, u"NAME"_s});
    parser.addOption({u"confirm"_s, u"break: the cluster's name, typed."_s, u"NAME"_s});
    addTunnelOptions(parser);
    parser.addOption(jsonOption());
    parser.addOption(dataDirOption());
    if (!parseArguments(parser, arguments))
        return ExitBadInput;
    const QString action = parser.positionalArguments().value(0);
    if ((action != u"status" && action != u"break") || parser.positionalArguments().size() != 1) {
        printError(u"lock needs an action: status or break"_s);
        return ExitBadInput;
    }
    if (!parser.isSet(u"inventory"_s) || !parser.isSet(u"cluster"_s)) {
        printError(u"--inventory FILE and --cluster NAME are required"_s);
        return ExitBadInput;
    }
    const auto inventory = loadInventoryOrSay(parser.value(u"inventory"_s));
    if (!inventory)
        return ExitBadInput;
    const QString cluster = parser.value(u"cluster"_s);
    QString host;
    QString error;
    const QString path = ClusterLock::pathFor(*inventory, cluster, &host, &error);
    if (path.isEmpty()) {
        printError(error);
        return ExitBadInput;
    }
    auto files = HostFiles::of(*inventory, host, parser);
    if (!files)
        return ExitBadInput;
    ClusterLock lock(files->transport.get(), path);
    const auto status = ask(lock, &ClusterLock::status);
    if (!status || !status->ok) {
        printError(status ? status->error : u"no answer from host %1"_s.arg(host));
        return ExitUnknown;
    }
    const QDateTime now = QDateTime::currentDateTimeUtc();
    if (action == u"status") {
        const auto &h = status->holder;
        if (parser.isSet(u"json"_s)) {
            printJson(QJsonDocument(
                QJsonObject{{u"path"_s, path},
                            {u"host"_s, host},
                            {u"held"_s, bool(h)},
                            {u"owner"_s, h ? h->owner : QString()},
                            {u"from"_s, h ? h->fromHost : QString()},
                            {u"workflow"_s, h ? h->workflow : QString()},
                            {u"time"_s, h ? h->time.toString(Qt::ISODate) : QString()},
                            {u"expires"_s, h ? h->expires.toString(Qt::ISODate) : QString()},
                            {u"stale"_s, h && h->staleAt(now)}}));
        } else {
            printLine(h ? u"%1 on %2 is held by %3"_s.arg(path, host, h->describe(now))
                        : u"%1 on %2 is free"_s.arg(path, host));
        }
        return h ? ExitFailed : ExitOk;
    }
    if (parser.value(u"confirm"_s) != cluster) {
        printError(u"refused: breaking the lock of %1 needs --confirm %1 (typed: \"%2\")"_s.arg(
            cluster, parser.value(u"confirm"_s)));
        return ExitBadInput;
    }
    if (!status->holder) {
        printLine(u"%1 on %2 is free: nothing to break"_s.arg(path, host));
        return ExitOk;
    }
    history::AuditEntry entry;
    entry.kind = u"workflow"_s;
    entry.host = host;
    entry.action = u"lock-broken"_s;
    entry.detail = u"cluster %1: lock %2, held by %3, removed"_s.arg(cluster, path,
                                                                     status->holder->describe(now));
    if (!history::AuditKey::inDataDir(parser.value(u"data-dir"_s))->append(entry, &error)) {
        printError(u"the audit entry could not be written (%1): the lock stays"_s.arg(error));
        return ExitFailed;
    }
    // Only the lock the entry names: one taken since by another workflow stays.
    const auto broken = awaitAnswer<ClusterLock::Result>(
        [&](auto done) { lock.breakLock(status->text, std::move(done)); });
    if (!broken || !broken->ok) {
        // The entry above said it was removed: said again, that it was not.
        history::AuditEntry kept = entry;
        kept.action = u"lock-not-broken"_s;
        kept.detail = u"cluster %1: %2"_s.arg(
            cluster, broken ? broken->error : u"no answer from host %1"_s.arg(host));
        QString keptError;
        if (!history::AuditKey::inDataDir(parser.value(u"data-dir"_s))->append(kept, &keptError))
            printError(u"the audit entry saying so could not be written (%1)"_s.arg(keptError));
        printError(broken ? broken->error : u"no answer from host %1"_s.arg(host));
        return ExitFailed;
    }
    printLine(
        u"removed %1 on %2 (was held by %3)"_s.arg(path, host, status->holder->describe(now)));
    return ExitOk;
}

} // namespace opsdeck::cli
