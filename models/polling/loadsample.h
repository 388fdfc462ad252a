#pragma once

#include <QByteArray>
#include <QMetaType>
#include <QString>
#include <optional>

namespace opsdeck::probes {

/// Decode batch size at one moment: running requests (`num_running_reqs`,
/// the decode batch) and waiting requests (`num_queue_reqs`), summed over
/// data-parallel ranks.
struct LoadSample
{
    QString service;
    qint64 timeMs = 0;  ///< when it was taken, ms since the Unix epoch
    double running = 0; ///< requests
    double waiting = 0; ///< requests
    QString source;     ///< "/v1/loads" or "/metrics"
};

/// Reads SGLang's /v1/loads JSON: every object that has `num_running_reqs`
/// is one dp rank; ranks are summed. Returns nothing when the body has no
/// such object (then the caller falls back to /metrics).
std::optional<LoadSample> parseLoads(const QByteArray &json);

} // namespace opsdeck::probes

Q_DECLARE_METATYPE(opsdeck::probes::LoadSample)
