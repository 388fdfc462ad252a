#pragma once

#include <QStringList>

namespace opsdeck::cli {

/// `opsdeck-cli batch-check --inventory FILE --cluster NAME [-n N] [--json]
/// [--confirm NAME] [--data-dir DIR]`: N concurrent chat completions through
/// the cluster's router while its decode's running requests are sampled
/// (probes::BatchCheck). `--json`: probes::batchCheckToJson's object
/// ({"verdict", "n", "peak_running", "wall_s", "single_s", ...}).
/// The result is saved in the history database (a `checks` row and a marker).
/// Exit 0 BATCHED with no failed request; 1 SERIALIZED, PARTIAL, failed
/// requests or a failing path; 2 bad input or a production cluster without
/// `--confirm <cluster>`; 3 no verdict (running requests unreadable).
int runBatchCheck(const QStringList &arguments);

} // namespace opsdeck::cli
