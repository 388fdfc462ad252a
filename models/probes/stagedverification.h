#pragma once

#include "batchcheck.h"
#include "probe.h"
#include "probegroup.h"
#include "proberequestfactory.h"
#include "verificationresult.h"

#include <QString>
#include <functional>
#include <memory>

namespace opsdeck::probes {

/// The staged verification run after every change (issue 4, DESIGN.md):
///  1. "health": every service of the cluster answers GET its health URL
///     with 200 (all asked at once, fresh connections);
///  2. "end-to-end": one chat completion through the router ("router direct",
///     else the batch check's default path) answers 200 with non-empty
///     `choices[0].message.content`;
///  3. "keep-alive" (Settings::keepAlive, on by default): keep-alive through the
///     client's path — "via proxy" when the cluster has a client-side proxy,
///     else "router direct": a fresh chat (its time F), a warm-up chat on the
///     kept connection, an idle gap (Settings::keepAliveIdleGapS), then a chat on
///     the same kept connection, which must answer within max(3 x F, F + 1 s).
///     The incident's verification passed health and one probe while every
///     client on a kept connection hung: this stage is what would have failed;
///  4. "batch-check": BatchCheck through the same path as stage 2 gives BATCHED
///     with no failed request (PARTIAL and SERIALIZED fail).
/// The sequence stops at the first failure; the later stages stay `ran == false`.
///
/// Load safety: stage 3 loads the cluster, so a cluster with a production
/// service is refused before stage 1 (error, confirmationRequired) unless
/// Settings::batch.confirmation equals the cluster's name (BatchCheck's rule).
///
/// Recording is the caller's: history::recordVerification() (models/history)
/// writes the marker and the `checks` row, so this library stays below history.
///
/// Thread: run() blocks for the whole sequence (seconds to minutes): call it
/// on a worker thread, never the GUI thread. cancel() from any thread. The
/// callbacks run on the thread of run() (stage events) or on engine threads
/// (the batch check's live progress); keep them short. The engine must
/// outlive run().
class StagedVerification
{
public:
    struct Settings
    {
        /// Stage 3's settings; `confirmation` also guards the whole run.
        BatchCheck::Settings batch;
        int healthTimeoutMs = 5'000; ///< bound of each health GET, ms
        int probeTimeoutMs = 30'000; ///< bound of stage 2's /v1/models and chat, ms
        bool keepAlive = true;       ///< run the keep-alive stage (CLI: --skip-keepalive)
        /// The keep-alive stage's idle gap before the reused chat, s (0..600); the
        /// incident's clients thought 10 s and more between rounds.
        double keepAliveIdleGapS = 10;
    };

    struct Callbacks
    {
        /// Stage `index` (0..3; 0..2 without keep-alive) starts; `stage` has its
        /// name and criterion.
        std::function<void(int index, const VerificationStage &stage)> stageStarted;
        /// Stage `index` ended with `stage.passed`, `ms` and `detail`.
        std::function<void(int index, const VerificationStage &stage)> stageFinished;
        /// Stage 3's live progress (running samples for the chart, requests done).
        BatchCheck::Callbacks batch;
    };

    /// `store`: API keys of the services (nullptr: none configured).
    StagedVerification(ProbeEngine &engine, inventory::Inventory inventory, QString cluster,
                       Settings settings, secrets::SecretStore *store = nullptr);
    ~StagedVerification();
    StagedVerification(const StagedVerification &) = delete;
    StagedVerification &operator=(const StagedVerification &) = delete;

    void setCallbacks(Callbacks callbacks);

    /// The stages with their names and criteria, not run: what the window
    /// shows before the button is pressed. `inventory` names the keep-alive
    /// stage's path (the client-side proxy, else the router).
    static QVector<VerificationStage> plannedStages(const inventory::Inventory &inventory,
                                                    const inventory::Cluster &cluster,
                                                    const Settings &settings);

    /// The path the keep-alive stage takes: "via proxy" when there is one, else
    /// "router direct", else `fallback`.
    static const ProbePath *clientPath(const QVector<ProbePath> &paths, const ProbePath *fallback);

    /// Runs the sequence (see above). Errors are in the result, never thrown.
    VerificationResult run();
    /// Ends the run early from any thread; run() returns with `cancelled`.
    void cancel();

private:
    struct Shared;
    bool runHealth(const inventory::Cluster &cluster, VerificationStage &stage);
    bool runEndToEnd(const ProbePath &path, VerificationStage &stage);
    bool runKeepAlive(const ProbePath &path, VerificationStage &stage);
    /// Waits `seconds` unless cancel() comes first; false when cancelled.
    bool idle(double seconds);
    bool runBatchCheck(VerificationStage &stage, VerificationResult &result);
    /// Submits `requests` at once and waits for all (or for cancel()).
    QVector<ProbeResult> runAll(QVector<ProbeRequest> requests);
    ProbeRequestFactory factoryFor(const ProbePath &path) const;

    ProbeEngine &m_engine; ///< stage 3's batch check runs on it too
    ProbeGroup m_group;    ///< stages 1 and 2
    inventory::Inventory m_inventory;
    QString m_cluster;
    Settings m_settings;
    secrets::SecretStore *m_store = nullptr;
    Callbacks m_callbacks;
    QString m_model; ///< the model stage 2 found, for the keep-alive stage's chats
    /// Stage 2's chat time (ms) on the path it used (the router, when there is
    /// one): the keep-alive stage's reference for "fast", since a pooling proxy
    /// makes even a new client connection stall behind a stalling router.
    double m_endToEndMs = -1;
    std::shared_ptr<Shared> m_shared;
};

} // namespace opsdeck::probes
