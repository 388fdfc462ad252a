// The staged verification's keep-alive stage: what a client on a kept
// connection sees after thinking for a while, through the client's own path.
#include "stagedverification.h"

#include <algorithm>

using namespace Qt::StringLiterals;

namespace opsdeck::probes {

namespace {

// A kept connection may be a little slower than a new one (a cold worker, a
// longer route), never by seconds: 3x, and at least a second of slack.
constexpr double allowedFactor = 3.0;
constexpr double allowedExtraMs = 1000.0;

double allowedMs(double freshMs)
{
    return std::max(allowedFactor * freshMs, freshMs + allowedExtraMs);
}

} // namespace

bool StagedVerification::runKeepAlive(const ProbePath &path, VerificationStage &stage)
{
    ProbeRequestFactory factory = factoryFor(path);
    factory.setTimeoutOverrideMs(m_settings.probeTimeoutMs);
    if (!factory.problem().isEmpty()) {
        stage.detail = factory.problem();
        return false;
    }
    const auto one = [&](ConnectionMode mode) -> std::optional<ProbeResult> {
        const QVector<ProbeResult> results = runAll({factory.chat(mode, m_model)});
        if (results.isEmpty())
            return std::nullopt;
        return results.first();
    };
    const QString where = u"%1 (%2)"_s.arg(path.name, path.entryService);
    const std::optional<ProbeResult> fresh = one(ConnectionMode::Fresh);
    const std::optional<ProbeResult> warmUp = fresh ? one(ConnectionMode::Reused) : std::nullopt;
    if (!fresh || !warmUp || !idle(m_settings.keepAliveIdleGapS)) {
        factory.wipe();
        stage.detail = u"cancelled"_s;
        return false;
    }
    if (!fresh->ok() || !warmUp->ok()) {
        factory.wipe();
        stage.detail =
            u"%1: the %2 chat failed: %3"_s.arg(where, fresh->ok() ? u"warm-up"_s : u"fresh"_s,
                                                failureOf(fresh->ok() ? *warmUp : *fresh));
        return false;
    }
    const std::optional<ProbeResult> reused = one(ConnectionMode::Reused);
    factory.wipe();
    if (!reused || reused->cancelled) {
        stage.detail = u"%1: fresh %2; cancelled before the reused chat answered"_s.arg(
            where, totalTimeText(*fresh));
        return false;
    }
    // The reference is the fastest new connection seen: this path's, or the
    // end-to-end stage's chat (the router directly) — behind a pooling proxy
    // even a new client connection rides a kept upstream one and stalls.
    const double reference =
        m_endToEndMs > 0 ? std::min(fresh->totalMs, m_endToEndMs) : fresh->totalMs;
    const double bound = allowedMs(reference);
    const QString numbers = u"%1: fresh %2, reused after %3 s idle %4 (allowed %5 ms)"_s
                                .arg(where, totalTimeText(*fresh))
                                .arg(m_settings.keepAliveIdleGapS, 0, 'g', 3)
                                .arg(totalTimeText(*reused))
                                .arg(bound, 0, 'f', 0);
    if (fresh->totalMs > bound) {
        stage.detail =
            numbers + u": even a new connection through %1 took %2 while the end-to-end chat "
                      "answered in %3 ms — %1 likely forwards over a kept upstream connection "
                      "that stalls; see the probe lab or `opsdeck-cli diagnose`"_s
                          .arg(path.entryService, totalTimeText(*fresh))
                          .arg(m_endToEndMs, 0, 'f', 0);
        return false;
    }
    if (reused->staleKeepAlive) {
        // The hop closed the idle connection and a new one was used: a client
        // would reconnect the same way, so this is no stall (and says so).
        stage.detail =
            numbers + u"; the idle connection had been closed by %1 and was replaced"_s.arg(
                          path.entryService);
        return reused->ok() && reused->totalMs <= bound;
    }
    if (reused->timedOut || reused->totalMs > bound) {
        stage.detail = numbers + u": a client on a kept connection stalls here while a new one "
                                 "answers — see the probe lab or `opsdeck-cli diagnose`"_s;
        return false;
    }
    if (!reused->ok()) {
        stage.detail = numbers + u": "_s + failureOf(*reused);
        return false;
    }
    stage.detail = numbers;
    return true;
}

} // namespace opsdeck::probes
