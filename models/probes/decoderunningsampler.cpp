#include "decoderunningsampler.h"

#include "expositionparser.h"
#include "loadsample.h"
#include "metricssampler.h"
#include "probeengine.h"

#include <QDateTime>
#include <algorithm>
#include <map>
#include <mutex>
#include <optional>

using namespace Qt::StringLiterals;

namespace opsdeck::probes {

namespace {

struct Tick
{
    double sum = 0;
    int answered = 0;
    bool failed = false;
};

} // namespace

struct DecodeRunningSampler::State
{
    struct PerDecode
    {
        Decode decode;
        bool useMetrics = false;
        bool busy = false;
        std::unique_ptr<MetricsSampler> metrics;
    };

    mutable std::mutex mutex;
    std::vector<PerDecode> decodes;
    std::map<qint64, Tick> ticks;
    QVector<RunningSample> samples;
    QVector<quint64> outstanding;
    bool anyMetrics = false;
    bool cancelled = false;
    QString lastError;
    int timeoutMs = 2000;
    SampleCallback onSample;

    /// Returns the sample completed by this answer, if any.
    std::optional<RunningSample> finishTick(qint64 offsetMs, std::optional<double> running)
    {
        Tick &tick = ticks[offsetMs];
        ++tick.answered;
        if (running)
            tick.sum += *running;
        else
            tick.failed = true;
        if (tick.answered < static_cast<int>(decodes.size()))
            return std::nullopt;
        std::optional<RunningSample> done;
        if (!tick.failed) {
            done = RunningSample{offsetMs, tick.sum};
            samples.append(*done);
            // Answers may come back out of order; the chart wants time order.
            std::sort(samples.begin(), samples.end(),
                      [](const RunningSample &a, const RunningSample &b) {
                          return a.offsetMs < b.offsetMs;
                      });
        }
        ticks.erase(offsetMs);
        return done;
    }

    /// The running requests in `result`, or nothing (and the decode switches
    /// to /metrics when /v1/loads did not give them).
    std::optional<double> read(PerDecode &decode, const ProbeResult &result)
    {
        const QString name = decode.decode.factory.path().entryService;
        if (!result.ok()) {
            lastError = u"%1: %2 on %3"_s.arg(name, failureOf(result), result.url.path());
        } else if (!decode.useMetrics) {
            if (const auto load = parseLoads(result.body))
                return load->running;
            lastError = u"%1: /v1/loads has no num_running_reqs"_s.arg(name);
        } else {
            const auto page = metrics::ExpositionParser::parse(
                std::string_view(result.body.constData(), static_cast<size_t>(result.body.size())));
            const MetricsSnapshot snapshot =
                decode.metrics->sample(page, QDateTime::currentMSecsSinceEpoch());
            if (const SeriesValue *running = snapshot.find(u"running"_s))
                return running->value;
            lastError = u"%1: /metrics has no running requests"_s.arg(name);
            return std::nullopt;
        }
        // A 404 or an answer without ranks: this decode has no usable
        // /v1/loads (an older SGLang, another engine); read its /metrics.
        if (!decode.useMetrics && !decode.decode.metricsUrl.isEmpty() && !result.timedOut) {
            decode.useMetrics = true;
            anyMetrics = true;
        }
        return std::nullopt;
    }
};

DecodeRunningSampler::DecodeRunningSampler(ProbeEngine &engine, QVector<Decode> decodes,
                                           int timeoutMs, SampleCallback onSample)
    : m_engine(engine), m_state(std::make_shared<State>())
{
    m_state->timeoutMs = timeoutMs;
    m_state->onSample = std::move(onSample);
    for (Decode &decode : decodes) {
        State::PerDecode per;
        per.metrics = std::make_unique<MetricsSampler>(decode.factory.path().entryService);
        per.decode = std::move(decode);
        m_state->decodes.push_back(std::move(per));
    }
}

DecodeRunningSampler::~DecodeRunningSampler()
{
    cancel();
}

void DecodeRunningSampler::sample(qint64 offsetMs)
{
    std::vector<ProbeRequest> requests;
    {
        std::lock_guard lock(m_state->mutex);
        if (m_state->cancelled || m_state->decodes.empty())
            return;
        for (const State::PerDecode &per : m_state->decodes)
            if (per.busy)
                return; // drop this tick: the previous answer of a decode is still due
        for (State::PerDecode &per : m_state->decodes) {
            ProbeRequest request = per.decode.factory.health(ConnectionMode::Fresh);
            request.url = per.useMetrics ? per.decode.metricsUrl
                                         : inventory::withPath(per.decode.factory.path().baseUrl,
                                                               u"/v1/loads"_s);
            request.timeoutMs = m_state->timeoutMs;
            request.label = u"batch-check running"_s;
            per.busy = true;
            requests.push_back(std::move(request));
        }
    }
    std::weak_ptr<State> weak = m_state;
    for (std::size_t i = 0; i < requests.size(); ++i) {
        const quint64 id =
            m_engine.submit(std::move(requests[i]), [weak, i, offsetMs](const ProbeResult &result) {
                const auto state = weak.lock();
                if (!state)
                    return;
                std::lock_guard lock(state->mutex);
                if (state->cancelled)
                    return;
                State::PerDecode &per = state->decodes[i];
                per.busy = false;
                const std::optional<RunningSample> done =
                    state->finishTick(offsetMs, state->read(per, result));
                // Under the lock: once cancel() returned, no sample is reported any more,
                // so the result's samples are exactly those reported.
                if (done && state->onSample)
                    state->onSample(*done);
            });
        std::lock_guard lock(m_state->mutex);
        m_state->outstanding.append(id);
    }
}

QVector<RunningSample> DecodeRunningSampler::samples() const
{
    std::lock_guard lock(m_state->mutex);
    return m_state->samples;
}

QString DecodeRunningSampler::source() const
{
    std::lock_guard lock(m_state->mutex);
    if (m_state->samples.isEmpty())
        return {};
    return m_state->anyMetrics ? u"/metrics"_s : u"/v1/loads"_s;
}

QString DecodeRunningSampler::lastError() const
{
    std::lock_guard lock(m_state->mutex);
    return m_state->lastError;
}

void DecodeRunningSampler::cancel()
{
    QVector<quint64> ids;
    {
        std::lock_guard lock(m_state->mutex);
        m_state->cancelled = true;
        ids.swap(m_state->outstanding);
    }
    for (const quint64 id : ids)
        m_engine.cancel(id);
}

} // namespace opsdeck::probes
