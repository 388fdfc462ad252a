#include "batchverdict.h"

#include <algorithm>
#include <cmath>

namespace opsdeck::probes {

namespace {

// Batching is judged by how many ran at once and by the speed-up over running
// them one after another: a batch whose decode step grows with its size (every
// real engine) is still batched when 64 requests take 3x one request's time.
constexpr double batchedRunningShare = 0.75;     // of N: "they all ran at once"
constexpr double batchedSpeedUp = 2.0;           // x: clearly faster than one after another
constexpr double serializedRunning = 2.0;        // requests
constexpr double serializedSpeedUp = 1.0 / 0.75; // x: no faster than one after another

double neededSpeedUp(int n)
{
    // Two requests cannot be more than 2x faster; ask 0.75 of the ideal there.
    return std::min(batchedSpeedUp, batchedRunningShare * n);
}

bool batched(int n, double peakRunning, double speedUp)
{
    return peakRunning >= batchedRunningShare * n && speedUp >= neededSpeedUp(n);
}

bool serializedByRunning(double peakRunning)
{
    return peakRunning <= serializedRunning;
}

bool serializedBySpeedUp(double speedUp)
{
    return speedUp <= serializedSpeedUp;
}

QString number(double value)
{
    return QString::number(value, 'g', 4);
}

// Cut, not rounded: 1.96x shown as "2.0x" would read as meeting the 2x criterion it missed.
QString speedUpText(double speedUp)
{
    if (speedUp >= 10)
        return QString::number(std::floor(speedUp), 'f', 0);
    return QString::number(std::floor(speedUp * 10) / 10, 'f', 1);
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

double batchSpeedUp(int n, double wallS, double singleS)
{
    if (n < 1 || !(singleS > 0) || !(wallS > 0))
        return 0;
    return n * singleS / wallS;
}

BatchVerdict batchVerdict(int n, double peakRunning, double wallS, double singleS)
{
    if (n < 1 || !(singleS > 0) || !(wallS > 0))
        return BatchVerdict::None;
    const double speedUp = batchSpeedUp(n, wallS, singleS);
    if (batched(n, peakRunning, speedUp))
        return BatchVerdict::Batched;
    if (serializedByRunning(peakRunning) || serializedBySpeedUp(speedUp))
        return BatchVerdict::Serialized;
    return BatchVerdict::Partial;
}

QString batchVerdictReason(int n, double peakRunning, double wallS, double singleS)
{
    const BatchVerdict verdict = batchVerdict(n, peakRunning, wallS, singleS);
    if (verdict == BatchVerdict::None)
        return QStringLiteral("not measured: %1 requests, single request %2")
            .arg(n)
            .arg(singleS > 0 ? QStringLiteral("%1 s").arg(singleS, 0, 'f', 2)
                             : QStringLiteral("without a time"));
    const double speedUp = batchSpeedUp(n, wallS, singleS);
    const QString measured = QStringLiteral("peak %1 of %2 running; %2 requests in %3 s, ")
                                 .arg(number(peakRunning))
                                 .arg(n)
                                 .arg(wallS, 0, 'f', 2);
    const QString pace =
        serializedBySpeedUp(speedUp)
            ? QStringLiteral("%1× — no faster than one after another (single %2 s)")
                  .arg(speedUpText(speedUp))
                  .arg(singleS, 0, 'f', 2)
            : QStringLiteral("%1× faster than one after another (single %2 s)")
                  .arg(speedUpText(speedUp))
                  .arg(singleS, 0, 'f', 2);
    switch (verdict) {
    case BatchVerdict::Batched:
        return measured + pace;
    case BatchVerdict::Serialized:
        return measured + pace + QStringLiteral(": the decode ran them one or two at a time");
    case BatchVerdict::Partial:
        return measured + pace +
               QStringLiteral(": fewer than %1 ran at once (an admission limit such as "
                              "--max-running-requests, or a full KV pool)")
                   .arg(number(batchedRunningShare * n));
    case BatchVerdict::None:
        break;
    }
    return {};
}

} // namespace opsdeck::probes
