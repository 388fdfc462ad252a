#include "statuscommand.h"

#include "cliinventory.h"
#include "clioutput.h"
#include "healthwait.h"
#include "inventory.h"
#include "inventorytunnels.h"
#include "numberoption.h"
#include "servicestatusmodel.h"

#include <QEventLoop>
#include <QJsonArray>
#include <QJsonObject>

namespace opsdeck::cli {

int runStatus(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Check the health URL of every service in an inventory once."));
    parser.addOption({QStringLiteral("inventory"), QStringLiteral("Inventory file (YAML)."),
                      QStringLiteral("file")});
    parser.addOption({QStringLiteral("timeout"),
                      QStringLiteral("Per-service timeout in ms (default 2000)."),
                      QStringLiteral("ms")});
    parser.addOption(jsonOption());
    parser.addOption(dataDirOption());
    addTunnelOptions(parser);
    if (!parseArguments(parser, arguments))
        return ExitBadInput;
    if (!parser.isSet(QStringLiteral("inventory"))) {
        printError(QStringLiteral("status needs --inventory FILE"));
        return ExitBadInput;
    }
    const auto loaded = loadServedInventory(parser, parser.value(QStringLiteral("inventory")));
    if (!loaded)
        return ExitBadInput;
    const std::optional<int> timeout = wholeNumberOption(
        parser, QStringLiteral("timeout"), 1, 600000, 2000, QStringLiteral("milliseconds"));
    if (!timeout)
        return ExitBadInput;
    const int timeoutMs = *timeout;

    probes::HealthWait health;
    QEventLoop loop;
    bool allHealthy = false;
    QVector<probes::ServiceStatus> statuses;
    QObject::connect(&health, &probes::HealthWait::finished, &loop,
                     [&](bool healthy, const QVector<probes::ServiceStatus> &result) {
                         allHealthy = healthy;
                         statuses = result;
                         loop.quit();
                     });
    health.start(loaded->inventory.services, 0, timeoutMs);
    if (!loaded->inventory.services.isEmpty())
        loop.exec();
    if (loaded->tunnels)
        for (probes::ServiceStatus &status : statuses)
            loaded->tunnels->explain(status);

    if (parser.isSet(QStringLiteral("json"))) {
        QJsonArray services;
        for (const auto &status : std::as_const(statuses)) {
            services.append(
                QJsonObject{{QStringLiteral("name"), status.name},
                            {QStringLiteral("role"), inventory::roleName(status.role)},
                            {QStringLiteral("url"), status.url.toString()},
                            {QStringLiteral("state"), probes::stateName(status.state)},
                            {QStringLiteral("latency_ms"),
                             status.latencyMs ? QJsonValue(*status.latencyMs) : QJsonValue()},
                            {QStringLiteral("http_status"), status.httpStatus},
                            {QStringLiteral("detail"), status.detail}});
        }
        printJson(QJsonDocument(QJsonObject{{QStringLiteral("services"), services}}));
    } else {
        for (const auto &status : std::as_const(statuses)) {
            printLine(QStringLiteral("%1  %2  %3  %4  %5  %6")
                          .arg(status.name, -12)
                          .arg(inventory::roleName(status.role), -8)
                          .arg(probes::ServiceStatusModel::address(status.url), -21)
                          .arg(probes::stateName(status.state), -9)
                          .arg(status.latencyMs
                                   ? QStringLiteral("%1 ms").arg(*status.latencyMs, 0, 'f', 1)
                                   : QStringLiteral("–"),
                               9)
                          .arg(status.detail));
        }
    }
    return allHealthy ? ExitOk : ExitFailed;
}

} // namespace opsdeck::cli
