// BatchCheck's batch phase (batchcheck.h, steps 4 and 5): N requests at once
// while the decode's running requests are sampled, then the verdict.
#include "batchcheckshared.h"
#include "decoderunningsampler.h"
#include "probeengine.h"
#include "proberequestfactory.h"

#include <algorithm>

using namespace Qt::StringLiterals;
using Clock = std::chrono::steady_clock;

namespace opsdeck::probes {

namespace {

constexpr int minDeadlineMs = 60'000;
constexpr auto cancelGrace = std::chrono::seconds(3); // for cancelled transfers to report

double msSince(Clock::time_point start)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

} // namespace

QString batchFailureOf(const ProbeResult &result)
{
    if (result.cancelled)
        return u"cancelled"_s;
    if (result.timedOut)
        return u"timed out after %1 ms"_s.arg(result.totalMs, 0, 'f', 0);
    if (!result.error.isEmpty())
        return result.error;
    if (result.status < 200 || result.status >= 300)
        return u"HTTP %1"_s.arg(result.status);
    if (result.kind == ProbeKind::ChatStream && result.ttftMs < 0)
        return u"no content token in the answer"_s;
    return {};
}

void BatchCheck::runBatch(const ProbeRequestFactory &entry, const QVector<ProbePath> &paths,
                          BatchCheckResult &result)
{
    const int n = m_settings.n;
    const int deadlineMs =
        m_settings.deadlineMs > 0
            ? std::min(m_settings.deadlineMs, batchMaxDeadlineMs - batchTimeoutMarginMs)
            : static_cast<int>(std::clamp(4.0 * result.singleS * 1000.0 * n, double(minDeadlineMs),
                                          double(batchMaxDeadlineMs - batchTimeoutMarginMs)));

    // The decodes' running requests, each through its own "decode direct" path.
    QVector<DecodeRunningSampler::Decode> decodes;
    const inventory::Cluster *cluster = m_inventory.cluster(m_cluster);
    for (const QString &name : cluster->decode) {
        const auto path = std::find_if(paths.cbegin(), paths.cend(), [&](const ProbePath &p) {
            return p.entryService == name && p.depth == 2;
        });
        const inventory::Service *service = m_inventory.service(name);
        if (path != paths.cend() && service)
            decodes.append({factoryFor(*path), service->metricsUrl()});
    }
    ProbeEngine samplerEngine(ProbeEngine::Limits{8, 600});
    DecodeRunningSampler sampler(samplerEngine, decodes, 2000, m_callbacks.sampled);

    {
        std::lock_guard lock(m_shared->mutex);
        m_shared->outcomes = QVector<std::optional<BatchRequestOutcome>>(n);
        m_shared->finished = 0;
        m_shared->reported = 0;
        m_shared->inFlight.clear();
    }
    QVector<ProbeRequest> requests;
    for (int i = 0; i < n; ++i) {
        ProbeRequest request =
            entry.chat(ConnectionMode::Fresh, result.model, true, m_settings.maxTokens);
        request.timeoutMs = deadlineMs + batchTimeoutMarginMs;
        request.label = u"batch-check %1/%2"_s.arg(i + 1).arg(n);
        requests.append(std::move(request));
    }
    // Built beforehand so that the N submissions follow each other at once.
    const Clock::time_point start = Clock::now();
    const std::weak_ptr<Shared> weak = m_shared;
    const auto requestFinished = m_callbacks.requestFinished;
    for (int i = 0; i < n; ++i) {
        const quint64 id = m_engine.submit(
            std::move(requests[i]), [weak, i, n, start, requestFinished](const ProbeResult &r) {
                const auto shared = weak.lock();
                if (!shared)
                    return;
                BatchRequestOutcome outcome;
                outcome.index = i;
                outcome.status = r.status;
                outcome.ttftMs = r.ttftMs;
                outcome.totalMs = r.totalMs;
                outcome.endOffsetMs = msSince(start);
                outcome.localPort = r.localPort;
                outcome.error = batchFailureOf(r);
                int reported = 0;
                {
                    std::lock_guard lock(shared->mutex);
                    if (shared->outcomes.size() != n || shared->outcomes[i])
                        return;
                    shared->outcomes[i] = outcome;
                    reported = ++shared->reported;
                }
                // Before `finished` counts it: run() returns only after the
                // callback of every request it reports has returned.
                if (requestFinished)
                    requestFinished(outcome, reported, n);
                {
                    std::lock_guard lock(shared->mutex);
                    ++shared->finished;
                }
                shared->changed.notify_all();
            });
        std::lock_guard lock(m_shared->mutex);
        m_shared->inFlight.append(id);
    }

    // Sample on a fixed grid from the submission until every answer is in.
    const Clock::time_point deadline = start + std::chrono::milliseconds(deadlineMs);
    const auto interval = std::chrono::milliseconds(std::max(10, m_settings.sampleIntervalMs));
    Clock::time_point nextSample = start;
    std::unique_lock lock(m_shared->mutex);
    while (m_shared->finished < n && !m_shared->cancelled) {
        const Clock::time_point now = Clock::now();
        if (now >= deadline) {
            result.timedOut = true;
            break;
        }
        if (now >= nextSample) {
            const qint64 offset =
                std::chrono::duration_cast<std::chrono::milliseconds>(nextSample - start).count();
            lock.unlock();
            sampler.sample(offset);
            lock.lock();
            while (nextSample <= now)
                nextSample += interval;
            continue;
        }
        m_shared->changed.wait_until(lock, std::min(nextSample, deadline));
    }
    result.cancelled = m_shared->cancelled;
    result.wallS = msSince(start) / 1000.0;
    const QVector<quint64> unfinished = m_shared->inFlight;
    lock.unlock();
    sampler.cancel();

    if (m_shared->finished < n) {
        // Cancel what is left; each reports back (cancelled) and stays in the result.
        for (const quint64 id : unfinished)
            m_engine.cancel(id);
        lock.lock();
        m_shared->changed.wait_for(lock, cancelGrace, [&] { return m_shared->finished >= n; });
        lock.unlock();
    }
    lock.lock();
    for (int i = 0; i < n; ++i) {
        if (m_shared->outcomes[i]) {
            result.requests.append(*m_shared->outcomes[i]);
            continue;
        }
        BatchRequestOutcome lost;
        lost.index = i;
        lost.endOffsetMs = result.wallS * 1000.0;
        lost.error = result.timedOut
                         ? u"no answer before the %1 s deadline"_s.arg(deadlineMs / 1000)
                         : u"cancelled"_s;
        result.requests.append(lost);
    }
    m_shared->inFlight.clear();
    lock.unlock();
    if (!result.timedOut && !result.cancelled) {
        // Wall time ends at the last answer, not at the loop's wake-up.
        double lastMs = 0;
        for (const BatchRequestOutcome &outcome : std::as_const(result.requests))
            lastMs = std::max(lastMs, outcome.endOffsetMs);
        result.wallS = lastMs / 1000.0;
    }
    result.samples = sampler.samples();
    result.samplesSource = sampler.source();
    if (result.samples.isEmpty() && !sampler.lastError().isEmpty())
        result.reason = sampler.lastError(); // conclude() words it into the error
}

void BatchCheck::conclude(BatchCheckResult &result) const
{
    result.failures = static_cast<int>(
        std::count_if(result.requests.cbegin(), result.requests.cend(),
                      [](const BatchRequestOutcome &outcome) { return !outcome.ok(); }));
    for (const RunningSample &sample : std::as_const(result.samples))
        result.peakRunning = std::max(result.peakRunning, sample.running);
    const QString samplingError = result.reason;
    result.reason.clear();
    if (result.cancelled) {
        result.error = u"cancelled"_s;
    } else if (result.failures == result.n && result.n > 0) {
        result.error = u"every request of the batch failed, the first: %1"_s.arg(
            result.requests.first().error);
        result.pathFailed = true;
    } else if (result.samples.isEmpty()) {
        result.error = u"the decode's running requests could not be read%1"_s.arg(
            samplingError.isEmpty() ? QString() : u": "_s + samplingError);
    }
    if (!result.error.isEmpty()) {
        result.reason = result.error;
        return;
    }
    result.verdict = batchVerdict(result.n, result.peakRunning, result.wallS, result.singleS);
    result.reason = batchVerdictReason(result.n, result.peakRunning, result.wallS, result.singleS);
    if (result.failures > 0)
        result.reason += u"; %1 of %2 requests failed"_s.arg(result.failures).arg(result.n);
}

} // namespace opsdeck::probes
