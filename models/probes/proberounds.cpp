#include "proberounds.h"

#include "loadsample.h"
#include "probeengine.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>

using namespace Qt::StringLiterals;

namespace opsdeck::probes {

// The idle wait between rounds, which stop() wakes.
struct ProbeRounds::Sync
{
    std::mutex mutex;
    std::condition_variable changed;
};

namespace {

QVector<ProbePath> pathsOf(const QVector<ProbeRequestFactory> &factories)
{
    QVector<ProbePath> paths;
    for (const ProbeRequestFactory &factory : factories)
        paths << factory.path();
    return paths;
}

ProbeRounds::Settings bounded(ProbeRounds::Settings settings)
{
    settings.rounds = std::clamp(settings.rounds, 1, ProbeRounds::kMaxRounds);
    settings.idleGapS = std::clamp(settings.idleGapS, 0.0, ProbeRounds::kMaxIdleGapS);
    settings.pauseS = std::clamp(settings.pauseS, 0.0, 3600.0);
    if (settings.timeoutMs <= 0)
        settings.timeoutMs = ProbeRounds::defaultTimeoutMs(settings.idleGapS);
    settings.timeoutMs = std::clamp(settings.timeoutMs, 1, 600'000);
    return settings;
}

bool servesChatAlone(inventory::Role role)
{
    return role != inventory::Role::Prefill && role != inventory::Role::Decode;
}

} // namespace

ProbeRounds::ProbeRounds(ProbeEngine &engine, QVector<ProbeRequestFactory> factories,
                         Settings settings)
    : m_group(engine), m_factories(std::move(factories)), m_settings(bounded(settings)),
      m_diagnoser(pathsOf(m_factories), m_settings.stall), m_chat(m_factories.size(), false),
      m_sync(std::make_shared<Sync>())
{
    for (ProbeRequestFactory &factory : m_factories)
        factory.setTimeoutOverrideMs(m_settings.timeoutMs);
}

ProbeRounds::~ProbeRounds()
{
    for (ProbeRequestFactory &factory : m_factories)
        factory.wipe();
}

int ProbeRounds::defaultTimeoutMs(double idleGapS)
{
    return std::clamp(static_cast<int>(3 * idleGapS * 1000), 2'000, 60'000);
}

void ProbeRounds::stop()
{
    {
        std::lock_guard lock(m_sync->mutex);
        m_stop = true;
    }
    m_sync->changed.notify_all();
    m_group.cancel();
}

QString ProbeRounds::probeName(int index) const
{
    return m_chat.value(index) ? u"chat"_s : u"health"_s;
}

QString ProbeRounds::problem(int index) const
{
    return index >= 0 && index < m_factories.size() ? m_factories.at(index).problem() : QString();
}

ProbeRequest ProbeRounds::request(int index, ConnectionMode mode) const
{
    const ProbeRequestFactory &factory = m_factories.at(index);
    return m_chat.at(index) ? factory.chat(mode, m_model) : factory.health(mode);
}

QVector<ProbeResult> ProbeRounds::runBatch(const QVector<ProbeRequest> &requests)
{
    return m_group.runAll(requests).results;
}

void ProbeRounds::lookUpModel()
{
    // Deepest first: an engine answers /v1/models itself, without a router
    // that may not have seen a healthy worker yet.
    QVector<int> order;
    for (int i = 0; i < m_factories.size(); ++i)
        if (m_factories.at(i).problem().isEmpty())
            order << i;
    std::stable_sort(order.begin(), order.end(), [this](int a, int b) {
        return m_factories.at(a).path().depth > m_factories.at(b).path().depth;
    });
    for (int index : order) {
        if (m_stop)
            return;
        const ProbeResult result =
            runBatch({m_factories.at(index).models(ConnectionMode::Fresh)}).first();
        if (m_onResult)
            m_onResult(0, index, result);
        m_model = result.ok() ? ChatApi::modelFromModels(result.body) : QString();
        if (!m_model.isEmpty())
            break;
    }
    for (int i = 0; i < m_factories.size(); ++i)
        m_chat[i] = m_settings.probe == Probe::Auto && !m_model.isEmpty() &&
                    servesChatAlone(m_factories.at(i).path().entryRole);
}

void ProbeRounds::warmUp(const QVector<int> &paths)
{
    QVector<ProbeRequest> requests;
    for (int index : paths)
        requests << request(index, ConnectionMode::Reused);
    const QVector<ProbeResult> results = runBatch(requests);
    for (int i = 0; i < paths.size() && m_onResult; ++i)
        m_onResult(0, paths.at(i), results.at(i));
}

bool ProbeRounds::waitIdleGap()
{
    return wait(m_settings.idleGapS);
}

bool ProbeRounds::wait(double seconds)
{
    std::unique_lock lock(m_sync->mutex);
    return !m_sync->changed.wait_for(lock, std::chrono::duration<double>(seconds),
                                     [this] { return m_stop.load(); });
}

// Read before the round's probes, so that our own tiny chat is not counted
// as the engines' work.
void ProbeRounds::sampleDecodeLoad(int round, const QVector<int> &probed)
{
    QVector<ProbeRequest> requests;
    for (int index : probed)
        if (m_factories.at(index).path().entryRole == inventory::Role::Decode)
            requests << m_factories.at(index).get(ConnectionMode::Fresh, u"/v1/loads"_s);
    if (requests.isEmpty())
        return;
    double running = 0;
    double waiting = 0;
    for (const ProbeResult &result : runBatch(requests)) {
        const std::optional<LoadSample> load = result.ok() ? parseLoads(result.body) : std::nullopt;
        if (!load)
            return; // a decode that did not say: no claim about the engines
        running += load->running;
        waiting += load->waiting;
    }
    m_diagnoser.addDecodeLoad(round, running, waiting);
}

std::optional<Diagnosis> ProbeRounds::run()
{
    m_roundsRun = 0;
    QVector<int> probed;
    for (int i = 0; i < m_factories.size(); ++i) {
        if (m_factories.at(i).problem().isEmpty()) {
            probed << i;
        } else if (m_onResult) {
            ProbeResult refused;
            refused.label = m_factories.at(i).path().name;
            refused.error = m_factories.at(i).problem();
            m_onResult(0, i, refused);
        }
    }
    lookUpModel();
    if (!m_stop)
        warmUp(probed);
    for (int round = 1; round <= m_settings.rounds && !m_stop; ++round) {
        if (round > 1 && m_settings.pauseS > 0) {
            if (!wait(m_settings.pauseS))
                break;
            warmUp(probed);
        }
        if (!waitIdleGap())
            break;
        sampleDecodeLoad(round, probed);
        QVector<ProbeRequest> requests;
        for (int index : probed)
            requests << request(index, ConnectionMode::Reused)
                     << request(index, ConnectionMode::Fresh);
        const QVector<ProbeResult> results = runBatch(requests);
        if (m_stop)
            break;
        QVector<int> rewarm;
        for (int i = 0; i < probed.size(); ++i) {
            const ProbeResult &reused = results.at(2 * i);
            const ProbeResult &fresh = results.at(2 * i + 1);
            if (m_onResult) {
                m_onResult(round, probed.at(i), reused);
                m_onResult(round, probed.at(i), fresh);
            }
            m_diagnoser.add(round, probed.at(i), fresh, reused);
            // A reused probe that did not answer took its connection with it.
            if (!reused.ok())
                rewarm << probed.at(i);
        }
        m_roundsRun = round;
        if (m_onRound)
            m_onRound(round, m_diagnoser);
        if (!rewarm.isEmpty() && round < m_settings.rounds && m_settings.pauseS <= 0)
            warmUp(rewarm);
    }
    return m_diagnoser.diagnosis();
}

std::optional<ProbeResult> ProbeRounds::measureStall(Diagnosis &diagnosis, double deadlineS)
{
    int index = -1;
    for (int i = 0; i < m_factories.size(); ++i)
        if (m_factories.at(i).path().name == diagnosis.pathName)
            index = i;
    if (index < 0 || !m_factories.at(index).problem().isEmpty() || m_stop)
        return std::nullopt;
    // A kept connection that already served a request, idle as long as in the
    // rounds: the shape that stalled.
    warmUp({index});
    if (!waitIdleGap())
        return std::nullopt;
    ProbeRequest probe = request(index, ConnectionMode::Reused);
    probe.timeoutMs = static_cast<int>(std::clamp(deadlineS, 1.0, 3600.0) * 1000);
    const QVector<ProbeResult> results = runBatch({probe});
    if (results.isEmpty() || m_stop)
        return std::nullopt;
    const ProbeResult &result = results.first();
    if (m_onResult)
        m_onResult(m_roundsRun + 1, index, result);
    if (result.timedOut)
        diagnosis.stallLowerBoundS = probe.timeoutMs / 1000.0;
    else if (result.ok())
        diagnosis.stallS = result.totalMs / 1000.0;
    return result;
}

} // namespace opsdeck::probes
