#pragma once

#include "commandrequest.h"
#include "commandresult.h"
#include "outputcoalescer.h"

#include <chrono>
#include <functional>
#include <libssh/callbacks.h>
#include <libssh/libssh.h>
#include <optional>
#include <vector>

namespace opsdeck::remote {

/// Runs one CommandRequest on an exec channel of a connected session and
/// blocks (the session's thread) until its result is known.
///
/// The result follows case B15: output is complete at EOF, the result is
/// known at channel close. exit-status -> Exited; exit-signal (reported by
/// libssh 0.10 only through the channel callbacks) -> Signalled; a channel
/// closed, or a connection lost, with neither -> Unknown, never success.
/// Stdin gets the script (for `bash -s`) or the input, then EOF; with neither,
/// EOF right after the exec request (case B16). Output arrives through the data callback and
/// is kept up to the request's cap per stream, the rest only counted, so
/// memory does not grow with the output. The kept bytes also go to `output`
/// as they come, gathered by an OutputCoalescer (at most every 50 ms or per
/// 64 KiB); everything pending is handed on before run() returns, so the
/// chunks joined equal the result's output and none comes after it.
/// Deadline or cancel: the command's process group gets TERM, then KILL
/// after killGrace, then the channel is closed; the result is TimedOut /
/// Cancelled whatever arrives afterwards. The signal goes both as a "signal"
/// channel request (sshd >= 7.9, non-root logins) and as `kill -s SIG --
/// -PGID` on a second channel (root logins, where sshd refuses the request);
/// the group id comes from a tagged first stderr line the command line
/// prints (sshcommandline.h), which is removed from the output.
class SshChannelRun
{
public:
    /// `output` runs in this thread (may be empty: nothing is streamed).
    SshChannelRun(ssh_session session, const CommandRequest &request, QString hostName,
                  std::function<bool()> cancelled, OutputCoalescer::Sink output = {});
    CommandResult run();

    /// True when run() failed before the command started because the session
    /// was gone (the caller reconnects and retries: nothing ran).
    bool sessionLostBeforeStart() const { return m_lostBeforeStart; }

    /// From the signal request to KILL, and from KILL to giving up on close.
    static constexpr std::chrono::milliseconds killGrace{2000};
    /// How long a status that came with EOF waits for the close (B15 D waits past EOF).
    static constexpr std::chrono::milliseconds closeGrace{2000};

private:
    using Clock = std::chrono::steady_clock;
    void pump(ssh_channel channel, ssh_event event);
    void writeInput(ssh_channel channel);
    CommandResult verdict();
    void signalGroup(ssh_channel channel, const char *signal);
    void takeStdout(const char *data, qint64 size);
    void takeStderr(const char *data, qint64 size);
    void keep(OutputChannel channel, const char *data, qint64 size);
    void flushStderrHead();

    static int onData(ssh_session, ssh_channel, void *data, uint32_t len, int isStderr, void *self);
    static void onEof(ssh_session, ssh_channel, void *self);
    static void onClose(ssh_session, ssh_channel, void *self);
    static void onExitStatus(ssh_session, ssh_channel, int status, void *self);
    static void onExitSignal(ssh_session, ssh_channel, const char *signal, int core,
                             const char *errmsg, const char *lang, void *self);

    ssh_session m_session;
    const CommandRequest &m_request;
    /// What stdin gets, then EOF: the script for `bash -s`, or argv's input; none: EOF at once.
    const std::optional<QByteArray> m_input;
    QString m_hostName;
    std::function<bool()> m_cancelled;
    ssh_channel_callbacks_struct m_callbacks{};
    CommandResult m_result;
    Clock::time_point m_start;
    qsizetype m_inputSent = 0;
    bool m_inputDone = false;
    bool m_eof = false;
    bool m_closed = false;
    bool m_lost = false;
    bool m_lostBeforeStart = false;
    std::optional<int> m_exitStatus;
    QString m_exitSignal;
    Clock::time_point m_eofAt;
    std::optional<CommandResult::Outcome> m_killedBecause;
    int m_killStage = 0; ///< 0 none, 1 TERM sent, 2 KILL sent
    Clock::time_point m_killAt;
    QByteArray m_pidTag;     ///< random, so no output line can pass for it
    QByteArray m_stderrHead; ///< stderr held back until the tagged line is found
    bool m_seekingPid = true;
    qint64 m_processGroup = 0; ///< remote process group of the command; 0 unknown
    std::vector<ssh_channel> m_killChannels;
    OutputCoalescer m_output;
};

} // namespace opsdeck::remote
