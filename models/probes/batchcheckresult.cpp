#include "batchcheckresult.h"

#include <algorithm>
#include <cmath>

namespace opsdeck::probes {

double BatchCheckResult::ttftPercentileMs(double q) const
{
    QVector<double> ttfts;
    for (const BatchRequestOutcome &request : requests)
        if (request.ttftMs >= 0)
            ttfts.append(request.ttftMs);
    if (ttfts.isEmpty())
        return -1;
    std::sort(ttfts.begin(), ttfts.end());
    // Nearest rank: the smallest value with at least q of the values at or below it.
    const double rank = std::ceil(std::clamp(q, 0.0, 1.0) * ttfts.size());
    const qsizetype index = std::max<qsizetype>(0, static_cast<qsizetype>(rank) - 1);
    return ttfts[std::min(index, ttfts.size() - 1)];
}

QString BatchCheckResult::summary() const
{
    if (verdict == BatchVerdict::None)
        return QStringLiteral("batch check %1: not measured: %2")
            .arg(cluster, error.isEmpty() ? QStringLiteral("no verdict") : error);
    QString text = QStringLiteral("batch check %1: %2, %3")
                       .arg(cluster, batchVerdictName(verdict),
                            batchVerdictReason(n, peakRunning, wallS, singleS));
    if (failures > 0)
        text += QStringLiteral("; %1 of %2 requests failed").arg(failures).arg(n);
    return text;
}

} // namespace opsdeck::probes
