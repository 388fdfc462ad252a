#pragma once

#include "httpserver.h"
#include "simoptions.h"

#include <string>

namespace opsdeck::sim {

/// HttpServer settings from the command line's keep-alive and timeout flags
/// (shared by every role), with the role's own name and worker count.
HttpServer::Settings serverSettings(const SimOptions &options, std::string name, int threads);

} // namespace opsdeck::sim
