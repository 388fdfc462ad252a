#pragma once

#include "simprocess.h"

#include <QString>
#include <QStringList>
#include <chrono>

namespace opsdeck::test {

/// The incident's cluster as real opsdeck-sim processes on loopback: prefill
/// and decode, a router over them and a keep-alive reverse proxy in front,
/// each able to carry the connection-scoped fault `--fault reused-stall=S`
/// (a request on a connection that already served one waits S seconds).
/// Needs no OpsDeck library (the CLI tests use it too). Processes stop with
/// the object.
struct StallCluster
{
    SimProcess prefill;
    SimProcess decode;
    SimProcess router;
    SimProcess proxy;

    /// Starts the four; a stall of 0 leaves that hop without the fault.
    /// `proxyExtra` goes to the proxy (e.g. `--keep-alive-timeout 1`).
    /// False with the failing sim's stderr in `error`.
    bool start(double proxyStallS, double routerStallS, const QStringList &proxyExtra = {});
    QString error;

    /// Waits until the router has seen both workers healthy (/readiness 200),
    /// so a chat through it is answered.
    bool waitReady(std::chrono::milliseconds deadline);

    /// Inventory YAML: host `local`, services prefill-0, decode-0, router-0,
    /// proxy-0, cluster `pd` with all four; the keep-alive watch off unless
    /// `watch` (tests that count requests or expect quiet engines).
    QString inventoryYaml(bool watch = false) const;

    /// Every request each sim served, with its status (`--log-requests`), and
    /// its warnings: what a failed test prints to say which hop refused.
    QString logs();
};

} // namespace opsdeck::test
