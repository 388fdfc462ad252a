#include "scheduler.h"

#include "enginemetrics.h"
#include "logger.h"

#include <algorithm>
#include <cstdio>

namespace opsdeck::sim {

namespace {
constexpr auto kMaxLag = std::chrono::milliseconds(200);
// SGLang writes its scheduler gauges every 30 s while idle (check_memory).
constexpr auto kIdleGaugeRefresh = std::chrono::seconds(30);

double secondsBetween(SimRequest::Clock::time_point from, SimRequest::Clock::time_point to)
{
    return std::chrono::duration<double>(to - from).count();
}
} // namespace

Scheduler::Scheduler(int dpRank, const StepModel &model, Limits limits, EngineMetrics &metrics,
                     std::string logTag)
    : m_dpRank(dpRank), m_model(model), m_limits(limits), m_metrics(metrics),
      m_logTag(std::move(logTag))
{
}

Scheduler::~Scheduler()
{
    stop();
}

void Scheduler::start()
{
    m_thread = std::thread([this] { run(); });
}

void Scheduler::stop()
{
    {
        std::lock_guard lock(m_mutex);
        m_stopping = true;
    }
    m_cv.notify_all();
    if (m_thread.joinable())
        m_thread.join();
}

bool Scheduler::submit(const RequestPtr &request)
{
    {
        std::lock_guard lock(m_mutex);
        if (!m_stopping) {
            m_waiting.push_back(request);
            m_cv.notify_all();
            return true;
        }
    }
    request->abort();
    return false;
}

void Scheduler::run()
{
    std::unique_lock lock(m_mutex);
    Clock::time_point stepStart = Clock::now();
    bool wasIdle = true;
    publish(stepStart); // the gauges exist (at 0) from the start, as prometheus_client's do
    while (!m_stopping) {
        dropCancelled();
        admit(Clock::now());
        if (m_prefilling.empty() && m_decoding.empty()) {
            wasIdle = true;
            if (Clock::now() - m_lastPublish >= kIdleGaugeRefresh)
                publish(Clock::now());
            if (m_limits.stuck)
                // Nothing will be admitted; wake now and then to drop requests whose
                // client hung up, so the queue drains as SGLang's aborts drain it.
                m_cv.wait_for(lock, std::chrono::milliseconds(100),
                              [&] { return m_stopping.load(); });
            else
                m_cv.wait_until(lock, m_lastPublish + kIdleGaugeRefresh,
                                [&] { return m_stopping || !m_waiting.empty(); });
            continue;
        }
        const auto now = Clock::now();
        // After idling, or a stall far longer than a step (the process was
        // stopped, the machine overloaded), restart the clock instead of
        // bursting through the missed steps.
        if (wasIdle || now - stepStart > kMaxLag)
            stepStart = now;
        wasIdle = false;
        const Step step = plan();
        const auto deadline = stepStart + std::chrono::duration_cast<Clock::duration>(
                                              std::chrono::duration<double, std::milli>(step.ms));
        // The lock is released while the "GPU" works: submit() and snapshot()
        // never wait for a step.
        m_cv.wait_until(lock, deadline, [&] { return m_stopping.load(); });
        if (m_stopping)
            break;
        apply(step, deadline);
        // SGLang writes its gauges when it logs a batch: every prefill batch,
        // every decode_log_interval-th decode batch.
        const auto every = static_cast<std::uint64_t>(std::max(1, m_limits.decodeLogInterval));
        if (step.prefill || ++m_decodeSteps % every == 0)
            publish(deadline);
        maybeLog(step, deadline);
        stepStart = deadline;
    }
    for (auto *queue : {&m_prefilling, &m_decoding}) {
        for (const auto &request : *queue)
            request->abort();
        queue->clear();
    }
    for (const auto &request : m_waiting)
        request->abort();
    m_waiting.clear();
}

void Scheduler::dropCancelled()
{
    auto drop = [&](auto &queue) {
        const auto end = std::remove_if(queue.begin(), queue.end(), [&](const RequestPtr &r) {
            if (!r->cancelRequested())
                return false;
            release(r);
            r->abort();
            m_metrics.requestAborted();
            return true;
        });
        queue.erase(end, queue.end());
    };
    drop(m_waiting);
    drop(m_prefilling);
    drop(m_decoding);
}

void Scheduler::admit(Clock::time_point now)
{
    if (m_limits.stuck)
        return;
    while (!m_waiting.empty() && runningCount() < m_limits.maxRunning) {
        RequestPtr request = m_waiting.front();
        const int need = request->promptTokens() + request->maxTokens();
        // A full KV pool keeps requests waiting; an empty batch admits anyway
        // so an oversized request cannot block the queue forever.
        if (runningCount() > 0 && m_reservedTokens + need > m_limits.maxTotalTokens)
            break;
        m_waiting.pop_front();
        request->sched.reservedTokens = need;
        m_reservedTokens += need;
        if (request->kind() == SimRequest::Kind::DecodeOnly) {
            // The first token was produced by the prefill and arrived with the KV.
            request->addToken(now);
            m_metrics.observeTtft(secondsBetween(request->arrival(), now));
            if (request->generated() >= request->maxTokens())
                finish(request, now);
            else
                m_decoding.push_back(request);
        } else {
            request->sched.prefillRemaining = request->promptTokens();
            m_prefilling.push_back(request);
        }
    }
}

Scheduler::Step Scheduler::plan() const
{
    Step step;
    if (!m_prefilling.empty()) {
        step.prefill = true;
        int budget = m_limits.chunkedPrefillSize;
        for (const auto &request : m_prefilling) {
            if (budget <= 0)
                break;
            const int take = std::min(request->sched.prefillRemaining, budget);
            step.chunks.emplace_back(request, take);
            step.tokens += take;
            budget -= take;
        }
        step.batch = static_cast<int>(step.chunks.size());
        step.ms = m_model.prefillStepMs(step.tokens);
    } else {
        step.batch = static_cast<int>(m_decoding.size());
        step.ms = m_model.decodeStepMs(step.batch);
    }
    return step;
}

void Scheduler::apply(const Step &step, Clock::time_point at)
{
    if (step.prefill)
        applyPrefill(step, at);
    else
        applyDecode(at);
}

void Scheduler::applyPrefill(const Step &step, Clock::time_point at)
{
    int firstTokens = 0;
    for (const auto &[request, tokens] : step.chunks) {
        if (request->cancelRequested())
            continue; // dropped at the next boundary
        request->sched.prefillRemaining -= tokens;
        if (request->sched.prefillRemaining > 0)
            continue;
        // The last prefill chunk yields the first output token.
        request->addToken(at);
        ++firstTokens;
        m_metrics.observeTtft(secondsBetween(request->arrival(), at));
        m_prefilling.erase(std::find(m_prefilling.begin(), m_prefilling.end(), request));
        if (request->kind() == SimRequest::Kind::PrefillOnly) {
            if (request->onPrefilled)
                request->onPrefilled();
            finish(request, at);
        } else if (request->generated() >= request->maxTokens()) {
            finish(request, at);
        } else {
            m_decoding.push_back(request);
        }
    }
    recordStep(at, step.ms, firstTokens);
}

void Scheduler::applyDecode(Clock::time_point at)
{
    std::vector<double> itl;
    itl.reserve(m_decoding.size());
    std::vector<RequestPtr> still;
    still.reserve(m_decoding.size());
    int tokens = 0;
    for (const auto &request : m_decoding) {
        if (request->cancelRequested()) {
            still.push_back(request); // dropped (and counted) at the next boundary
            continue;
        }
        itl.push_back(secondsBetween(request->sched.lastTokenAt, at));
        request->addToken(at);
        ++tokens;
        if (request->generated() >= request->maxTokens())
            finish(request, at);
        else
            still.push_back(request);
    }
    const int batch = static_cast<int>(m_decoding.size());
    m_decoding.swap(still);
    m_metrics.observeItl(itl);
    recordStep(at, m_model.decodeStepMs(batch), tokens);
}

void Scheduler::release(const RequestPtr &request)
{
    m_reservedTokens -= request->sched.reservedTokens;
    request->sched.reservedTokens = 0;
}

void Scheduler::finish(const RequestPtr &request, Clock::time_point at)
{
    release(request);
    m_metrics.requestFinished(request->promptTokens(), request->generated(),
                              secondsBetween(request->arrival(), at));
    request->finish();
}

void Scheduler::recordStep(Clock::time_point at, double ms, int tokens)
{
    m_recent.emplace_back(at, ms, tokens);
    while (!m_recent.empty() && at - std::get<0>(m_recent.front()) > StatsWindow)
        m_recent.pop_front();
}

} // namespace opsdeck::sim
