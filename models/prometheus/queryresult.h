#pragma once

#include "promseries.h"

#include <QMetaType>
#include <QStringList>

namespace opsdeck::prometheus {

/// The answer to one query (PrometheusClient). Either `ok` with `series`
/// (possibly none: a selector that matches nothing is an empty result, not
/// an error), or not `ok` with `error` in words that name the server and,
/// when Prometheus said why, its errorType and message. Plain data.
struct QueryResult
{
    bool ok = false;
    /// "matrix" (query_range), "vector" (query), "scalar" or "string";
    /// a scalar or string becomes one series without labels.
    QString resultType;
    QVector<PromSeries> series;
    QString error;
    /// Prometheus' own non-fatal warnings (e.g. a PromQL info), verbatim.
    QStringList warnings;
};

} // namespace opsdeck::prometheus

Q_DECLARE_METATYPE(opsdeck::prometheus::QueryResult)
