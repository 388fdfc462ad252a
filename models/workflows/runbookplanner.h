#pragma once

#include "inventory.h"
#include "workflowplan.h"

#include <optional>

namespace opsdeck::workflows {

/// Builds the plan of a runbook from the inventory: the exact commands per
/// host, the order, the deadlines, the warnings and the refusals planning
/// already knows. Nothing is run or read from a host here.
///
/// - restart (--service S): stop S; wait until its port is closed (the old
///   process has exited; an engine frees its GPU memory only then); start S;
///   wait for its health URL to answer 200; for a PD member, the router's
///   readiness; then the staged verification of the cluster. One side of a PD
///   pair warns; with transfer backend nixl it is refused (a nixl pair hangs
///   after a single-side restart until both are restarted): co-restart.
/// - co-restart (--cluster C): the router's prefill bootstrap port checked
///   against prefill's /server_info; every decode stopped (at once), then
///   every prefill; all exited; every prefill started and healthy with its
///   bootstrap port before any decode starts; the decodes started and healthy;
///   the router ready with every worker healthy; the staged verification;
///   the engines' bootstrap and transfer failure counters watched for
///   Timings::failureWatchS (any rise fails it).
/// - restart-proxy (--cluster C): the proxy stopped, exited, started, healthy,
///   then the staged verification, whose keep-alive stage probes a reused
///   connection through the proxy and says whether a stall persists.
/// - revert-knob / restore-knob: a "before" marker; each serve script's edit
///   (Request::edits: the diff shown, the hash checked, a verified backup,
///   the atomic write); the restart it needs (co-restart when a PD member was
///   edited, a restart of each other edited service); the staged
///   verification; an "after" marker.
/// Thread: any.
class RunbookPlanner
{
public:
    /// Deadlines of the steps, s. Engines load a model for minutes: their
    /// health wait is the longest.
    struct Timings
    {
        int checkS = 10;          ///< a single HTTP check (bootstrap ports)
        int stopS = 60;           ///< SIGTERM to exit; SIGKILL is sent after it
        int killS = 10;           ///< after SIGKILL
        int exitedS = 120;        ///< the port closed after the process is gone
        int startS = 30;          ///< the start command itself
        int engineHealthyS = 900; ///< an engine's health 200 after its start
        int serviceHealthyS = 60; ///< a router's or proxy's
        int routerReadyS = 120;   ///< the router sees every worker healthy
        int verifyS = 600;        ///< the staged verification
        /// After a co-restart: the engines' bootstrap and transfer failure
        /// counters are watched this long (0: not at all), s.
        int failureWatchS = 30;
        /// Draining: the running requests are waited down to 0 this long;
        /// past it the stop goes ahead (said), s.
        int drainS = 120;
    };

    struct Request
    {
        WorkflowKind kind = WorkflowKind::Restart;
        QString cluster;
        QString service; ///< restart: the one service; empty otherwise
        QString knob;    ///< revert-knob / restore-knob
        QString backup;  ///< revert-knob / restore-knob: --backup PATH
        /// revert-knob / restore-knob: each serve script's edit, planned by the
        /// caller (it reads the scripts); the services to restart follow.
        QVector<WorkflowPlan::KnobEdit> edits;
        /// restart / co-restart: each prefill and decode restarted is first
        /// removed from the cluster's router and waited idle (Timings::drainS),
        /// and added back once it answers again
        bool drain = false;
    };

    /// The plan, numbered; nothing and `error` (naming the cluster or service)
    /// when the request does not fit the inventory.
    static std::optional<WorkflowPlan> plan(const inventory::Inventory &inventory,
                                            const Request &request, QString *error,
                                            const Timings &timings);
    /// plan() with the default Timings.
    static std::optional<WorkflowPlan> plan(const inventory::Inventory &inventory,
                                            const Request &request, QString *error);
};

} // namespace opsdeck::workflows
