#pragma once

#include "probe.h"

#include <QHash>
#include <QString>
#include <chrono>

namespace opsdeck::probes {

/// Remembers, per origin (scheme://host:port plus proxy), the kept-alive
/// connection the last Reused probe left open — its local port and when it
/// was last used — and classifies each Reused probe from curl's counters:
///  - no connection known: a warm-up (it opens the connection);
///  - curl opened none (CURLINFO_NUM_CONNECTS 0) and the local port is the
///    remembered one: the connection was reused;
///  - curl opened one although a connection was kept: the server closed the
///    idle connection and curl replaced it ("stale keep-alive replaced") —
///    not a failure of the service and not a reused-latency sample.
/// From the longest idle gap after which reuse worked and the shortest after
/// which the connection was gone it estimates the server's idle window.
///
/// Thread: the probe engine's thread only.
class KeepAliveTracker
{
public:
    using Clock = std::chrono::steady_clock;

    /// Sets connectionReused, staleKeepAlive, staleIdleS and the note of a
    /// finished Reused probe, then remembers (or forgets) its connection.
    /// `start`/`end`: when the transfer began and ended; `keptOpen`: false when
    /// the server announced `Connection: close`.
    void classify(const QString &origin, Clock::time_point start, Clock::time_point end,
                  bool keptOpen, ProbeResult &result);

    /// The origin's connection is gone (its probe was cancelled mid-transfer,
    /// which closes it): the next Reused probe is a warm-up, not a stale case.
    void forget(const QString &origin);

private:
    struct Origin
    {
        int localPort = 0; ///< 0: no kept-alive connection known
        Clock::time_point lastUsed;
        double longestReusedGapS = -1; ///< -1: none seen
        double shortestStaleGapS = -1; ///< -1: none seen
    };

    static QString idleWindow(const Origin &origin);

    QHash<QString, Origin> m_origins;
};

} // namespace opsdeck::probes
