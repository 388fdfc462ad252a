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
    // The service's public server only: side servers (bootstrap, router
    // metrics, traffic status) stay internal, as SGLang's do.
    if (settings.name == "main" || settings.name == "proxy") {
        settings.apiKey = options.apiKey;
        settings.tlsCertFile = options.tlsCertFile;
        settings.tlsKeyFile = options.tlsKeyFile;
    }
    return settings;
}

} // namespace opsdeck::sim
