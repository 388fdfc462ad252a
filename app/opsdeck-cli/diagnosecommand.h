#pragma once

#include <QStringList>

namespace opsdeck::cli {

/// `opsdeck-cli diagnose --inventory FILE --cluster NAME [--rounds N]
/// [--idle-gap S] [--timeout-ms MS] [--probe auto|health] [--json] [--data-dir DIR]`:
/// rounds of fresh and reused probes on every path into the cluster
/// (ProbeRounds), then the stall diagnosis (StallDiagnoser), recorded in
/// history with a "diagnosis" marker when a stall is found.
/// Exit 0 no stall, 1 a stall was found, 2 bad input, 3 no path could be probed.
int runDiagnose(const QStringList &arguments);

} // namespace opsdeck::cli
