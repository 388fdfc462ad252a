#pragma once

#include "batchcheckresult.h"
#include "historystore.h"
#include "verificationresult.h"

#include <optional>

namespace opsdeck::history {

/// Saves a batch check in `store`: its whole JSON (probes::batchCheckToJson)
/// as a `checks` row of kind "batch-check", and a marker of kind
/// "batch-check" at its start ("batch check pd: BATCHED, peak running 16 of
/// 16, wall 2.10 s, single 1.35 s", or the error), linked to the row as
/// "check:<id>". Returns the row's id; nothing on a database error
/// (store.lastError()). Same thread rules as HistoryStore.
std::optional<qint64> recordBatchCheck(HistoryStore &store, const probes::BatchCheckResult &result);

/// Saves a staged verification: a `checks` row of kind "verification" (its
/// JSON, stages and timings, the batch check nested), a row of kind
/// "batch-check" when stage 3 ran, and one marker of kind "verification"
/// ("verification pd: passed in 4.2 s" / "verification pd: failed at
/// health: ...") linked to the row. Returns the verification row's id.
std::optional<qint64> recordVerification(HistoryStore &store,
                                         const probes::VerificationResult &result);

} // namespace opsdeck::history
