#include "sshjobqueue.h"

#include "sshchannelrun.h"
#include "sshsession.h"

#include <spdlog/spdlog.h>

namespace opsdeck::remote {

namespace {

// How often an idle session is read: a dropped connection (sshd killed, the
// peer closed) shows within this, and the state says so.
constexpr std::chrono::milliseconds idleTick{1000};

qint64 msUntil(std::chrono::steady_clock::time_point when)
{
    return std::max<qint64>(0, std::chrono::duration_cast<std::chrono::milliseconds>(
                                   when - std::chrono::steady_clock::now())
                                   .count());
}

} // namespace

SshJobQueue::SshJobQueue(SshSettings settings, QString hostName, Finished finished,
                         StateChanged stateChanged, Output output)
    : m_settings(std::move(settings)), m_hostName(std::move(hostName)),
      m_finished(std::move(finished)), m_stateChanged(std::move(stateChanged)),
      m_output(std::move(output)), m_delay(m_settings.reconnectInitialDelay),
      m_thread([this] { loop(); })
{
}

SshJobQueue::~SshJobQueue()
{
    {
        std::lock_guard lock(m_mutex);
        m_stopping = true;
        m_jobs.clear();
    }
    m_wake.notify_all();
    m_thread.join();
}

void SshJobQueue::push(quint64 id, const CommandRequest &request)
{
    {
        std::lock_guard lock(m_mutex);
        m_jobs.push_back({id, request, {}});
    }
    m_wake.notify_all();
}

void SshJobQueue::pushTask(quint64 id, SessionTask task)
{
    {
        std::lock_guard lock(m_mutex);
        m_jobs.push_back({id, {}, std::move(task)});
    }
    m_wake.notify_all();
}

void SshJobQueue::cancel(quint64 id)
{
    std::optional<Job> queued;
    {
        std::lock_guard lock(m_mutex);
        const auto it = std::find_if(m_jobs.begin(), m_jobs.end(),
                                     [id](const Job &job) { return job.id == id; });
        if (it != m_jobs.end()) {
            queued = std::move(*it);
            m_jobs.erase(it);
        } else if (m_running == id) {
            m_cancelled.insert(id);
        }
    }
    if (!queued)
        return;
    if (queued->task) {
        queued->task(nullptr, QStringLiteral("cancelled"));
        return;
    }
    CommandResult result;
    result.outcome = CommandResult::Outcome::Cancelled;
    m_finished(id, result);
}

SshConnectionState SshJobQueue::state() const
{
    std::lock_guard lock(m_mutex);
    return m_state;
}

void SshJobQueue::setState(const SshConnectionState &state)
{
    {
        std::lock_guard lock(m_mutex);
        m_state = state;
    }
    m_stateChanged(state);
}

void SshJobQueue::sessionLost()
{
    m_session.reset();
    // A session that worked and dropped is reconnected at once; only failed
    // connects back off.
    m_delay = m_settings.reconnectInitialDelay;
    m_retryPlanned = true;
    m_retryAt = Clock::now();
    SshConnectionState state;
    state.reason = QStringLiteral("the connection to %1 was lost").arg(m_hostName);
    setState(state);
    spdlog::warn("ssh: {}", state.reason.toStdString());
}

void SshJobQueue::setAcceptedFingerprint(const QString &fingerprint)
{
    std::lock_guard lock(m_mutex);
    m_acceptedFingerprint = fingerprint;
    m_holdUntil = {};
}

bool SshJobQueue::connect(QString &error)
{
    {
        std::lock_guard lock(m_mutex);
        if (!m_acceptedFingerprint.isEmpty())
            m_settings.acceptedFingerprint = m_acceptedFingerprint;
    }
    m_session = std::make_unique<SshSession>(m_settings);
    SshConnectionState state =
        m_session->open([this](const SshConnectionState &s) { setState(s); });
    if (state.phase == SshConnectionState::Phase::Connected) {
        m_delay = m_settings.reconnectInitialDelay;
        m_retryPlanned = false;
        m_lastSent = Clock::now();
        setState(state);
        return true;
    }
    m_session.reset();
    // Only a network failure may heal by itself; a refused host key, a
    // rejected login or a bad config waits for the operator.
    m_retryPlanned = state.failure == SshConnectionState::Failure::Connect;
    if (!m_retryPlanned) {
        std::lock_guard lock(m_mutex);
        m_holdUntil = Clock::now() + operatorWait;
    }
    if (m_retryPlanned) {
        m_retryAt = Clock::now() + m_delay;
        state.reconnectInMs = m_delay.count();
        m_delay = std::min(m_delay * 2, m_settings.reconnectMaxDelay);
    }
    setState(state);
    error = state.reason;
    return false;
}

bool SshJobQueue::ensureSession(QString &error)
{
    if (m_session && m_session->isConnected())
        return true;
    if (m_session)
        sessionLost();
    {
        std::lock_guard lock(m_mutex);
        if (Clock::now() < m_holdUntil) {
            error = QStringLiteral("host %1 is not connected: %2").arg(m_hostName, m_state.reason);
            return false;
        }
    }
    if (m_retryPlanned && Clock::now() < m_retryAt) {
        error = QStringLiteral("host %1 is not connected: %2 (next attempt in %3 ms)")
                    .arg(m_hostName, state().reason)
                    .arg(msUntil(m_retryAt));
        return false;
    }
    return connect(error);
}

CommandResult SshJobQueue::runJob(const Job &job)
{
    const auto cancelled = [this, id = job.id] {
        std::lock_guard lock(m_mutex);
        return m_stopping || m_cancelled.count(id) > 0;
    };
    // A session that died while idle shows only when a channel is opened:
    // nothing ran then, so one reconnect and retry is safe.
    for (int attempt = 0; attempt < 2; ++attempt) {
        CommandResult failure;
        failure.outcome = CommandResult::Outcome::FailedToStart;
        if (!ensureSession(failure.errorText))
            return failure;
        if (cancelled()) {
            CommandResult result;
            result.outcome = CommandResult::Outcome::Cancelled;
            return result;
        }
        OutputCoalescer::Sink output;
        if (m_output)
            output = [this, id = job.id](OutputChannel channel, const QByteArray &chunk) {
                m_output(id, channel, chunk);
            };
        SshChannelRun run(m_session->handle(), job.request, m_hostName, cancelled,
                          std::move(output));
        CommandResult result = run.run();
        m_lastSent = Clock::now();
        if (!m_session->isConnected())
            sessionLost();
        if (!run.sessionLostBeforeStart())
            return result;
    }
    CommandResult lost;
    lost.outcome = CommandResult::Outcome::FailedToStart;
    lost.errorText = QStringLiteral("the session to %1 was lost twice before the command started")
                         .arg(m_hostName);
    return lost;
}

void SshJobQueue::runTask(const Job &job)
{
    for (int attempt = 0; attempt < 2; ++attempt) {
        QString error;
        if (!ensureSession(error)) {
            job.task(nullptr, error);
            return;
        }
        const bool done = job.task(m_session.get(), {});
        m_lastSent = Clock::now();
        if (!m_session->isConnected())
            sessionLost();
        if (done)
            return;
    }
    job.task(nullptr,
             QStringLiteral("the session to %1 was lost twice before the operation started")
                 .arg(m_hostName));
}

void SshJobQueue::idle()
{
    if (m_session) {
        // Reading the socket lets libssh see a close or a reset now, not at
        // the next command; SSH_MSG_IGNORE needs no answer (libssh 0.10 has no
        // keepalive@openssh.com request), but a dead peer makes it fail.
        ssh_event event = ssh_event_new();
        ssh_event_add_session(event, m_session->handle());
        ssh_event_dopoll(event, 0);
        ssh_event_remove_session(event, m_session->handle());
        ssh_event_free(event);
        const auto interval = m_settings.keepAliveInterval;
        if (m_session->isConnected() && interval.count() > 0 &&
            Clock::now() - m_lastSent >= interval) {
            ssh_send_ignore(m_session->handle(), "keep-alive");
            m_lastSent = Clock::now();
        }
        if (!m_session->isConnected())
            sessionLost();
    }
    if (!m_session && m_retryPlanned && Clock::now() >= m_retryAt) {
        QString error;
        connect(error);
    }
}

void SshJobQueue::loop()
{
    for (;;) {
        Job job;
        {
            std::unique_lock lock(m_mutex);
            while (!m_stopping && m_jobs.empty()) {
                auto wakeAt = Clock::now() + idleTick;
                if (!m_session && m_retryPlanned)
                    wakeAt = std::min(wakeAt, m_retryAt);
                m_wake.wait_until(lock, wakeAt);
                if (m_stopping || !m_jobs.empty())
                    break;
                lock.unlock();
                idle();
                lock.lock();
            }
            if (m_stopping)
                break;
            job = std::move(m_jobs.front());
            m_jobs.pop_front();
            m_running = job.id;
        }
        if (job.task) {
            runTask(job);
            std::lock_guard lock(m_mutex);
            m_running = 0;
            m_cancelled.erase(job.id);
            continue;
        }
        const CommandResult result = runJob(job);
        bool stopping = false;
        {
            std::lock_guard lock(m_mutex);
            m_running = 0;
            m_cancelled.erase(job.id);
            stopping = m_stopping;
        }
        if (!stopping)
            m_finished(job.id, result);
    }
    m_session.reset(); // freed in the thread that used it
}

} // namespace opsdeck::remote
