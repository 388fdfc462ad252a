#pragma once

#include "batchcheckresult.h"
#include "inventory.h"
#include "probegroup.h"
#include "probepath.h"

#include <QString>
#include <QStringList>
#include <atomic>
#include <functional>
#include <memory>

namespace opsdeck::secrets {
class SecretStore;
}

namespace opsdeck::probes {

class ProbeEngine;
class ProbeRequestFactory;

/// The concurrent batch check (issue 4, "Batch check"): are N requests at
/// once batched by the decode, or served one after another?
///
/// run() does, in order:
/// 1. the production guard (below);
/// 2. GET /v1/models on the path's entry for the model name;
/// 3. ONE streamed chat completion alone (max_tokens `maxTokens`): its total
///    time is single_s;
/// 4. N streamed chat completions submitted to the engine at once, each on a
///    fresh connection (like N separate clients), while the decode services'
///    running requests are sampled every `sampleIntervalMs`
///    (DecodeRunningSampler: /v1/loads, else /metrics);
/// 5. the verdict (batchVerdict()) from n, the peak running requests, the
///    batch's wall time (submission to the last answer) and single_s.
/// Every submitted request appears in the result, failed or not.
///
/// Bounds: n is 1..256; the batch's deadline is `deadlineMs`, by default
/// max(60 s, 4 x single x N) capped at 590 s (a serialized batch takes about
/// N x single; four times that is a hang). At the deadline, unfinished
/// requests are cancelled and reported as failed (timedOut). cancel() from
/// any thread ends the run the same way (cancelled).
///
/// Load safety: when any service on the path or in the cluster is tagged
/// production (Service::isProduction), run() refuses (error,
/// confirmationRequired) unless Settings::confirmation equals the cluster's
/// name. Enforced here so the window and the CLI both go through it; ask
/// with needsConfirmation() before running.
///
/// Sampling uses an engine of its own (8 transfers at once): with 256 chat
/// transfers the caller's engine is full, and a sample queued behind them
/// would be taken only after the batch.
///
/// Thread: run() blocks for the whole check; call it on a worker thread,
/// never the GUI thread. The callbacks run on the engine's threads; keep them
/// short (queue to the GUI). The engine must outlive run().
class BatchCheck
{
public:
    struct Settings
    {
        int n = 16;          ///< concurrent requests, 1..256 (the issue's default 16)
        int maxTokens = 128; ///< max_tokens of every request (the issue's 128)
        /// ProbePath::name to send the requests through; empty: defaultPath().
        QString pathName;
        /// Must equal the cluster's name when a production service is involved.
        QString confirmation;
        int sampleIntervalMs = 250; ///< decode running-request sampling period, ms
        /// Bound of the batch, ms; 0: max(60 s, 4 x single x N); at most 590 s.
        int deadlineMs = 0;
        /// Bound of the single request (and of /v1/models), ms.
        int singleTimeoutMs = 60'000;
    };

    /// Live progress, for the window: called on engine threads.
    struct Callbacks
    {
        /// The single request ended (its total time is single_s).
        std::function<void(double singleS)> singleFinished;
        /// One of the batch's requests ended; `finished` of `n` are done.
        std::function<void(const BatchRequestOutcome &outcome, int finished, int n)>
            requestFinished;
        /// A running-request sample was read (offset from the batch start).
        std::function<void(const RunningSample &sample)> sampled;
    };

    /// `store`: where the entry's and the decodes' API keys are read from;
    /// nullptr when none is configured (a path needing one then fails with
    /// the problem's text, never an unauthenticated request).
    BatchCheck(ProbeEngine &engine, inventory::Inventory inventory, QString cluster,
               Settings settings, secrets::SecretStore *store = nullptr);
    ~BatchCheck();
    BatchCheck(const BatchCheck &) = delete;
    BatchCheck &operator=(const BatchCheck &) = delete;

    void setCallbacks(Callbacks callbacks);

    /// Runs the check (see above). Errors are in the result, never thrown.
    BatchCheckResult run();
    /// Ends a run early from any thread; run() returns with `cancelled`.
    void cancel();

    /// The path a batch check takes by default: "router direct" when the
    /// cluster has a router, else "via proxy", else the first path; nullptr
    /// when there is none.
    static const ProbePath *defaultPath(const QVector<ProbePath> &paths);
    /// Production-tagged services among the cluster's members and `path`'s hops.
    static QStringList productionServices(const inventory::Inventory &inventory,
                                          const inventory::Cluster &cluster,
                                          const ProbePath *path = nullptr);
    /// True when run() would refuse without Settings::confirmation == cluster name.
    static bool needsConfirmation(const inventory::Inventory &inventory,
                                  const inventory::Cluster &cluster,
                                  const ProbePath *path = nullptr)
    {
        return !productionServices(inventory, cluster, path).isEmpty();
    }
    /// The refusal's text, naming the services and what to confirm with.
    static QString confirmationText(const inventory::Cluster &cluster, const QStringList &services);

private:
    ProbeRequestFactory factoryFor(const ProbePath &path) const;
    bool runSingle(const ProbeRequestFactory &factory, BatchCheckResult &result);
    void runBatch(const ProbeRequestFactory &entry, const QVector<ProbePath> &paths,
                  BatchCheckResult &result);
    void conclude(BatchCheckResult &result) const;

    ProbeEngine &m_engine;
    inventory::Inventory m_inventory;
    QString m_cluster;
    Settings m_settings;
    secrets::SecretStore *m_store = nullptr;
    Callbacks m_callbacks;
    ProbeGroup m_group; ///< the single request, then the batch
};

} // namespace opsdeck::probes
