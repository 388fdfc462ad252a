// SshTunnel (inventory `via:`) against a real sshd and a real opsdeck-sim on
// loopback: HTTP through the forwarded port, many and concurrent
// connections, the port freed on close, and a host that refuses forwarding.
#include "simprocess.h"
#include "sshfixture.h"
#include "sshtunnel.h"
#include "sshtunnelset.h"

#include <QTcpServer>
#include <QTcpSocket>
#include <gtest/gtest.h>
#include <memory>
#include <vector>

using namespace std::chrono_literals;
using opsdeck::remote::SshTunnel;
using opsdeck::remote::SshTunnelSet;
using opsdeck::test::SimProcess;
using opsdeck::test::SshdProcess;
using opsdeck::test::sshSettings;

namespace {

struct HttpReply
{
    int status = 0;
    QByteArray body;
};

// One HTTP/1.1 GET with `Connection: close`, read to the server's close.
HttpReply parseReply(const QByteArray &raw)
{
    HttpReply reply;
    const qsizetype headerEnd = raw.indexOf("\r\n\r\n");
    if (!raw.startsWith("HTTP/1.") || headerEnd < 0)
        return reply;
    reply.status = raw.mid(9, 3).toInt();
    reply.body = raw.mid(headerEnd + 4);
    return reply;
}

QByteArray request(const QString &path)
{
    return "GET " + path.toUtf8() + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
}

HttpReply get(quint16 port, const QString &path)
{
    QTcpSocket socket;
    socket.connectToHost(QStringLiteral("127.0.0.1"), port);
    if (!socket.waitForConnected(5000))
        return {};
    socket.write(request(path));
    QByteArray raw;
    while (socket.state() == QAbstractSocket::ConnectedState && socket.waitForReadyRead(10000))
        raw += socket.readAll();
    raw += socket.readAll();
    return parseReply(raw);
}

SshTunnel::Phase startTunnel(SshTunnel &tunnel)
{
    if (!tunnel.start())
        return SshTunnel::Phase::Failed;
    return tunnel.waitReady(20s);
}

} // namespace

TEST(SshTunnel, ServesTheSimThroughTheHost)
{
    SshdProcess sshd;
    ASSERT_TRUE(sshd.start()) << sshd.errorText().toStdString();
    SimProcess sim;
    ASSERT_TRUE(sim.start(opsdeck::test::simArgs(QStringLiteral("engine"))))
        << sim.errorText().toStdString();
    SshTunnel tunnel(QStringLiteral("gpu-1"), sshSettings(sshd), QStringLiteral("127.0.0.1"),
                     sim.port());
    ASSERT_EQ(startTunnel(tunnel), SshTunnel::Phase::Ready) << tunnel.errorText().toStdString();
    ASSERT_NE(tunnel.localPort(), 0);
    ASSERT_NE(tunnel.localPort(), sim.port());

    const HttpReply direct = get(static_cast<quint16>(sim.port()), QStringLiteral("/health"));
    const HttpReply health = get(tunnel.localPort(), QStringLiteral("/health"));
    EXPECT_EQ(health.status, 200);
    EXPECT_EQ(health.body, direct.body);
    const HttpReply metrics = get(tunnel.localPort(), QStringLiteral("/metrics"));
    EXPECT_EQ(metrics.status, 200);
    EXPECT_TRUE(metrics.body.contains("num_running_reqs")) << metrics.body.left(300).toStdString();
    EXPECT_EQ(tunnel.connectionsForwarded(), 2) << "both requests went through the host";
    // The path is through the host: with its sshd gone, the sim (still up)
    // is no longer reached through the port, and the error names the host.
    sshd.stop();
    EXPECT_EQ(get(static_cast<quint16>(sim.port()), QStringLiteral("/health")).status, 200);
    EXPECT_EQ(get(tunnel.localPort(), QStringLiteral("/health")).status, 0);
    EXPECT_TRUE(tunnel.errorText().contains(QStringLiteral("gpu-1")))
        << tunnel.errorText().toStdString();
}

// The service behind a bastion: the sim and sshd share a network namespace of
// their own (unshare -n), so this process cannot reach the sim at all; only
// the forward through the host does.
TEST(SshTunnel, ReachesASimThatOnlyTheHostCanReach)
{
    SshdProcess sshd;
    const int simPort = opsdeck::test::freeTcpPort();
    sshd.setPrivateNetwork(QStringLiteral("'%1' --role decode --port %2 --ready-delay 0")
                               .arg(opsdeck::test::binPath(QStringLiteral("opsdeck-sim")))
                               .arg(simPort));
    ASSERT_TRUE(sshd.start()) << sshd.errorText().toStdString();
    SshTunnel tunnel(QStringLiteral("gpu-1"), sshSettings(sshd), QStringLiteral("127.0.0.1"),
                     simPort);
    ASSERT_TRUE(tunnel.start()) << tunnel.errorText().toStdString();
    // The sim may still be starting inside: ask until it answers (bounded).
    HttpReply health;
    ASSERT_TRUE(opsdeck::test::waitUntil(
        [&] {
            health = get(tunnel.localPort(), QStringLiteral("/health"));
            return health.status == 200;
        },
        20s))
        << tunnel.errorText().toStdString();
    const HttpReply metrics = get(tunnel.localPort(), QStringLiteral("/metrics"));
    EXPECT_EQ(metrics.status, 200);
    EXPECT_TRUE(metrics.body.contains("num_running_reqs"));
    // From here the same port is nothing: connection refused, no HTTP.
    EXPECT_EQ(get(static_cast<quint16>(simPort), QStringLiteral("/health")).status, 0);
}

TEST(SshTunnel, ManySequentialAndConcurrentRequests)
{
    SshdProcess sshd;
    ASSERT_TRUE(sshd.start()) << sshd.errorText().toStdString();
    SimProcess sim;
    ASSERT_TRUE(sim.start(opsdeck::test::simArgs(QStringLiteral("engine"))))
        << sim.errorText().toStdString();
    SshTunnel tunnel(QStringLiteral("gpu-1"), sshSettings(sshd), QStringLiteral("127.0.0.1"),
                     sim.port());
    ASSERT_EQ(startTunnel(tunnel), SshTunnel::Phase::Ready) << tunnel.errorText().toStdString();

    const int sequential = 100;
    int ok = 0;
    const auto started = std::chrono::steady_clock::now();
    for (int i = 0; i < sequential; ++i)
        ok += get(tunnel.localPort(), QStringLiteral("/health")).status == 200 ? 1 : 0;
    const auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now() - started);
    EXPECT_EQ(ok, sequential);
    std::printf("%d sequential GET /health through the tunnel: %lld ms\n", sequential,
                static_cast<long long>(elapsed.count()));

    // Eight connections open at once, each sending before any is answered.
    const int concurrent = 8;
    std::vector<std::unique_ptr<QTcpSocket>> sockets;
    for (int i = 0; i < concurrent; ++i) {
        sockets.push_back(std::make_unique<QTcpSocket>());
        sockets.back()->connectToHost(QStringLiteral("127.0.0.1"), tunnel.localPort());
    }
    for (auto &socket : sockets) {
        ASSERT_TRUE(socket->waitForConnected(5000));
        socket->write(request(QStringLiteral("/metrics")));
        socket->flush();
    }
    ASSERT_TRUE(opsdeck::test::waitUntil(
        [&] {
            for (auto &socket : sockets)
                if (socket->state() != QAbstractSocket::UnconnectedState)
                    return false;
            return true;
        },
        20s));
    for (auto &socket : sockets) {
        const HttpReply reply = parseReply(socket->readAll());
        EXPECT_EQ(reply.status, 200);
        EXPECT_TRUE(reply.body.contains("num_running_reqs"));
    }
    EXPECT_EQ(tunnel.connectionsForwarded(), sequential + concurrent);
    EXPECT_TRUE(opsdeck::test::waitUntil([&] { return tunnel.openConnections() == 0; }, 5s))
        << tunnel.openConnections() << " connections still pumped";
}

TEST(SshTunnel, ClosingTheTunnelFreesThePort)
{
    SshdProcess sshd;
    ASSERT_TRUE(sshd.start()) << sshd.errorText().toStdString();
    SimProcess sim;
    ASSERT_TRUE(sim.start(opsdeck::test::simArgs(QStringLiteral("engine"))))
        << sim.errorText().toStdString();
    quint16 port = 0;
    {
        SshTunnel tunnel(QStringLiteral("gpu-1"), sshSettings(sshd), QStringLiteral("127.0.0.1"),
                         sim.port());
        ASSERT_EQ(startTunnel(tunnel), SshTunnel::Phase::Ready) << tunnel.errorText().toStdString();
        port = tunnel.localPort();
        EXPECT_EQ(get(port, QStringLiteral("/health")).status, 200);
        QTcpServer taken;
        EXPECT_FALSE(taken.listen(QHostAddress::LocalHost, port)) << "the tunnel holds the port";
    }
    // Nothing listens there any more, and a new tunnel can take the port.
    QTcpSocket refused;
    refused.connectToHost(QStringLiteral("127.0.0.1"), port);
    EXPECT_FALSE(refused.waitForConnected(2000));
    EXPECT_EQ(refused.error(), QAbstractSocket::ConnectionRefusedError);
    {
        SshTunnel again(QStringLiteral("gpu-1"), sshSettings(sshd), QStringLiteral("127.0.0.1"),
                        sim.port());
        ASSERT_TRUE(again.start(port)) << again.errorText().toStdString();
        EXPECT_EQ(again.localPort(), port);
        ASSERT_EQ(again.waitReady(20s), SshTunnel::Phase::Ready);
        EXPECT_EQ(get(port, QStringLiteral("/health")).status, 200);
    }
    // And the tunnel's session to the host is gone.
    EXPECT_TRUE(opsdeck::test::waitUntil([&] { return sshd.connectionPids().isEmpty(); }, 5s));
}

TEST(SshTunnel, ForwardingRefusedByTheHostNamesIt)
{
    SshdProcess sshd;
    ASSERT_TRUE(sshd.start(QStringLiteral("AllowTcpForwarding no")))
        << sshd.errorText().toStdString();
    SimProcess sim;
    ASSERT_TRUE(sim.start(opsdeck::test::simArgs(QStringLiteral("engine"))))
        << sim.errorText().toStdString();
    SshTunnel tunnel(QStringLiteral("gpu-1"), sshSettings(sshd), QStringLiteral("127.0.0.1"),
                     sim.port());
    ASSERT_EQ(startTunnel(tunnel), SshTunnel::Phase::Failed);
    const QString error = tunnel.errorText();
    EXPECT_TRUE(error.contains(QStringLiteral("host gpu-1"))) << error.toStdString();
    EXPECT_TRUE(
        error.contains(QStringLiteral("refused to forward to 127.0.0.1:%1").arg(sim.port())))
        << error.toStdString();
    // A request through it ends at once instead of hanging.
    EXPECT_EQ(get(tunnel.localPort(), QStringLiteral("/health")).status, 0);
    EXPECT_EQ(tunnel.connectionsForwarded(), 0);
}

TEST(SshTunnel, UrlMapping)
{
    const QUrl url(QStringLiteral("http://127.0.0.2:30000/v1/models?x=1"));
    EXPECT_EQ(SshTunnel::tunnelledUrl(url, 41000).toString(),
              QStringLiteral("http://127.0.0.1:41000/v1/models?x=1"));
    SshTunnel tunnel(QStringLiteral("gpu-1"), {}, QStringLiteral("127.0.0.2"), 30000);
    // Not started: port 0; a URL to another target is left alone.
    const QUrl other(QStringLiteral("http://127.0.0.2:30001/health"));
    EXPECT_EQ(tunnel.tunnelledUrl(other), other);
    SshTunnel https(QStringLiteral("gpu-1"), {}, QStringLiteral("api.internal"), 443);
    EXPECT_EQ(https.tunnelledUrl(QUrl(QStringLiteral("https://api.internal/health"))).host(),
              QStringLiteral("127.0.0.1"));
}

TEST(SshTunnelSet, RoutesAServicesUrlsThroughOneTunnelPerTarget)
{
    SshdProcess sshd;
    ASSERT_TRUE(sshd.start()) << sshd.errorText().toStdString();
    SimProcess sim;
    ASSERT_TRUE(sim.start(opsdeck::test::simArgs(QStringLiteral("engine"))))
        << sim.errorText().toStdString();
    QStringList asked;
    SshTunnelSet tunnels([&](const QString &host) {
        asked << host;
        return sshSettings(sshd);
    });
    const QUrl base(sim.url());
    EXPECT_EQ(tunnels.route(QString(), base), base) << "no via: reached directly";

    // Routed at once, before the session is up: the request waits for it.
    const QUrl health =
        tunnels.route(QStringLiteral("gpu-1"), base.resolved(QUrl(QStringLiteral("/health"))));
    const QUrl metrics =
        tunnels.route(QStringLiteral("gpu-1"), base.resolved(QUrl(QStringLiteral("/metrics"))));
    EXPECT_EQ(health.host(), QStringLiteral("127.0.0.1"));
    EXPECT_NE(health.port(), sim.port());
    EXPECT_EQ(health.port(), metrics.port()) << "one tunnel for one target";
    EXPECT_EQ(health.path(), QStringLiteral("/health"));
    EXPECT_EQ(asked, QStringList{QStringLiteral("gpu-1")});
    EXPECT_EQ(get(static_cast<quint16>(health.port()), health.path()).status, 200);
    EXPECT_TRUE(get(static_cast<quint16>(metrics.port()), metrics.path())
                    .body.contains("num_running_reqs"));
    const SshTunnel *tunnel = tunnels.tunnel(QStringLiteral("gpu-1"), base);
    ASSERT_NE(tunnel, nullptr);
    EXPECT_EQ(tunnel->phase(), SshTunnel::Phase::Ready);
    EXPECT_EQ(tunnel->connectionsForwarded(), 2);
}
