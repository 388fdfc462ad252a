#pragma once

#include <QStringList>

namespace opsdeck::cli {

/// `opsdeck-cli verify --inventory FILE --cluster NAME [--json] [-n N]
/// [--confirm NAME] [--data-dir DIR]`: the staged verification
/// (probes::StagedVerification): health of every service → one end-to-end
/// chat probe through the router → the batch check, stopping at the first
/// failure. `--json`: probes::verificationToJson's object ({"passed",
/// "stages": [{"name", "criterion", "ran", "passed", "ms", "detail"}], ...}).
/// Saved in history (a marker of kind "verification" and `checks` rows).
/// Exit 0 when every stage passed; 1 at the first failed stage; 2 bad input
/// or a production cluster without `--confirm <cluster>`; 3 cancelled.
int runVerify(const QStringList &arguments);

} // namespace opsdeck::cli
