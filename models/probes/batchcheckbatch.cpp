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

double msSince(Clock::time_point start)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

BatchRequestOutcome outcomeOf(int index, const ProbeResult &r, double endOffsetMs)
{
    BatchRequestOutcome outcome;
    outcome.index = index;
    outcome.status = r.status;
    outcome.ttftMs = r.ttftMs;
    outcome.totalMs = r.totalMs;
    outcome.endOffsetMs = endOffsetMs;
    outcome.localPort = r.localPort;
    outcome.error = batchFailureOf(r);
    return outcome;
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
        return failureOf(result);
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

    QVector<ProbeRequest> requests;
    for (int i = 0; i < n; ++i) {
        ProbeRequest request =
            entry.chat(ConnectionMode::Fresh, result.model, true, m_settings.maxTokens);
        request.timeoutMs = deadlineMs + batchTimeoutMarginMs;
        request.label = u"batch-check %1/%2"_s.arg(i + 1).arg(n);
        requests.append(std::move(request));
    }
    // Built beforehand so that the N submissions follow each other at once;
    // the decode is sampled on a fixed grid from the submission until every
    // answer is in.
    ProbeGroup::Options options;
    options.deadline = Clock::now() + std::chrono::milliseconds(deadlineMs);
    options.tickInterval = std::chrono::milliseconds(std::max(10, m_settings.sampleIntervalMs));
    options.onTick = [&sampler](std::chrono::milliseconds offset) {
        sampler.sample(offset.count());
    };
    const auto requestFinished = m_callbacks.requestFinished;
    const Clock::time_point start = Clock::now();
    options.onAnswer = [start, n, requestFinished](int i, const ProbeResult &r, int answered) {
        if (requestFinished)
            requestFinished(outcomeOf(i, r, msSince(start)), answered, n);
    };
    const ProbeGroup::Outcome answers = m_group.runAll(std::move(requests), options);
    sampler.cancel();

    result.timedOut = answers.timedOut;
    result.cancelled = answers.cancelled;
    result.wallS = answers.elapsedMs / 1000.0;
    for (int i = 0; i < n; ++i) {
        const double answeredAt = answers.answeredAtMs.at(i);
        BatchRequestOutcome outcome =
            outcomeOf(i, answers.results.at(i), answeredAt >= 0 ? answeredAt : answers.elapsedMs);
        if (answeredAt < 0 && result.timedOut)
            outcome.error = u"no answer before the %1 s deadline"_s.arg(deadlineMs / 1000);
        result.requests.append(outcome);
    }
    if (!result.timedOut && !result.cancelled) {
        // Wall time ends at the last answer, not at the wait's wake-up.
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
