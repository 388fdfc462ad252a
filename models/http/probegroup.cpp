#include "probegroup.h"

#include "probeengine.h"

#include <algorithm>
#include <condition_variable>
#include <mutex>

using namespace Qt::StringLiterals;

namespace opsdeck::probes {

namespace {

constexpr auto cancelGrace = std::chrono::seconds(3);  // for cancelled transfers to report
constexpr auto engineMargin = std::chrono::seconds(5); // the engine's queue, beyond a timeout

/// One runAll()'s answers; shared with the engine's callbacks, which may
/// arrive after runAll() gave up on them.
struct Batch
{
    explicit Batch(qsizetype n) : results(n), answeredAtMs(n, -1) {}
    QVector<std::optional<ProbeResult>> results;
    QVector<double> answeredAtMs;
    int answered = 0; ///< results stored
    int finished = 0; ///< results stored and passed to Options::onAnswer
};

double msSince(ProbeGroup::Clock::time_point start)
{
    return std::chrono::duration<double, std::milli>(ProbeGroup::Clock::now() - start).count();
}

ProbeResult synthesised(const ProbeRequest &request, const QString &why)
{
    ProbeResult result;
    result.label = request.label;
    result.kind = request.kind;
    result.mode = request.mode;
    result.url = request.url;
    result.cancelled = true;
    result.error = why;
    result.note = why;
    return result;
}

} // namespace

struct ProbeGroup::State
{
    std::mutex mutex;
    std::condition_variable changed;
    bool cancelled = false;
    QVector<quint64> inFlight;
};

ProbeGroup::ProbeGroup(ProbeEngine &engine) : m_engine(engine), m_state(std::make_shared<State>())
{
}

ProbeGroup::~ProbeGroup()
{
    cancel();
}

void ProbeGroup::cancel()
{
    QVector<quint64> ids;
    {
        std::lock_guard lock(m_state->mutex);
        m_state->cancelled = true;
        ids = m_state->inFlight;
    }
    for (const quint64 id : ids)
        m_engine.cancel(id);
    m_state->changed.notify_all();
}

bool ProbeGroup::isCancelled() const
{
    std::lock_guard lock(m_state->mutex);
    return m_state->cancelled;
}

ProbeGroup::Outcome ProbeGroup::runAll(QVector<ProbeRequest> requests)
{
    return runAll(std::move(requests), Options());
}

ProbeResult ProbeGroup::runOne(ProbeRequest request)
{
    return runAll({std::move(request)}).results.first();
}

ProbeGroup::Outcome ProbeGroup::runAll(QVector<ProbeRequest> requests, Options options)
{
    const auto n = static_cast<int>(requests.size());
    Outcome outcome;
    const auto batch = std::make_shared<Batch>(n);
    int longestTimeoutMs = 0;
    for (const ProbeRequest &request : std::as_const(requests))
        longestTimeoutMs = std::max(longestTimeoutMs, request.timeoutMs);
    const QVector<ProbeRequest> sent = requests; // for synthesised results

    std::unique_lock lock(m_state->mutex);
    m_state->inFlight.clear();
    int submitted = 0; // a group cancelled before this call submits nothing
    const Clock::time_point start = Clock::now();
    if (!m_state->cancelled) {
        const std::weak_ptr<State> weak = m_state;
        const auto onAnswer = options.onAnswer;
        for (int i = 0; i < n; ++i) {
            lock.unlock();
            const quint64 id =
                m_engine.submit(std::move(requests[i]),
                                [weak, batch, i, start, onAnswer](const ProbeResult &result) {
                                    const auto state = weak.lock();
                                    if (!state)
                                        return;
                                    int answered = 0;
                                    {
                                        std::lock_guard inner(state->mutex);
                                        if (batch->results[i])
                                            return;
                                        batch->results[i] = result;
                                        batch->answeredAtMs[i] = msSince(start);
                                        answered = ++batch->answered;
                                    }
                                    // Before `finished` counts it: runAll() returns only after
                                    // the callback of every answer it reports has returned.
                                    if (onAnswer)
                                        onAnswer(i, result, answered);
                                    {
                                        std::lock_guard inner(state->mutex);
                                        ++batch->finished;
                                    }
                                    state->changed.notify_all();
                                });
            lock.lock();
            ++submitted;
            m_state->inFlight.append(id);
            if (m_state->cancelled) { // cancel() came between submit and here: it missed the id
                lock.unlock();
                m_engine.cancel(id);
                lock.lock();
            }
        }
    }

    const Clock::time_point end = options.deadline.value_or(
        start + std::chrono::milliseconds(longestTimeoutMs) + engineMargin);
    const bool ticking = options.onTick && options.tickInterval.count() > 0;
    Clock::time_point nextTick = start;
    while (batch->finished < n && !m_state->cancelled) {
        const Clock::time_point now = Clock::now();
        if (now >= end) {
            outcome.timedOut = options.deadline.has_value();
            break;
        }
        if (ticking && now >= nextTick) {
            lock.unlock();
            options.onTick(std::chrono::duration_cast<std::chrono::milliseconds>(nextTick - start));
            lock.lock();
            while (nextTick <= now)
                nextTick += options.tickInterval;
            continue;
        }
        m_state->changed.wait_until(lock, ticking ? std::min(nextTick, end) : end);
    }
    outcome.cancelled = m_state->cancelled;
    outcome.elapsedMs = msSince(start);
    if (batch->finished < n) {
        // Cancel what is left; each reports back (cancelled) in a moment.
        const QVector<quint64> unfinished = m_state->inFlight;
        lock.unlock();
        for (const quint64 id : unfinished)
            m_engine.cancel(id);
        lock.lock();
        // Only what reached the engine can report back: never wait for the rest.
        m_state->changed.wait_for(lock, cancelGrace, [&] { return batch->finished >= submitted; });
    }
    m_state->inFlight.clear();
    const QString why = outcome.cancelled  ? u"cancelled"_s
                        : outcome.timedOut ? u"no answer before the deadline"_s
                                           : u"no result from the probe engine in time"_s;
    for (int i = 0; i < n; ++i) {
        if (batch->results.at(i)) {
            outcome.results.append(*batch->results.at(i));
            outcome.answeredAtMs.append(batch->answeredAtMs.at(i));
        } else {
            outcome.results.append(synthesised(sent.at(i), why));
            outcome.answeredAtMs.append(-1);
        }
    }
    return outcome;
}

} // namespace opsdeck::probes
