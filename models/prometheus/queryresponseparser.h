#pragma once

#include "queryresult.h"

#include <QByteArray>

namespace opsdeck::prometheus {

/// Reads the JSON envelope of Prometheus' HTTP API (docs:
/// prometheus.io/docs/prometheus/latest/querying/api/, "Format overview"):
/// `{"status":"success","data":{"resultType":..,"result":..},"warnings":[..]}`
/// or `{"status":"error","errorType":"bad_data","error":"..."}`.
/// Values are strings because JSON has no NaN or Inf: "NaN", "+Inf", "-Inf"
/// are mapped to the doubles; an unreadable value fails the whole answer.
/// Thread: any; no state.
class QueryResponseParser
{
public:
    /// `httpStatus` is the answer's status (0: none); `server` ("host:port")
    /// starts every error text. A 4xx/5xx with a Prometheus error body gives
    /// that body's errorType and error; without one, "HTTP <status>".
    static QueryResult parse(const QByteArray &body, int httpStatus, const QString &server);
};

} // namespace opsdeck::prometheus
