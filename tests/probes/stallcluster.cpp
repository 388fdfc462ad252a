#include "stallcluster.h"

#include "testsupport.h"

#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>

using namespace Qt::StringLiterals;

namespace opsdeck::test {

namespace {

QStringList fault(double stallS)
{
    if (stallS <= 0)
        return {};
    return {u"--fault"_s, u"reused-stall=%1"_s.arg(stallS)};
}

const QStringList logged{u"--log-requests"_s};

} // namespace

bool StallCluster::start(double proxyStallS, double routerStallS, const QStringList &proxyExtra)
{
    if (!prefill.start(simArgs(u"prefill"_s, logged))) {
        error = prefill.errorText();
        return false;
    }
    if (!decode.start(simArgs(u"decode"_s, logged))) {
        error = decode.errorText();
        return false;
    }
    if (!router.start(QStringList{u"--role"_s, u"router"_s, u"--port"_s, u"0"_s,
                                  u"--metrics-port"_s, u"0"_s, u"--prefill"_s, prefill.url(),
                                  u"--decode"_s, decode.url(), u"--health-check-interval"_s,
                                  u"0.2"_s} +
                      logged + fault(routerStallS))) {
        error = router.errorText();
        return false;
    }
    if (!proxy.start(QStringList{u"--role"_s, u"proxy"_s, u"--port"_s, u"0"_s, u"--upstream"_s,
                                 router.url()} +
                     logged + fault(proxyStallS) + proxyExtra)) {
        error = proxy.errorText();
        return false;
    }
    return true;
}

bool StallCluster::waitReady(std::chrono::milliseconds deadline)
{
    // One fresh connection per check: a router with the stall fault would
    // hold a reused one for the stall.
    QNetworkAccessManager network;
    bool ready = false;
    QNetworkReply *reply = nullptr;
    const QUrl url(router.url() + u"/readiness"_s);
    waitUntil(
        [&] {
            if (reply && reply->isFinished()) {
                ready = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt() == 200;
                reply->deleteLater();
                reply = nullptr;
            }
            if (!ready && !reply) {
                QNetworkRequest request(url);
                request.setRawHeader("Connection", "close");
                request.setTransferTimeout(2000);
                reply = network.get(request);
            }
            return ready;
        },
        deadline);
    if (reply) {
        reply->abort();
        delete reply;
    }
    return ready;
}

QString StallCluster::logs()
{
    return u"--- proxy\n%1--- router\n%2--- prefill\n%3--- decode\n%4"_s.arg(
        proxy.errorText(), router.errorText(), prefill.errorText(), decode.errorText());
}

QString StallCluster::inventoryYaml(bool watch) const
{
    return u"hosts: [{name: local, kind: local}]\n"
           "services:\n"
           "  - {name: prefill-0, role: prefill, host: local, url: '%1'}\n"
           "  - {name: decode-0, role: decode, host: local, url: '%2'}\n"
           "  - {name: router-0, role: router, host: local, url: '%3'}\n"
           "  - {name: proxy-0, role: proxy, host: local, url: '%4', metrics_path: none}\n"
           "clusters:\n"
           "  - {name: pd, prefill: [prefill-0], decode: [decode-0], router: router-0, "
           "proxy: proxy-0}\n"
           "alerts: {e2e_interval_s: 0}\n"
           "watch: {enabled: %5}\n"_s.arg(prefill.url(), decode.url(), router.url(), proxy.url(),
                                          watch ? u"true"_s : u"false"_s);
}

} // namespace opsdeck::test
