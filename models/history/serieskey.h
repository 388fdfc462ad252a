#pragma once

#include <QHash>
#include <QString>

namespace opsdeck::history {

/// Names one recorded series: a service of the inventory and a series key
/// (probes::SeriesValue::key, or "health_latency_ms", "up", "live_running",
/// "live_waiting").
struct SeriesKey
{
    QString service;
    QString key;

    friend bool operator==(const SeriesKey &a, const SeriesKey &b)
    {
        return a.service == b.service && a.key == b.key;
    }
};

inline size_t qHash(const SeriesKey &k, size_t seed = 0)
{
    return qHashMulti(seed, k.service, k.key);
}

} // namespace opsdeck::history
