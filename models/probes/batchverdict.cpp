#include "batchverdict.h"

namespace opsdeck::probes {

namespace {

// The thresholds (issue 4, "Batch check").
constexpr double batchedRunningShare = 0.75; // of N
constexpr double batchedWallFactor = 2.0;    // x single
constexpr double serializedRunning = 2.0;    // requests
constexpr double serializedWallShare = 0.75; // x N x single

bool batched(int n, double peakRunning, double wallS, double singleS)
{
    return peakRunning >= batchedRunningShare * n && wallS <= batchedWallFactor * singleS;
}

bool serializedByRunning(double peakRunning)
{
    return peakRunning <= serializedRunning;
}

bool serializedByWall(int n, double wallS, double singleS)
{
    return wallS >= serializedWallShare * n * singleS;
}

QString number(double value)
{
    return QString::number(value, 'g', 4);
}

} // namespace

QString batchVerdictName(BatchVerdict verdict)
{
    switch (verdict) {
    case BatchVerdict::Batched:
        return QStringLiteral("BATCHED");
    case BatchVerdict::Serialized:
        return QStringLiteral("SERIALIZED");
    case BatchVerdict::Partial:
        return QStringLiteral("PARTIAL");
    case BatchVerdict::None:
        break;
    }
    return QStringLiteral("NONE");
}

BatchVerdict batchVerdict(int n, double peakRunning, double wallS, double singleS)
{
    if (n < 1 || !(singleS > 0))
        return BatchVerdict::None;
    if (batched(n, peakRunning, wallS, singleS))
        return BatchVerdict::Batched;
    if (serializedByRunning(peakRunning) || serializedByWall(n, wallS, singleS))
        return BatchVerdict::Serialized;
    return BatchVerdict::Partial;
}

QString batchVerdictReason(int n, double peakRunning, double wallS, double singleS)
{
    const BatchVerdict verdict = batchVerdict(n, peakRunning, wallS, singleS);
    const QString running = QStringLiteral("peak running %1").arg(number(peakRunning));
    const QString runningLimit =
        QStringLiteral("%1 (0.75 x N %2)").arg(number(batchedRunningShare * n)).arg(n);
    const QString wall = QStringLiteral("wall %1 s").arg(wallS, 0, 'f', 2);
    const QString twiceSingle = QStringLiteral("%1 s (2 x single %2 s)")
                                    .arg(batchedWallFactor * singleS, 0, 'f', 2)
                                    .arg(singleS, 0, 'f', 2);
    const QString serialWall = QStringLiteral("%1 s (0.75 x N %2 x single %3 s)")
                                   .arg(serializedWallShare * n * singleS, 0, 'f', 2)
                                   .arg(n)
                                   .arg(singleS, 0, 'f', 2);
    switch (verdict) {
    case BatchVerdict::None:
        return QStringLiteral("no verdict: N %1, single %2 s").arg(n).arg(singleS, 0, 'f', 2);
    case BatchVerdict::Batched:
        return QStringLiteral("BATCHED: %1 >= %2 and %3 <= %4")
            .arg(running, runningLimit, wall, twiceSingle);
    case BatchVerdict::Serialized:
        if (serializedByRunning(peakRunning))
            return QStringLiteral("SERIALIZED: %1 <= 2 (%2)").arg(running, wall);
        return QStringLiteral("SERIALIZED: %1 >= %2 (%3)").arg(wall, serialWall, running);
    case BatchVerdict::Partial:
        break;
    }
    return QStringLiteral("PARTIAL: %1 (BATCHED needs >= %2 and %3 <= %4; SERIALIZED needs "
                          "running <= 2 or wall >= %5)")
        .arg(running, runningLimit, wall, twiceSingle, serialWall);
}

} // namespace opsdeck::probes
