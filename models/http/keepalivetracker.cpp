#include "keepalivetracker.h"

#include <algorithm>

namespace opsdeck::probes {

namespace {

QString seconds(double s)
{
    return QString::number(s, 'f', 1);
}

} // namespace

QString KeepAliveTracker::idleWindow(const Origin &origin)
{
    // Only a bracket is evidence: reuse worked after A s and failed after B s.
    if (origin.longestReusedGapS < 0 || origin.shortestStaleGapS < 0 ||
        origin.longestReusedGapS >= origin.shortestStaleGapS)
        return {};
    return QStringLiteral("; the server's keep-alive idle window is between %1 and %2 s")
        .arg(seconds(origin.longestReusedGapS), seconds(origin.shortestStaleGapS));
}

void KeepAliveTracker::forget(const QString &origin)
{
    const auto it = m_origins.find(origin);
    if (it != m_origins.end())
        it->localPort = 0;
}

void KeepAliveTracker::classify(const QString &origin, Clock::time_point start,
                                Clock::time_point end, bool keptOpen, ProbeResult &result)
{
    Origin &known = m_origins[origin];
    const bool answered = result.status > 0 && result.error.isEmpty() && !result.cancelled;
    const double idleS = std::chrono::duration<double>(start - known.lastUsed).count();
    result.connectionReused = false;
    if (known.localPort == 0) {
        if (answered && result.note.isEmpty())
            result.note = QStringLiteral("warm-up: opened the keep-alive connection");
    } else if (result.newConnections == 0 && result.localPort == known.localPort) {
        result.connectionReused = true;
        if (answered) {
            known.longestReusedGapS = std::max(known.longestReusedGapS, idleS);
            if (result.note.isEmpty())
                result.note = QStringLiteral("reused after %1 s idle").arg(seconds(idleS));
        }
    } else if (result.newConnections > 0) {
        result.staleKeepAlive = true;
        result.staleIdleS = idleS;
        known.shortestStaleGapS =
            known.shortestStaleGapS < 0 ? idleS : std::min(known.shortestStaleGapS, idleS);
        const QString stale =
            QStringLiteral("stale keep-alive replaced: the server closed the connection after "
                           "it sat idle %1 s")
                .arg(seconds(idleS)) +
            idleWindow(known);
        result.note = result.note.isEmpty() ? stale : stale + QStringLiteral("; ") + result.note;
    } else if (result.localPort > 0) {
        // curl took another cached connection than the one this origin kept.
        result.note = QStringLiteral("reused another connection (local port %1, not %2)")
                          .arg(result.localPort)
                          .arg(known.localPort);
    }
    // A failed, cut or closed connection is gone: the next Reused probe warms up again.
    if (answered && keptOpen && result.localPort > 0) {
        known.localPort = result.localPort;
        known.lastUsed = end;
    } else {
        known.localPort = 0;
    }
}

} // namespace opsdeck::probes
