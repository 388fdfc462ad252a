// ServicePoller against real servers on loopback: an opsdeck-sim decode
// (503 while starting, then 200, /v1/loads), a server that serves garbage
// metrics, one that never answers, and a port nobody listens on.
#include "pollerthread.h"
#include "servicepoller.h"
#include "simprocess.h"
#include "testsupport.h"

#include <QRegularExpression>
#include <QSet>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTcpSocket>
#include <QThread>
#include <gtest/gtest.h>
#include <httplib.h>
#include <mutex>
#include <thread>

using namespace opsdeck;
using opsdeck::probes::ServiceState;
using opsdeck::test::waitUntil;

namespace {

inventory::Service service(const QString &name, inventory::Role role, int port)
{
    inventory::Service s;
    s.name = name;
    s.role = role;
    s.url = QUrl(QStringLiteral("http://127.0.0.1:%1").arg(port));
    return s;
}

struct Observed
{
    QHash<QString, QVector<ServiceState>> states;
    QHash<QString, probes::ServiceStatus> last;
    QVector<probes::LoadSample> loads;
    QHash<QString, QString> loadFailures;
};

void observe(probes::ServicePoller &poller, Observed &observed)
{
    QObject::connect(&poller, &probes::ServicePoller::statusChecked, &poller,
                     [&observed](const probes::ServiceStatus &status) {
                         auto &states = observed.states[status.name];
                         if (states.isEmpty() || states.back() != status.state)
                             states.append(status.state);
                         observed.last[status.name] = status;
                     });
    QObject::connect(
        &poller, &probes::ServicePoller::loadSampled, &poller,
        [&observed](const probes::LoadSample &sample) { observed.loads.append(sample); });
    QObject::connect(&poller, &probes::ServicePoller::loadFailed, &poller,
                     [&observed](const QString &name, const QString &reason) {
                         observed.loadFailures[name] = reason;
                     });
}

} // namespace

TEST(ServicePoller, FollowsASimFromStartingToHealthyAndReadsItsLoad)
{
    test::SimProcess decode;
    ASSERT_TRUE(
        decode.start({QStringLiteral("--role"), QStringLiteral("decode"), QStringLiteral("--port"),
                      QStringLiteral("0"), QStringLiteral("--ready-delay"), QStringLiteral("1.5")}))
        << decode.errorText().toStdString();

    probes::ServicePoller poller;
    probes::ServicePoller::Settings settings;
    settings.intervalMs = 200;
    poller.setSettings(settings);
    Observed observed;
    observe(poller, observed);
    poller.setServices({service(QStringLiteral("decode"), inventory::Role::Decode, decode.port())});
    poller.start();

    ASSERT_TRUE(waitUntil(
        [&] {
            return observed.last.value(QStringLiteral("decode")).state == ServiceState::Healthy;
        },
        std::chrono::seconds(15)));
    const auto states = observed.states.value(QStringLiteral("decode"));
    ASSERT_GE(states.size(), 2);
    EXPECT_EQ(states.front(), ServiceState::Starting) << "the sim answers 503 before --ready-delay";
    EXPECT_EQ(states.back(), ServiceState::Healthy);
    EXPECT_TRUE(observed.last.value(QStringLiteral("decode")).latencyMs.has_value());

    ASSERT_TRUE(waitUntil([&] { return !observed.loads.isEmpty(); }, std::chrono::seconds(10)));
    EXPECT_EQ(observed.loads.back().service, QStringLiteral("decode"));
    EXPECT_EQ(observed.loads.back().source, QStringLiteral("/v1/loads"));
    EXPECT_EQ(observed.loads.back().running, 0) << "nothing sent to the sim yet";
}

TEST(ServicePoller, BadServersGiveClearErrorsWhileTheOthersKeepUpdating)
{
    // Garbage metrics: no /v1/loads, a /metrics page that is not exposition text.
    httplib::Server garbage;
    garbage.Get("/health", [](const httplib::Request &, httplib::Response &res) {
        res.set_content("ok", "text/plain");
    });
    garbage.Get("/metrics", [](const httplib::Request &, httplib::Response &res) {
        res.set_content("<html>\x01\x02 not metrics {{{\n\xff\xfe\n", "text/plain");
    });
    garbage.set_keep_alive_timeout(1); // stop() waits for idle keep-alive connections
    const int garbagePort = garbage.bind_to_any_port("127.0.0.1");
    std::thread garbageThread([&] { garbage.listen_after_bind(); });

    // A server that accepts and never answers.
    QTcpServer silent;
    ASSERT_TRUE(silent.listen(QHostAddress::LocalHost, 0));
    QList<QTcpSocket *> held;
    QObject::connect(&silent, &QTcpServer::newConnection, &silent, [&] {
        while (silent.hasPendingConnections())
            held.append(silent.nextPendingConnection());
    });
    const int closedPort = test::freeTcpPort();

    probes::ServicePoller poller;
    probes::ServicePoller::Settings settings;
    settings.intervalMs = 200;
    settings.timeoutMs = 800;
    poller.setSettings(settings);
    Observed observed;
    observe(poller, observed);
    poller.setServices(
        {service(QStringLiteral("garbage"), inventory::Role::Decode, garbagePort),
         service(QStringLiteral("silent"), inventory::Role::Router, silent.serverPort()),
         service(QStringLiteral("closed"), inventory::Role::Prefill, closedPort)});
    poller.start();

    ASSERT_TRUE(waitUntil([&] { return observed.loadFailures.contains(QStringLiteral("garbage")); },
                          std::chrono::seconds(10)));
    const QString reason = observed.loadFailures.value(QStringLiteral("garbage"));
    EXPECT_TRUE(reason.contains(QStringLiteral("/metrics"))) << reason.toStdString();
    EXPECT_TRUE(reason.contains(QStringLiteral("line")))
        << "names the first bad line: " << reason.toStdString();

    // Accepted and silent is unresponsive; refused is down.
    ASSERT_TRUE(waitUntil(
        [&] {
            return observed.last.value(QStringLiteral("silent")).state ==
                   ServiceState::Unresponsive;
        },
        std::chrono::seconds(10)));
    EXPECT_EQ(observed.last.value(QStringLiteral("closed")).state, ServiceState::Down);
    // The operator's words, not curl's: the OS reason, the deadline.
    EXPECT_EQ(observed.last.value(QStringLiteral("closed")).detail,
              QStringLiteral("Connection refused"));
    // A router's health check is forwarded upstream: the detail says whose silence it may be.
    EXPECT_TRUE(observed.last.value(QStringLiteral("silent"))
                    .detail.startsWith(QStringLiteral("accepted the connection, no answer within "
                                                      "800 ms: its health check is forwarded "
                                                      "upstream")))
        << observed.last.value(QStringLiteral("silent")).detail.toStdString();
    EXPECT_EQ(observed.last.value(QStringLiteral("garbage")).state, ServiceState::Healthy);
    EXPECT_EQ(observed.last.value(QStringLiteral("garbage")).detail, QStringLiteral("HTTP 200 OK"));
    // The healthy one keeps being checked while the silent one hangs.
    const QDateTime before = observed.last.value(QStringLiteral("garbage")).lastCheck;
    ASSERT_TRUE(
        waitUntil([&] { return observed.last.value(QStringLiteral("garbage")).lastCheck > before; },
                  std::chrono::seconds(5)));

    poller.stop();
    garbage.stop();
    garbageThread.join();
    qDeleteAll(held);
}

TEST(ServicePoller, FallsBackToMetricsGaugesWithoutLoadsEndpoint)
{
    // An older server: no /v1/loads, its /metrics is the SGLang docs page
    // (tests/data/metrics/01-..., num_running_reqs 162, num_queue_reqs 2826).
    const std::string page =
        test::readData(QStringLiteral("metrics/01-sglang_docs_production_metrics_example.prom"))
            .toStdString();
    httplib::Server older;
    older.Get("/health", [](const httplib::Request &, httplib::Response &res) {
        res.set_content("", "text/plain");
    });
    older.Get("/metrics", [&page](const httplib::Request &, httplib::Response &res) {
        res.set_content(page, "text/plain; version=0.0.4");
    });
    older.set_keep_alive_timeout(1); // stop() waits for idle keep-alive connections
    const int port = older.bind_to_any_port("127.0.0.1");
    std::thread serverThread([&] { older.listen_after_bind(); });

    probes::ServicePoller poller;
    probes::ServicePoller::Settings settings;
    settings.intervalMs = 200;
    poller.setSettings(settings);
    Observed observed;
    observe(poller, observed);
    poller.setServices({service(QStringLiteral("decode"), inventory::Role::Decode, port)});
    poller.start();
    ASSERT_TRUE(waitUntil([&] { return !observed.loads.isEmpty(); }, std::chrono::seconds(10)));
    EXPECT_EQ(observed.loads.back().source, QStringLiteral("/metrics"));
    EXPECT_EQ(observed.loads.back().running, 162);
    EXPECT_EQ(observed.loads.back().waiting, 2826);
    EXPECT_TRUE(observed.loadFailures.isEmpty());

    poller.stop();
    older.stop();
    serverThread.join();
}

TEST(ServicePoller, EndlessBodiesAndSlowHeadersCostBoundedTimeAndMemory)
{
    // /health answers 200 and then streams forever; /slow never finishes its headers.
    httplib::Server endless;
    endless.set_keep_alive_timeout(1);
    endless.Get("/health", [](const httplib::Request &, httplib::Response &res) {
        res.set_chunked_content_provider("text/plain", [](size_t, httplib::DataSink &sink) {
            static const std::string chunk(64 * 1024, 'x');
            return sink.write(chunk.data(), chunk.size()); // false once the client hung up
        });
    });
    const int port = endless.bind_to_any_port("127.0.0.1");
    std::thread serverThread([&] { endless.listen_after_bind(); });
    QTcpServer slow; // accepts, then sends one byte of a status line and nothing more
    ASSERT_TRUE(slow.listen(QHostAddress::LocalHost, 0));
    QList<QTcpSocket *> held;
    QObject::connect(&slow, &QTcpServer::newConnection, &slow, [&] {
        while (slow.hasPendingConnections()) {
            QTcpSocket *socket = slow.nextPendingConnection();
            socket->write("H");
            held.append(socket);
        }
    });

    probes::ServicePoller poller;
    probes::ServicePoller::Settings settings;
    settings.intervalMs = 200;
    settings.timeoutMs = 700;
    poller.setSettings(settings);
    Observed observed;
    observe(poller, observed);
    auto slowService = service(QStringLiteral("slow"), inventory::Role::Router, slow.serverPort());
    poller.setServices(
        {service(QStringLiteral("endless"), inventory::Role::Router, port), slowService});
    poller.start();
    ASSERT_TRUE(waitUntil(
        [&] {
            return observed.last.contains(QStringLiteral("endless")) &&
                   observed.last.contains(QStringLiteral("slow"));
        },
        std::chrono::seconds(5)));
    const auto endlessStatus = observed.last.value(QStringLiteral("endless"));
    EXPECT_EQ(endlessStatus.httpStatus, 200);
    EXPECT_LT(*endlessStatus.latencyMs, 2000.0) << "the endless body is cut, not read to the end";
    const auto slowStatus = observed.last.value(QStringLiteral("slow"));
    EXPECT_EQ(slowStatus.state, ServiceState::Unresponsive);
    EXPECT_TRUE(slowStatus.detail.contains(QStringLiteral("no answer within 700 ms")))
        << slowStatus.detail.toStdString();

    poller.stop();
    endless.stop();
    serverThread.join();
    qDeleteAll(held);
}

TEST(ServicePoller, HealthChecksOfAStallingProxyGoOnFreshConnections)
{
    test::SimProcess engine;
    ASSERT_TRUE(engine.start(test::simArgs(QStringLiteral("engine"))))
        << engine.errorText().toStdString();
    // The incident's proxy: the 2nd request on a kept-alive connection waits 5 s.
    test::SimProcess proxy;
    ASSERT_TRUE(proxy.start(
        {QStringLiteral("--role"), QStringLiteral("proxy"), QStringLiteral("--port"),
         QStringLiteral("0"), QStringLiteral("--upstream"), engine.url(), QStringLiteral("--fault"),
         QStringLiteral("reused-stall=5"), QStringLiteral("--fault-after"), QStringLiteral("1")}))
        << proxy.errorText().toStdString();

    probes::ServicePoller poller;
    probes::ServicePoller::Settings settings;
    settings.intervalMs = 200;
    settings.timeoutMs = 1000;
    poller.setSettings(settings);
    int checks = 0;
    QVector<ServiceState> states;
    QObject::connect(&poller, &probes::ServicePoller::statusChecked, &poller,
                     [&](const probes::ServiceStatus &status) {
                         if (status.name != QStringLiteral("proxy"))
                             return;
                         ++checks;
                         states.append(status.state);
                     });
    inventory::Service proxyService =
        service(QStringLiteral("proxy"), inventory::Role::Proxy, proxy.port());
    proxyService.metricsPath.clear();
    poller.setServices({proxyService});
    poller.start();

    // Ten checks take 2 s; a reused connection would have stalled the 2nd for 5 s.
    ASSERT_TRUE(waitUntil([&] { return checks >= 10; }, std::chrono::seconds(15)))
        << "checks: " << checks;
    for (ServiceState state : std::as_const(states))
        EXPECT_EQ(state, ServiceState::Healthy);
}

// An engine's health check shares its kept-alive connection; a router's (and
// a proxy's) opens a new one every time. Told apart by the client port the
// server sees for each /health request.
TEST(ServicePoller, EngineHealthChecksReuseTheirConnectionRouterChecksDoNot)
{
    struct PortCounter
    {
        httplib::Server server;
        std::mutex mutex;
        QVector<int> ports; ///< client port of each /health request, in order
        std::thread thread;
        int port = 0;
    };
    const auto start = [](PortCounter &counter) {
        counter.server.Get("/health",
                           [&counter](const httplib::Request &req, httplib::Response &res) {
                               const std::lock_guard lock(counter.mutex);
                               counter.ports.append(req.remote_port);
                               res.set_content("ok", "text/plain");
                           });
        counter.server.set_keep_alive_max_count(1000); // its default closes after 5
        counter.server.set_keep_alive_timeout(1);      // its 5 s default slows stop()
        counter.port = counter.server.bind_to_any_port("127.0.0.1");
        counter.thread = std::thread([&counter] { counter.server.listen_after_bind(); });
    };
    PortCounter engine;
    PortCounter router;
    start(engine);
    start(router);
    const auto countOf = [](PortCounter &counter) {
        const std::lock_guard lock(counter.mutex);
        return counter.ports.size();
    };
    const auto distinctOf = [](PortCounter &counter) {
        const std::lock_guard lock(counter.mutex);
        return QSet<int>(counter.ports.cbegin(), counter.ports.cend()).size();
    };

    probes::ServicePoller poller;
    probes::ServicePoller::Settings settings;
    settings.intervalMs = 100;
    settings.timeoutMs = 1000;
    settings.pollMetrics = false;
    settings.pollDecodeLoad = false;
    poller.setSettings(settings);
    inventory::Service engineService =
        service(QStringLiteral("engine"), inventory::Role::Engine, engine.port);
    inventory::Service routerService =
        service(QStringLiteral("router"), inventory::Role::Router, router.port);
    poller.setServices({engineService, routerService});
    poller.start();
    const bool enough = waitUntil([&] { return countOf(engine) >= 10 && countOf(router) >= 10; },
                                  std::chrono::seconds(15));
    poller.stop();
    engine.server.stop();
    router.server.stop();
    engine.thread.join();
    router.thread.join();
    ASSERT_TRUE(enough) << "engine checks " << engine.ports.size() << ", router checks "
                        << router.ports.size();
    EXPECT_EQ(distinctOf(router), router.ports.size()) << "a router's check on a reused connection";
    EXPECT_EQ(distinctOf(engine), 1) << "an engine's checks opened " << distinctOf(engine)
                                     << " connections for " << engine.ports.size() << " checks";
}

// The console's receivers (window, recorder, alerts) live on other threads and
// take the poller's results in batches (answered): each batch holds exactly the
// results emitted one by one since the previous batch, in their order, and
// arrives whole on the receiving thread.
TEST(ServicePoller, BatchesCrossThreadsHoldingExactlyTheResultsEmittedOneByOne)
{
    std::vector<test::SimProcess> sims(3);
    QVector<inventory::Service> services;
    for (std::size_t i = 0; i < sims.size(); ++i) {
        ASSERT_TRUE(sims[i].start({QStringLiteral("--role"), QStringLiteral("engine"),
                                   QStringLiteral("--port"), QStringLiteral("0"),
                                   QStringLiteral("--ready-delay"), QStringLiteral("0")}))
            << sims[i].errorText().toStdString();
        services.append(
            service(QStringLiteral("engine-%1").arg(i), inventory::Role::Engine, sims[i].port()));
    }
    // On the poller's thread: one line per result and a marker per batch, in emission order.
    std::mutex mutex;
    QStringList emitted;
    QVector<QStringList> emittedBatches; // what each batch held, as the same lines
    const auto line = [](const char *kind, const QString &service, qint64 timeMs) {
        return QStringLiteral("%1 %2 %3").arg(QLatin1String(kind), service).arg(timeMs);
    };
    const auto linesOf = [&line](const probes::PollAnswers &answers) {
        QStringList lines;
        for (const auto &status : answers.statuses)
            lines << line("status", status.name, status.lastCheck.toMSecsSinceEpoch());
        for (const auto &load : answers.loads)
            lines << line("load", load.service, load.timeMs);
        for (const auto &snapshot : answers.snapshots)
            lines << line("metrics", snapshot.service, snapshot.timeMs);
        return lines;
    };
    {
        probes::PollerThread thread;
        probes::ServicePoller *poller = thread.poller();
        const auto log = [&](const QString &l) {
            const std::lock_guard lock(mutex);
            emitted << l;
        };
        const auto direct = Qt::DirectConnection; // on the poller's thread, as emitted
        QObject::connect(
            poller, &probes::ServicePoller::statusChecked, poller,
            [&](const auto &s) { log(line("status", s.name, s.lastCheck.toMSecsSinceEpoch())); },
            direct);
        QObject::connect(
            poller, &probes::ServicePoller::loadSampled, poller,
            [&](const auto &l) { log(line("load", l.service, l.timeMs)); }, direct);
        QObject::connect(
            poller, &probes::ServicePoller::metricsSampled, poller,
            [&](const auto &m) { log(line("metrics", m.service, m.timeMs)); }, direct);
        QObject::connect(
            poller, &probes::ServicePoller::answered, poller,
            [&](const probes::PollAnswers &answers) {
                const std::lock_guard lock(mutex);
                emitted << QStringLiteral("batch");
                emittedBatches.append(linesOf(answers));
            },
            Qt::DirectConnection);
        // On this thread, queued: what a receiver elsewhere gets.
        QObject context;
        QVector<QStringList> received;
        QObject::connect(poller, &probes::ServicePoller::answered, &context,
                         [&](const probes::PollAnswers &answers) {
                             EXPECT_EQ(QThread::currentThread(), context.thread());
                             received.append(linesOf(answers));
                         });
        probes::ServicePoller::Settings settings;
        settings.intervalMs = 250;
        QMetaObject::invokeMethod(
            poller, [poller, settings] { poller->setSettings(settings); },
            Qt::BlockingQueuedConnection);
        thread.setServices(services);
        thread.start();
        // Three rounds of the three kinds from every engine.
        const auto countOf = [&](const char *kind) {
            qsizetype n = 0;
            for (const QStringList &batch : received)
                for (const QString &l : batch)
                    n += l.startsWith(QLatin1String(kind)) ? 1 : 0;
            return n;
        };
        ASSERT_TRUE(waitUntil(
            [&] {
                return countOf("status") >= 9 && countOf("load") >= 9 && countOf("metrics") >= 9;
            },
            std::chrono::seconds(20)));
        QMetaObject::invokeMethod(poller, &probes::ServicePoller::stop,
                                  Qt::BlockingQueuedConnection);
        // Every batch emitted so far reaches this thread (those still queued too).
        qsizetype batches = 0;
        {
            const std::lock_guard lock(mutex);
            batches = emittedBatches.size();
        }
        ASSERT_TRUE(waitUntil([&] { return received.size() >= batches; }, std::chrono::seconds(5)));
        const std::lock_guard lock(mutex);
        EXPECT_EQ(received.mid(0, batches), emittedBatches.mid(0, batches));
    }
    // After the thread is gone: the one-by-one lines between two markers are that batch.
    QVector<QStringList> grouped(1);
    for (const QString &l : std::as_const(emitted)) {
        if (l == QLatin1String("batch"))
            grouped.append(QStringList());
        else
            grouped.last().append(l);
    }
    const QStringList trailing = grouped.takeLast(); // emitted one by one, batch not yet sent
    EXPECT_TRUE(trailing.isEmpty()) << "a batch is emitted after its results, in the same call";
    ASSERT_EQ(grouped.size(), emittedBatches.size());
    for (qsizetype i = 0; i < grouped.size(); ++i) {
        EXPECT_FALSE(emittedBatches[i].isEmpty()) << "batch " << i << " is empty";
        // Within a batch the kinds are listed apart; each kind keeps the order it came in.
        for (const char *kind : {"status", "load", "metrics"}) {
            const auto only = [kind](const QStringList &lines) {
                return lines.filter(
                    QRegularExpression(QStringLiteral("^%1 ").arg(QLatin1String(kind))));
            };
            EXPECT_EQ(only(emittedBatches[i]), only(grouped[i])) << "batch " << i << " " << kind;
        }
    }
}
