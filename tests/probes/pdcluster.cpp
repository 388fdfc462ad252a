#include "pdcluster.h"

#include "batchcheck.h"
#include "probeengine.h"
#include "testsupport.h"

#include <gtest/gtest.h>

namespace opsdeck::test {

bool PdCluster::start(const QStringList &engineExtra, const QStringList &routerExtra)
{
    if (!prefill.start(simArgs(QStringLiteral("prefill"), engineExtra))) {
        error = prefill.errorText();
        return false;
    }
    if (!decode.start(simArgs(QStringLiteral("decode"), engineExtra))) {
        error = decode.errorText();
        return false;
    }
    const QStringList args{QStringLiteral("--role"),
                           QStringLiteral("router"),
                           QStringLiteral("--port"),
                           QStringLiteral("0"),
                           QStringLiteral("--metrics-port"),
                           QStringLiteral("0"),
                           QStringLiteral("--prefill"),
                           prefill.url(),
                           QStringLiteral("--decode"),
                           decode.url(),
                           QStringLiteral("--health-check-interval"),
                           QStringLiteral("0.2")};
    if (!router.start(args + routerExtra)) {
        error = router.errorText();
        return false;
    }
    // The router routes only once its health checks saw both workers up:
    // /readiness says so (503 before).
    probes::ProbeEngine engine;
    probes::ProbeRequest readiness;
    readiness.url = QUrl(router.url() + QStringLiteral("/readiness"));
    readiness.timeoutMs = 1000;
    if (!waitUntil([&] { return engine.run(readiness).status == 200; }, std::chrono::seconds(15))) {
        error = QStringLiteral("router %1 not ready within 15 s").arg(router.url());
        return false;
    }
    return true;
}

QString PdCluster::inventoryYaml(const QString &productionService) const
{
    const auto tags = [&](const QString &name) {
        return name == productionService ? QStringLiteral(", tags: [production]") : QString();
    };
    return QStringLiteral("hosts: [{name: local, kind: local}]\n"
                          "services:\n"
                          "  - {name: prefill, role: prefill, host: local, url: '%1'%4}\n"
                          "  - {name: decode, role: decode, host: local, url: '%2'%5}\n"
                          "  - {name: router, role: router, host: local, url: '%3'%6}\n"
                          "clusters:\n"
                          "  - {name: pd, prefill: [prefill], decode: [decode], router: router}\n"
                          "alerts: {e2e_interval_s: 0}\n"
                          "watch: {enabled: false}\n")
        .arg(prefill.url(), decode.url(), router.url(), tags(QStringLiteral("prefill")),
             tags(QStringLiteral("decode")), tags(QStringLiteral("router")));
}

inventory::Inventory PdCluster::inventory(const QString &productionService) const
{
    const inventory::LoadResult result = inventory::parseInventory(
        inventoryYaml(productionService).toUtf8(), QStringLiteral("pd-cluster.yaml"));
    EXPECT_TRUE(result.errors.isEmpty())
        << (result.errors.isEmpty() ? std::string() : result.errors[0].toString().toStdString());
    return result.inventory.value_or(inventory::Inventory{});
}

probes::BatchCheckResult PdCluster::batchCheck(int n, const QStringList &engineExtra)
{
    PdCluster cluster;
    if (!cluster.start(engineExtra)) {
        ADD_FAILURE() << cluster.error.toStdString();
        return {};
    }
    probes::ProbeEngine engine;
    probes::BatchCheck::Settings settings;
    settings.n = n;
    probes::BatchCheck check(engine, cluster.inventory(), QStringLiteral("pd"), settings);
    return check.run();
}

QStringList admissionLimit(int n)
{
    return {QStringLiteral("--max-running-requests"), QString::number(n)};
}

} // namespace opsdeck::test
