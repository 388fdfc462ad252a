#include "sshjobqueue.h"

#include "sshchannelrun.h"
#include "sshsession.h"

namespace opsdeck::remote {

SshJobQueue::SshJobQueue(SshSettings settings, QString hostName, Finished finished,
                         StateChanged stateChanged)
    : m_settings(std::move(settings)), m_hostName(std::move(hostName)),
      m_finished(std::move(finished)), m_stateChanged(std::move(stateChanged)),
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
        m_jobs.push_back({id, request});
    }
    m_wake.notify_all();
}

void SshJobQueue::cancel(quint64 id)
{
    bool wasQueued = false;
    {
        std::lock_guard lock(m_mutex);
        const auto it = std::find_if(m_jobs.begin(), m_jobs.end(),
                                     [id](const Job &job) { return job.id == id; });
        if (it != m_jobs.end()) {
            m_jobs.erase(it);
            wasQueued = true;
        } else if (m_running == id) {
            m_cancelled.insert(id);
        }
    }
    if (wasQueued) {
        CommandResult result;
        result.outcome = CommandResult::Outcome::Cancelled;
        m_finished(id, result);
    }
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

bool SshJobQueue::ensureSession(CommandResult &failure)
{
    if (m_session && m_session->isConnected())
        return true;
    if (m_session)
        setState({}); // lost: Disconnected until the new connect
    m_session = std::make_unique<SshSession>(m_settings);
    const SshConnectionState state =
        m_session->open([this](const SshConnectionState &s) { setState(s); });
    setState(state);
    if (state.phase == SshConnectionState::Phase::Connected)
        return true;
    m_session.reset();
    failure.outcome = CommandResult::Outcome::FailedToStart;
    failure.errorText = state.reason;
    return false;
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
        if (!ensureSession(failure))
            return failure;
        if (cancelled()) {
            CommandResult result;
            result.outcome = CommandResult::Outcome::Cancelled;
            return result;
        }
        SshChannelRun run(m_session->handle(), job.request, m_hostName, cancelled);
        CommandResult result = run.run();
        if (!m_session->isConnected()) {
            m_session.reset();
            setState({});
        }
        if (!run.sessionLostBeforeStart())
            return result;
    }
    CommandResult lost;
    lost.outcome = CommandResult::Outcome::FailedToStart;
    lost.errorText = QStringLiteral("the session to %1 was lost twice before the command started")
                         .arg(m_hostName);
    return lost;
}

void SshJobQueue::loop()
{
    for (;;) {
        Job job;
        {
            std::unique_lock lock(m_mutex);
            m_wake.wait(lock, [this] { return m_stopping || !m_jobs.empty(); });
            if (m_stopping)
                break;
            job = std::move(m_jobs.front());
            m_jobs.pop_front();
            m_running = job.id;
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
