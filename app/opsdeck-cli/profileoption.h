#pragma once

#include "engineprofile.h"

#include <QCommandLineParser>
#include <optional>

namespace opsdeck::cli {

/// The `--profile auto|sglang|vllm|router` option of the metrics commands.
QCommandLineOption profileOption();
/// Its value (Auto when not given); on a bad value prints the error and
/// returns nothing (the caller exits 2).
std::optional<metrics::Profile> readProfile(const QCommandLineParser &parser);

} // namespace opsdeck::cli
