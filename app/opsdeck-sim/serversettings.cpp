#include "serversettings.h"

namespace opsdeck::sim {

HttpServer::Settings serverSettings(const SimOptions &options, std::string name, int threads)
{
    HttpServer::Settings settings;
    settings.name = std::move(name);
    settings.threads = threads;
    settings.keepAliveTimeoutS = options.keepAliveTimeoutS;
    settings.keepAliveMaxCount = options.keepAliveMaxCount;
    settings.readTimeoutS = options.readTimeoutS;
    settings.writeTimeoutS = options.writeTimeoutS;
    settings.logRequests = options.logRequests;
    return settings;
}

} // namespace opsdeck::sim
