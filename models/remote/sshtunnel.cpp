#include "sshtunnel.h"

#include "sshsession.h"
#include "sshtunnelpump.h"

#include <algorithm>
#include <arpa/inet.h>
#include <cerrno>
#include <cstring>
#include <netinet/in.h>
#include <poll.h>
#include <spdlog/spdlog.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>
#include <vector>

namespace opsdeck::remote {

namespace {

int defaultPort(const QUrl &url)
{
    return url.port(url.scheme() == u"https" ? 443 : 80);
}

} // namespace

SshTunnel::SshTunnel(QString viaHost, SshSettings settings, QString targetHost, int targetPort)
    : m_viaHost(std::move(viaHost)), m_settings(std::move(settings)),
      m_targetHost(std::move(targetHost)), m_targetPort(targetPort)
{
}

SshTunnel::~SshTunnel()
{
    m_stopping = true;
    if (m_wakeFd >= 0) {
        const uint64_t one = 1;
        [[maybe_unused]] const ssize_t n = ::write(m_wakeFd, &one, sizeof one);
    }
    if (m_thread.joinable())
        m_thread.join();
    if (m_listenFd >= 0)
        ::close(m_listenFd);
    if (m_wakeFd >= 0)
        ::close(m_wakeFd);
}

QString SshTunnel::target() const
{
    return QStringLiteral("%1:%2").arg(m_targetHost).arg(m_targetPort);
}

bool SshTunnel::start(quint16 localPort)
{
    if (m_listenFd >= 0) {
        setFailed(QStringLiteral("tunnel via %1: already started").arg(m_viaHost));
        return false;
    }
    m_listenFd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    // As any server: the closed connections of a previous tunnel on this port
    // (TIME_WAIT) must not keep a new one from listening there.
    const int reuse = 1;
    if (m_listenFd >= 0)
        ::setsockopt(m_listenFd, SOL_SOCKET, SO_REUSEADDR, &reuse, sizeof reuse);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK); // never reachable from other machines
    address.sin_port = htons(localPort);
    socklen_t length = sizeof address;
    if (m_listenFd < 0 || ::bind(m_listenFd, reinterpret_cast<sockaddr *>(&address), length) != 0 ||
        ::listen(m_listenFd, 64) != 0 ||
        ::getsockname(m_listenFd, reinterpret_cast<sockaddr *>(&address), &length) != 0) {
        setFailed(QStringLiteral("tunnel via %1 to %2: cannot listen on 127.0.0.1:%3: %4")
                      .arg(m_viaHost, target())
                      .arg(localPort)
                      .arg(QString::fromLocal8Bit(std::strerror(errno))));
        if (m_listenFd >= 0)
            ::close(m_listenFd);
        m_listenFd = -1;
        return false;
    }
    m_localPort = ntohs(address.sin_port);
    m_wakeFd = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    m_thread = std::thread([this] { run(); });
    return true;
}

SshTunnel::Phase SshTunnel::waitReady(std::chrono::milliseconds deadline)
{
    std::unique_lock lock(m_mutex);
    m_phaseChanged.wait_for(lock, deadline, [this] { return m_phase != Phase::Starting; });
    return m_phase;
}

SshTunnel::Phase SshTunnel::phase() const
{
    std::lock_guard lock(m_mutex);
    return m_phase;
}

QString SshTunnel::errorText() const
{
    std::lock_guard lock(m_mutex);
    return m_error;
}

void SshTunnel::setPhase(Phase phase)
{
    {
        std::lock_guard lock(m_mutex);
        m_phase = phase;
    }
    m_phaseChanged.notify_all();
}

void SshTunnel::setFailed(const QString &error)
{
    spdlog::warn("ssh: {}", error.toStdString());
    {
        std::lock_guard lock(m_mutex);
        m_error = error;
        m_phase = Phase::Failed;
    }
    m_phaseChanged.notify_all();
}

QUrl SshTunnel::tunnelledUrl(const QUrl &url) const
{
    if (url.host() != m_targetHost || defaultPort(url) != m_targetPort)
        return url;
    return tunnelledUrl(url, m_localPort);
}

QUrl SshTunnel::tunnelledUrl(const QUrl &url, quint16 localPort)
{
    QUrl mapped = url;
    mapped.setHost(QStringLiteral("127.0.0.1"));
    mapped.setPort(localPort);
    return mapped;
}

bool SshTunnel::ensureSession(std::unique_ptr<SshSession> &session)
{
    if (session && session->isConnected())
        return true;
    const auto now = std::chrono::steady_clock::now();
    if (now < m_retryAfter && !m_retryNow.exchange(false))
        return false; // the last failure (errorText()) stands
    session = std::make_unique<SshSession>(m_settings);
    const SshConnectionState state = session->open([](const SshConnectionState &) {});
    if (state.phase == SshConnectionState::Phase::Connected)
        return true;
    session.reset();
    // A network failure may heal soon; a refused key or login waits for the operator.
    m_retryAfter =
        now + (state.failure == SshConnectionState::Failure::Connect ? std::chrono::seconds(2)
                                                                     : std::chrono::seconds(10));
    setFailed(QStringLiteral("tunnel via %1 to %2: %3").arg(m_viaHost, target(), state.reason));
    return false;
}

ssh_channel SshTunnel::openForward(SshSession &session, int clientFd)
{
    // The originator is informational (sshd logs it): the local client's address.
    sockaddr_in peer{};
    socklen_t length = sizeof peer;
    int originPort = 0;
    if (clientFd >= 0 && ::getpeername(clientFd, reinterpret_cast<sockaddr *>(&peer), &length) == 0)
        originPort = ntohs(peer.sin_port);
    ssh_channel channel = ssh_channel_new(session.handle());
    const QByteArray host = m_targetHost.toUtf8();
    if (channel && ssh_channel_open_forward(channel, host.constData(), m_targetPort, "127.0.0.1",
                                            originPort) == SSH_OK)
        return channel;
    const QString error = QString::fromUtf8(ssh_get_error(session.handle()));
    if (channel)
        ssh_channel_free(channel);
    setFailed(QStringLiteral("host %1 (%2) refused to forward to %3: %4 (does its sshd allow TCP "
                             "forwarding, and is the service listening there?)")
                  .arg(m_viaHost, session.label(), target(), error));
    return nullptr;
}

void SshTunnel::run()
{
    std::unique_ptr<SshSession> session;
    std::vector<std::unique_ptr<SshTunnelPump>> pumps;
    // Checked once with a connection of our own, so a refused forward shows
    // at start, naming the host, and not only as failing requests later.
    if (ensureSession(session)) {
        if (ssh_channel check = openForward(*session, -1)) {
            ssh_channel_close(check);
            ssh_channel_free(check);
            spdlog::info("ssh: tunnel 127.0.0.1:{} via {} to {}", m_localPort,
                         session->label().toStdString(), target().toStdString());
            setPhase(Phase::Ready);
        }
    }
    while (!m_stopping) {
        std::vector<pollfd> fds;
        fds.push_back({m_wakeFd, POLLIN, 0});
        fds.push_back({m_listenFd, POLLIN, 0});
        const bool wanted =
            pumps.empty() || std::any_of(pumps.begin(), pumps.end(),
                                         [](const auto &p) { return p->wantsSession(); });
        if (session && wanted)
            fds.push_back({ssh_get_fd(session->handle()), POLLIN, 0});
        for (const auto &pump : pumps)
            fds.push_back({pump->localFd(), pump->localEvents(), 0});
        // Bounded wait: a lost session is noticed within 200 ms.
        ::poll(fds.data(), fds.size(), 200);
        if (m_stopping)
            break;

        if (fds[1].revents & POLLIN) {
            const int client = ::accept4(m_listenFd, nullptr, nullptr, SOCK_CLOEXEC);
            if (client >= 0) {
                const bool wasReady = phase() == Phase::Ready;
                ssh_channel channel = nullptr;
                if (ensureSession(session))
                    channel = openForward(*session, client);
                if (channel) {
                    pumps.push_back(std::make_unique<SshTunnelPump>(channel, client));
                    ++m_forwarded;
                    if (!wasReady)
                        setPhase(Phase::Ready); // reconnected, or the target came up
                } else {
                    ::close(client); // the client sees the connection closed at once
                }
            }
        }
        for (int round = 0; round < 64; ++round) {
            bool moved = false;
            for (const auto &pump : pumps)
                moved = pump->step() || moved;
            if (!moved)
                break;
        }
        std::erase_if(pumps, [](const auto &pump) { return pump->finished(); });
        if (session && !session->isConnected()) {
            pumps.clear(); // their channels died with the session
            session.reset();
            setFailed(QStringLiteral("tunnel via %1 to %2: the session to %1 was lost; it "
                                     "reconnects at the next connection")
                          .arg(m_viaHost, target()));
        }
        m_openConnections = static_cast<int>(pumps.size());
    }
    pumps.clear(); // channels closed and freed before their session
    session.reset();
    m_openConnections = 0;
}

} // namespace opsdeck::remote
