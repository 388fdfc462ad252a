#include "sshchannelrun.h"

#include "sshcommandline.h"

#include <QRandomGenerator>
#include <spdlog/spdlog.h>

namespace opsdeck::remote {

SshChannelRun::SshChannelRun(ssh_session session, const CommandRequest &request, QString hostName,
                             std::function<bool()> cancelled, OutputCoalescer::Sink output)
    : m_session(session), m_request(request),
      m_input(request.argv.isEmpty() ? std::optional(request.scriptStandardInput())
                                     : request.input),
      m_hostName(std::move(hostName)), m_cancelled(std::move(cancelled)),
      m_pidTag("opsdeck-pgid-" + QByteArray::number(QRandomGenerator::system()->generate64(), 16)),
      m_output(std::move(output))
{
    ssh_callbacks_init(&m_callbacks);
    m_callbacks.userdata = this;
    m_callbacks.channel_data_function = &SshChannelRun::onData;
    m_callbacks.channel_eof_function = &SshChannelRun::onEof;
    m_callbacks.channel_close_function = &SshChannelRun::onClose;
    m_callbacks.channel_exit_status_function = &SshChannelRun::onExitStatus;
    m_callbacks.channel_exit_signal_function = &SshChannelRun::onExitSignal;
}

int SshChannelRun::onData(ssh_session, ssh_channel, void *data, uint32_t len, int isStderr,
                          void *self)
{
    auto *run = static_cast<SshChannelRun *>(self);
    const auto *bytes = static_cast<const char *>(data);
    if (isStderr)
        run->takeStderr(bytes, len);
    else
        run->keep(OutputChannel::StandardOutput, bytes, len);
    return static_cast<int>(len); // all consumed: libssh grows the window again
}

void SshChannelRun::keep(OutputChannel channel, const char *data, qint64 size)
{
    const bool out = channel == OutputChannel::StandardOutput;
    QByteArray &kept = out ? m_result.standardOutput : m_result.standardError;
    qint64 &dropped = out ? m_result.standardOutputDropped : m_result.standardErrorDropped;
    const qint64 taken = std::min(std::max<qint64>(0, m_request.outputCap - kept.size()), size);
    kept.append(data, taken);
    dropped += size - taken;
    // Only kept bytes are streamed, so the chunks add up to the result.
    m_output.append(channel, data, taken, Clock::now());
}

void SshChannelRun::takeStderr(const char *data, qint64 size)
{
    if (!m_seekingPid) {
        keep(OutputChannel::StandardError, data, size);
        return;
    }
    m_stderrHead.append(data, size);
    const qsizetype at = m_stderrHead.indexOf(QByteArray(m_pidTag + ' '));
    const qsizetype end = at < 0 ? -1 : m_stderrHead.indexOf('\n', at);
    if (end >= 0) {
        m_processGroup =
            m_stderrHead.mid(at + m_pidTag.size() + 1, end - at - m_pidTag.size() - 1).toLongLong();
        m_stderrHead.remove(at, end - at + 1);
        flushStderrHead();
    } else if (m_stderrHead.size() > 8192) {
        flushStderrHead(); // a start-up file wrote a lot first; give up on the tag
    }
}

void SshChannelRun::flushStderrHead()
{
    m_seekingPid = false;
    keep(OutputChannel::StandardError, m_stderrHead.constData(), m_stderrHead.size());
    m_stderrHead.clear();
}

void SshChannelRun::signalGroup(ssh_channel channel, const char *signal)
{
    ssh_channel_request_send_signal(channel, signal);
    if (m_processGroup <= 1)
        return;
    ssh_channel killer = ssh_channel_new(m_session);
    if (!killer)
        return;
    m_killChannels.push_back(killer);
    const QByteArray command = QByteArray("kill -s ") + signal + " -- -" +
                               QByteArray::number(m_processGroup) + " 2>/dev/null";
    if (ssh_channel_open_session(killer) == SSH_OK &&
        ssh_channel_request_exec(killer, command.constData()) == SSH_OK)
        ssh_channel_send_eof(killer);
}

void SshChannelRun::onEof(ssh_session, ssh_channel, void *self)
{
    auto *run = static_cast<SshChannelRun *>(self);
    run->m_eof = true;
    run->m_eofAt = Clock::now();
}

void SshChannelRun::onClose(ssh_session, ssh_channel, void *self)
{
    static_cast<SshChannelRun *>(self)->m_closed = true;
}

void SshChannelRun::onExitStatus(ssh_session, ssh_channel, int status, void *self)
{
    static_cast<SshChannelRun *>(self)->m_exitStatus = status;
}

void SshChannelRun::onExitSignal(ssh_session, ssh_channel, const char *signal, int, const char *,
                                 const char *, void *self)
{
    // RFC 4254 names signals without "SIG": "TERM", "KILL".
    static_cast<SshChannelRun *>(self)->m_exitSignal =
        QStringLiteral("SIG") + QString::fromLatin1(signal ? signal : "?");
}

void SshChannelRun::writeInput(ssh_channel channel)
{
    if (m_inputDone)
        return;
    const QByteArray &input = *m_input;
    // Never more than the peer's window, so the write cannot block past the deadline.
    const qsizetype room =
        std::min<qsizetype>({input.size() - m_inputSent,
                             static_cast<qsizetype>(ssh_channel_window_size(channel)), 32 * 1024});
    if (room > 0) {
        const int written = ssh_channel_write(channel, input.constData() + m_inputSent,
                                              static_cast<uint32_t>(room));
        if (written > 0)
            m_inputSent += written;
    }
    if (m_inputSent >= input.size()) {
        ssh_channel_send_eof(channel);
        m_inputDone = true;
    }
}

void SshChannelRun::pump(ssh_channel channel, ssh_event event)
{
    const auto deadline = m_start + m_request.deadline;
    while (!m_closed) {
        const auto now = Clock::now();
        if (!m_killedBecause && (now >= deadline || m_cancelled())) {
            m_killedBecause = now >= deadline ? CommandResult::Outcome::TimedOut
                                              : CommandResult::Outcome::Cancelled;
        }
        if (m_killedBecause) {
            // sshd (OpenSSH >= 7.9) delivers "signal" requests to the
            // command's process group; without it the command would outlive
            // the closed channel.
            if (m_killStage == 0) {
                signalGroup(channel, "TERM");
                m_killStage = 1;
                m_killAt = now;
            } else if (m_killStage == 1 && now - m_killAt >= killGrace) {
                signalGroup(channel, "KILL");
                m_killStage = 2;
                m_killAt = now;
            } else if (m_killStage == 2 && now - m_killAt >= killGrace) {
                break;
            }
        }
        if ((m_exitStatus || !m_exitSignal.isEmpty()) && m_eof && now - m_eofAt >= closeGrace)
            break; // status known, the server is slow to close: the status stands
        if (m_input && !m_killedBecause)
            writeInput(channel);
        // Wake for the output's next hand-over too, so a slow command's line
        // shows about 50 ms after it came, not 50 ms plus a poll.
        m_output.flushIfDue(Clock::now());
        const qint64 due = m_output.msUntilDue(Clock::now());
        const int timeout = due < 0 ? 50 : static_cast<int>(std::min<qint64>(due, 50));
        if (ssh_event_dopoll(event, timeout) == SSH_ERROR || !ssh_is_connected(m_session)) {
            m_lost = true;
            break;
        }
    }
}

CommandResult SshChannelRun::verdict()
{
    if (m_seekingPid)
        flushStderrHead();
    CommandResult result = std::move(m_result);
    result.elapsedMs =
        std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - m_start).count();
    if (m_killedBecause) {
        result.outcome = *m_killedBecause;
        if (result.outcome == CommandResult::Outcome::TimedOut)
            result.errorText = QStringLiteral("timed out on host %1").arg(m_hostName);
    } else if (!m_exitSignal.isEmpty()) {
        result.outcome = CommandResult::Outcome::Signalled;
        result.signalName = m_exitSignal;
    } else if (m_exitStatus) {
        result.outcome = CommandResult::Outcome::Exited;
        result.exitCode = *m_exitStatus;
    } else {
        result.outcome = CommandResult::Outcome::Unknown;
        result.errorText =
            m_lost ? QStringLiteral("connection to %1 lost before an exit status arrived: the "
                                    "command may still be running on %1 (check with pgrep)")
                         .arg(m_hostName)
                   : QStringLiteral("no exit status received: the server closed the channel "
                                    "(the command may still be running on %1; check with pgrep)")
                         .arg(m_hostName);
    }
    return result;
}

CommandResult SshChannelRun::run()
{
    m_start = Clock::now();
    CommandResult failedToStart;
    failedToStart.outcome = CommandResult::Outcome::FailedToStart;
    QString error;
    const QByteArray line = remoteCommandLine(m_request, &error, m_pidTag);
    if (line.isEmpty()) {
        failedToStart.errorText = error;
        return failedToStart;
    }
    ssh_channel channel = ssh_channel_new(m_session);
    if (!channel || ssh_channel_open_session(channel) != SSH_OK) {
        m_lostBeforeStart = !ssh_is_connected(m_session);
        failedToStart.errorText = QStringLiteral("cannot open a session channel on %1: %2")
                                      .arg(m_hostName, QString::fromUtf8(ssh_get_error(m_session)));
        if (channel)
            ssh_channel_free(channel);
        return failedToStart;
    }
    ssh_set_channel_callbacks(channel, &m_callbacks);
    if (ssh_channel_request_exec(channel, line.constData()) != SSH_OK) {
        failedToStart.errorText = QStringLiteral("exec request refused by %1: %2")
                                      .arg(m_hostName, QString::fromUtf8(ssh_get_error(m_session)));
        ssh_channel_free(channel);
        return failedToStart;
    }
    if (!m_input) {
        ssh_channel_send_eof(channel);
        m_inputDone = true;
    }
    ssh_event event = ssh_event_new();
    ssh_event_add_session(event, m_session);
    pump(channel, event);
    ssh_event_remove_session(event, m_session);
    ssh_event_free(event);
    if (!m_lost && ssh_is_connected(m_session) && !ssh_channel_is_closed(channel))
        ssh_channel_close(channel);
    ssh_remove_channel_callbacks(channel, &m_callbacks);
    ssh_channel_free(channel);
    for (ssh_channel killer : m_killChannels)
        ssh_channel_free(killer); // closes it when the session is still up
    CommandResult result = verdict();
    m_output.flush(); // after verdict(): it may release the held-back stderr head
    if (result.outcome == CommandResult::Outcome::Unknown)
        spdlog::warn("ssh: {}: {}", m_hostName.toStdString(), result.errorText.toStdString());
    return result;
}

} // namespace opsdeck::remote
