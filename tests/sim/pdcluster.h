#pragma once

#include "simhttp.h"
#include "simprocess.h"

#include <QStringList>
#include <chrono>
#include <memory>

namespace opsdeck::test {

/// A prefill, a decode and their router, each an opsdeck-sim on loopback.
/// The engines get fixed ports (main and bootstrap, picked free at
/// construction), so either can be restarted where it was: the router and
/// the other engine keep addressing it by the same URL, as in production.
/// Engines start ready at once with a 0.2 s --exit-delay (a restart waits for
/// the old process), the router polls health every 0.1 s. The destructor
/// stops every process.
class PdCluster
{
public:
    struct Options
    {
        QString backend = QStringLiteral("mooncake"); ///< --transfer-backend of both engines
        double kvTransferTimeoutS = 0.5;              ///< the decode's --kv-transfer-timeout
        QStringList routerExtra;                      ///< more router flags
    };

    explicit PdCluster(Options options);

    /// Starts prefill, decode and router; true once the router's /readiness is 200.
    bool start(std::chrono::milliseconds deadline = std::chrono::seconds(10));
    bool startPrefill();
    bool startDecode();
    /// SIGTERM to the process (its exit delay waited out), then a new one on
    /// the same ports; true once the new one listens.
    bool restartPrefill();
    bool restartDecode();
    void stopDecode();

    SimProcess &prefill() { return *m_prefill; }
    SimProcess &decode() { return *m_decode; }
    SimProcess &router() { return m_router; }
    QString prefillUrl() const;
    QString decodeUrl() const;
    int bootstrapPort() const { return m_bootstrapPort; }

    /// One small chat completion through the router (max_tokens 4).
    HttpReply chat() const;
    /// Status of GET /readiness of the router.
    int readiness() const;
    /// True when both engines answer GET /health with 200.
    bool enginesHealthy() const;
    /// sglang:num_transfer_failed_reqs_total of the (current) decode.
    double decodeTransferFailures() const;

private:
    QStringList prefillArgs() const;
    QStringList decodeArgs() const;

    const Options m_options;
    const int m_prefillPort;
    const int m_bootstrapPort;
    const int m_decodePort;
    std::unique_ptr<SimProcess> m_prefill;
    std::unique_ptr<SimProcess> m_decode;
    SimProcess m_router;
};

} // namespace opsdeck::test
