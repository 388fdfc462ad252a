#pragma once

#include "batchcheckresult.h"
#include "proberequestfactory.h"

#include <QUrl>
#include <QVector>
#include <functional>
#include <memory>

namespace opsdeck::probes {

class ProbeEngine;

/// Samples the running requests (decode batch size) of a cluster's decode
/// services during a batch check: GET /v1/loads (parseLoads), and for a
/// decode whose /v1/loads fails or carries no `num_running_reqs`, its
/// /metrics page read through MetricsSampler's `running` concept from then on.
/// Each sample() asks every decode once (fresh connections, like any client);
/// a sample is kept when every decode answered, as the sum over decodes.
/// A decode whose previous answer is still outstanding is not asked again
/// (so a hung decode costs one request at a time, not one per tick), and that
/// tick is dropped.
///
/// Thread: construct, sample() and samples() from one thread (the batch
/// check's); the answers arrive on the engine's thread. The engine must
/// outlive this object (the destructor cancels what is outstanding; answers
/// arriving later are ignored safely).
class DecodeRunningSampler
{
public:
    struct Decode
    {
        ProbeRequestFactory factory; ///< the decode's "decode direct" path (URL, API key, TLS)
        QUrl metricsUrl;             ///< Service::metricsUrl(); empty: no /metrics fallback
    };

    /// Called on the engine's thread with each complete sample, under the
    /// sampler's lock: keep it short and do not call the sampler from it.
    using SampleCallback = std::function<void(const RunningSample &sample)>;

    /// `timeoutMs`: bound of each sampling request, ms.
    DecodeRunningSampler(ProbeEngine &engine, QVector<Decode> decodes, int timeoutMs = 2000,
                         SampleCallback onSample = {});
    ~DecodeRunningSampler();

    /// Asks every decode for its running requests now; the sample is recorded
    /// at `offsetMs` (ms after the batch was submitted) once all have answered.
    void sample(qint64 offsetMs);
    /// Complete samples so far, oldest first.
    QVector<RunningSample> samples() const;
    /// "/v1/loads", "/metrics" (any decode read from /metrics), or empty when none was read.
    QString source() const;
    /// Why the last sample failed ("decode: HTTP 404 on /v1/loads..."); empty when none did.
    QString lastError() const;
    /// Cancels outstanding requests; later answers are ignored.
    void cancel();

private:
    struct State;
    ProbeEngine &m_engine;
    std::shared_ptr<State> m_state;
};

} // namespace opsdeck::probes
