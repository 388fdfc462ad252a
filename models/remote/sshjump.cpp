#include "sshjump.h"

#include "sshsession.h"
#include "sshtunnelpump.h"

#include <cerrno>
#include <cstring>
#include <poll.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>
#include <unistd.h>

namespace opsdeck::remote {

namespace {

SshConnectionState failed(SshConnectionState::Failure failure, QString reason)
{
    return {SshConnectionState::Phase::Failed, failure, std::move(reason)};
}

} // namespace

std::optional<SshJump::Hop> SshJump::fromProxyCommand(const QString &command, QString *more)
{
    const QStringList words = command.split(u' ', Qt::SkipEmptyParts);
    if (words.size() < 4 || words.first() != u"ssh")
        return std::nullopt;
    Hop hop;
    bool sawW = false;
    for (qsizetype i = 1; i < words.size(); ++i) {
        const QString &word = words.at(i);
        const bool last = i + 1 == words.size();
        if (last && sawW) {
            hop.host = word;
        } else if (word == u"-l" && !last) {
            hop.user = words.at(++i);
        } else if (word == u"-p" && !last) {
            bool ok = false;
            hop.port = words.at(++i).toInt(&ok);
            if (!ok)
                return std::nullopt;
        } else if (word == u"-J" && !last) {
            if (more)
                *more = words.at(++i);
            else
                ++i;
        } else if (word == u"-W" && !last && words.at(i + 1) == u"'[%h]:%p'") {
            sawW = true;
            ++i;
        } else {
            return std::nullopt;
        }
    }
    if (!sawW || hop.host.isEmpty())
        return std::nullopt;
    return hop;
}

SshJump::SshJump(SshSettings settings, int depth) : m_settings(std::move(settings)), m_depth(depth)
{
}

SshJump::~SshJump()
{
    // The socket handed out by open() belongs to libssh by now; the pump's
    // end and the channel close with the thread.
    m_stopping = true;
    if (m_thread.joinable())
        m_thread.join();
}

QString SshJump::label() const
{
    std::lock_guard lock(m_mutex);
    return m_label;
}

void SshJump::publish(const SshConnectionState &state, int fd, const QString &label)
{
    {
        std::lock_guard lock(m_mutex);
        m_state = state;
        m_fd = fd;
        m_label = label;
        m_done = true;
    }
    m_ready.notify_all();
}

SshConnectionState SshJump::open(const QString &targetAddress, int targetPort, int *fd)
{
    m_thread = std::thread(
        [this, address = targetAddress.toUtf8(), targetPort] { run(address, targetPort); });
    std::unique_lock lock(m_mutex);
    m_ready.wait(lock, [this] { return m_done; });
    *fd = m_fd;
    return m_state;
}

void SshJump::run(QByteArray targetAddress, int targetPort)
{
    using Failure = SshConnectionState::Failure;
    SshSession session(m_settings, m_depth);
    const QString jumpName = m_settings.host;
    const SshConnectionState state = session.open([](const SshConnectionState &) {});
    if (state.phase != SshConnectionState::Phase::Connected) {
        publish(
            failed(state.failure, QStringLiteral("jump host %1: %2").arg(jumpName, state.reason)),
            -1, {});
        return;
    }
    const QString target =
        QStringLiteral("%1:%2").arg(QString::fromUtf8(targetAddress)).arg(targetPort);
    ssh_channel channel = ssh_channel_new(session.handle());
    // The originator address is informational for the jump host's sshd.
    if (!channel || ssh_channel_open_forward(channel, targetAddress.constData(), targetPort,
                                             "127.0.0.1", 0) != SSH_OK) {
        const QString error = QString::fromUtf8(ssh_get_error(session.handle()));
        if (channel)
            ssh_channel_free(channel);
        publish(failed(Failure::Connect,
                       QStringLiteral("jump host %1 (%2) refused to forward to %3: %4 (does its "
                                      "sshd allow TCP forwarding?)")
                           .arg(jumpName, session.label(), target, error)),
                -1, {});
        return;
    }
    int pair[2] = {-1, -1};
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) {
        ssh_channel_free(channel);
        publish(
            failed(Failure::Connect, QStringLiteral("jump host %1: socketpair failed: %2")
                                         .arg(jumpName, QString::fromLocal8Bit(strerror(errno)))),
            -1, {});
        return;
    }
    spdlog::info("ssh: jump host {} forwards to {}", session.label().toStdString(),
                 target.toStdString());
    SshTunnelPump pump(channel, pair[0]);
    publish({SshConnectionState::Phase::Connected, Failure::None, {}}, pair[1], session.label());

    while (!m_stopping && !pump.finished() && session.isConnected()) {
        for (int round = 0; round < 64 && pump.step(); ++round) {
        }
        pollfd fds[2] = {{pump.localFd(), pump.localEvents(), 0},
                         {pump.wantsSession() ? ssh_get_fd(session.handle()) : -1, POLLIN, 0}};
        // Bounded wait: the stop flag is checked at least every 100 ms.
        ::poll(fds, 2, 100);
    }
}

} // namespace opsdeck::remote
