#include "seriessources.h"

void SeriesSources::note(const opsdeck::probes::MetricsSnapshot &snapshot)
{
    if (!snapshot.error.isEmpty())
        return;
    for (const opsdeck::probes::SeriesValue &value : snapshot.values)
        m_entries.insert({snapshot.service, value.key}, Entry{value, snapshot.timeMs});
}

void SeriesSources::noteLoad(const opsdeck::probes::LoadSample &sample)
{
    const QString unit = QStringLiteral("requests");
    m_entries.insert({sample.service, QStringLiteral("live_running")},
                     Entry{{QStringLiteral("live_running"), unit, sample.running, sample.timeMs,
                            sample.source, QString(), QString(), QString()},
                           sample.timeMs});
    m_entries.insert({sample.service, QStringLiteral("live_waiting")},
                     Entry{{QStringLiteral("live_waiting"), unit, sample.waiting, sample.timeMs,
                            sample.source, QString(), QString(), QString()},
                           sample.timeMs});
}

const SeriesSources::Entry *SeriesSources::find(const QString &service, const QString &key) const
{
    const auto it = m_entries.constFind({service, key});
    return it == m_entries.constEnd() ? nullptr : &it.value();
}
