#pragma once

#include "batchcheckresult.h"
#include "inventory.h"
#include "simprocess.h"

#include <QString>
#include <QStringList>

namespace opsdeck::test {

/// A PD cluster of real opsdeck-sim processes on loopback for the batch
/// check and verification tests: prefill, decode and a router over them.
/// The processes stop with the object (SimProcess's destructor).
struct PdCluster
{
    SimProcess prefill;
    SimProcess decode;
    SimProcess router;

    /// Starts the three; `engineExtra` goes to prefill and decode (e.g.
    /// `--max-running-requests 1`), `routerExtra` to the router. False (with
    /// the failing sim's stderr in `error`) when one did not start.
    bool start(const QStringList &engineExtra = {}, const QStringList &routerExtra = {});
    QString error;

    /// Inventory YAML: host `local`, services prefill, decode, router (each
    /// with `serviceExtra` inside its flow mapping, e.g. "tags: [production]"
    /// when `productionService` names it), cluster `pd`.
    QString inventoryYaml(const QString &productionService = {}) const;
    /// The loaded inventory of inventoryYaml(); fails the test when it does not load.
    inventory::Inventory inventory(const QString &productionService = {}) const;

    /// A batch check of `n` requests through the router of a cluster started
    /// with `engineExtra` (e.g. an admission limit); the test fails when it does
    /// not start. The verdict tests at several N share it.
    static probes::BatchCheckResult batchCheck(int n, const QStringList &engineExtra = {});
};

/// `--max-running-requests N` for prefill and decode: the sim admits N at once.
QStringList admissionLimit(int n);

} // namespace opsdeck::test
