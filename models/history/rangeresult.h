#pragma once

#include "historysample.h"
#include "serieskey.h"

#include <QMetaType>
#include <QString>
#include <QVector>

namespace opsdeck::history {

/// One series of a past time range, ready for a chart: at most a few
/// thousand points (HistoryRangeLoader::maxPointsPerSeries), oldest first.
struct RangeSeries
{
    SeriesKey series;
    QString unit; ///< as shown on an axis ("requests", "tokens/s", "s", ...)
    QVector<Sample> points;
};

/// The answer to one HistoryRangeLoader::load(). Plain data.
struct RangeResult
{
    quint64 id = 0;    ///< the id load() returned
    qint64 fromMs = 0; ///< the range asked, ms since the Unix epoch
    qint64 toMs = 0;
    bool ok = false; ///< false: `error` says why (the other series may still be there)
    /// Where the points came from: "Prometheus at host:port" or the database path.
    QString source;
    /// Why (part of) the range could not be read, naming the server or the file.
    QString error;
    QVector<RangeSeries> series;
};

} // namespace opsdeck::history

Q_DECLARE_METATYPE(opsdeck::history::RangeResult)
