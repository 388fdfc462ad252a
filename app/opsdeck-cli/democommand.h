#pragma once

#include <QStringList>

namespace opsdeck::cli {

/// `opsdeck-cli demo up [--dir DIR] [--traffic N] [--fault F] [--transfer-backend B]`
/// and `opsdeck-cli demo down [--dir DIR]`. `arguments` starts with "demo".
int runDemo(const QStringList &arguments);

} // namespace opsdeck::cli
