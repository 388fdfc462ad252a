#pragma once

// Synthetic samples for the alert tests: what the poller and the probes would
// emit, at times the test chooses (ms since the Unix epoch).
#include "endtoendresult.h"
#include "loadsample.h"
#include "metricssnapshot.h"
#include "servicestatus.h"

#include <QDateTime>
#include <initializer_list>
#include <utility>

namespace opsdeck::alerts::test {

/// A fixed origin so texts and times are the same on every run.
constexpr qint64 t0 = 1'800'000'000'000;

inline qint64 at(double seconds)
{
    return t0 + static_cast<qint64>(seconds * 1000);
}

inline probes::MetricsSnapshot
snapshot(const QString &service, qint64 timeMs,
         std::initializer_list<std::pair<const char *, double>> values)
{
    probes::MetricsSnapshot s;
    s.service = service;
    s.timeMs = timeMs;
    s.profile = QStringLiteral("sglang");
    for (const auto &[key, value] : values)
        s.values.append({QString::fromUtf8(key), QString(), value, timeMs, QString(), QString(),
                         QString(), QString()});
    return s;
}

inline probes::LoadSample load(const QString &service, qint64 timeMs, double running,
                               double waiting)
{
    return {service, timeMs, running, waiting, QStringLiteral("/v1/loads")};
}

/// A health answer of `httpStatus` (0: no answer) checked at `timeMs`, in its
/// state since `changedMs`.
inline probes::ServiceStatus health(const QString &service, qint64 timeMs, int httpStatus,
                                    qint64 changedMs)
{
    probes::ServiceStatus s;
    s.name = service;
    s.httpStatus = httpStatus;
    s.state = httpStatus == 200 ? probes::ServiceState::Healthy
              : httpStatus == 0 ? probes::ServiceState::Down
                                : probes::ServiceState::Unhealthy;
    s.detail = httpStatus == 0 ? QStringLiteral("Connection refused")
                               : QStringLiteral("HTTP %1").arg(httpStatus);
    s.lastCheck = QDateTime::fromMSecsSinceEpoch(timeMs, Qt::UTC);
    s.lastChange = QDateTime::fromMSecsSinceEpoch(changedMs, Qt::UTC);
    return s;
}

inline EndToEndResult probe(const QString &cluster, const QString &service, qint64 timeMs,
                            int httpStatus, const QString &error = {})
{
    EndToEndResult r;
    r.cluster = cluster;
    r.service = service;
    r.ok = error.isEmpty();
    r.httpStatus = httpStatus;
    r.ms = 12;
    r.error = error;
    r.finishedAtMs = timeMs;
    return r;
}

} // namespace opsdeck::alerts::test
