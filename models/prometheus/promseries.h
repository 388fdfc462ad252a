#pragma once

#include <QMap>
#include <QString>
#include <QVector>

namespace opsdeck::prometheus {

/// One sample as Prometheus returns it: `[<unix seconds>, "<value>"]`.
struct PromPoint
{
    qint64 timeMs = 0; ///< ms since the Unix epoch (Prometheus gives seconds with 3 decimals)
    /// The value; "NaN", "+Inf" and "-Inf" from the API become NaN and ±infinity.
    double value = 0;
};

/// One series of a query result: its labels (`__name__` included when the
/// query keeps it) and its points in ascending time, as the API orders them.
/// Plain data; safe to copy across threads.
struct PromSeries
{
    QMap<QString, QString> labels;
    QVector<PromPoint> points;
};

} // namespace opsdeck::prometheus
