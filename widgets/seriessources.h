#pragma once

#include "loadsample.h"
#include "metricssnapshot.h"
#include "serieskey.h"

#include <QHash>

/// Where the numbers on the panels come from: per (service, key) the latest
/// SeriesValue seen in a MetricsSnapshot (metric family, refresh interval,
/// when the engine last refreshed it) or a LoadSample (/v1/loads), beside
/// the scrape time. The hot window holds only values; tooltips and age
/// texts read this. Thread: GUI thread.
class SeriesSources
{
public:
    struct Entry
    {
        /// The latest value; `source` names the metric family or endpoint,
        /// `sampledAtMs` is when the engine last refreshed it (ms since epoch).
        opsdeck::probes::SeriesValue value;
        qint64 scrapeMs = 0; ///< when the console read it, ms since epoch
    };

    /// Records every value of a snapshot read without error (a failed scrape
    /// keeps the previous sources).
    void note(const opsdeck::probes::MetricsSnapshot &snapshot);
    /// Records a live batch sample as "live_running" and "live_waiting".
    void noteLoad(const opsdeck::probes::LoadSample &sample);
    /// The entry of (service, key), or nullptr when none was noted.
    const Entry *find(const QString &service, const QString &key) const;

private:
    QHash<opsdeck::history::SeriesKey, Entry> m_entries;
};
