// opsdeck-sim: plays one service of a simulated SGLang PD cluster on a
// loopback port. See `opsdeck-sim --help` and SimOptions.
#include "engineservice.h"
#include "logger.h"
#include "proxyservice.h"
#include "routerservice.h"
#include "shutdownflag.h"
#include "simoptions.h"
#include "trafficgenerator.h"

#include <chrono>
#include <csignal>
#include <cstdio>
#include <ctime>
#include <memory>
#include <pthread.h>
#include <string>

using namespace opsdeck::sim;

namespace {

std::unique_ptr<Service> makeService(const SimOptions &options)
{
    switch (options.role) {
    case SimOptions::Role::Router:
        return std::make_unique<RouterService>(options);
    case SimOptions::Role::Proxy:
        return std::make_unique<ProxyService>(options);
    case SimOptions::Role::Traffic:
        return std::make_unique<TrafficGenerator>(options);
    default:
        return std::make_unique<EngineService>(options);
    }
}

} // namespace

int main(int argc, char **argv)
{
    // A vanished client must be a failed write, not a killed process.
    std::signal(SIGPIPE, SIG_IGN);
    // SIGTERM/SIGINT are taken synchronously by the main thread (sigtimedwait);
    // blocking them before any thread starts keeps every thread from seeing them.
    sigset_t termination;
    sigemptyset(&termination);
    sigaddset(&termination, SIGTERM);
    sigaddset(&termination, SIGINT);
    pthread_sigmask(SIG_BLOCK, &termination, nullptr);

    std::vector<std::string> args(argv + 1, argv + argc);
    if (args.size() == 1 && args.front() == "--version") {
        std::printf("opsdeck-sim %s\n", OPSDECK_VERSION);
        return 0;
    }
    std::string error;
    bool help = false;
    const auto options = SimOptions::parse(args, error, help);
    if (help) {
        std::fputs(SimOptions::helpText().c_str(), stdout);
        return 0;
    }
    if (!options) {
        std::fprintf(stderr, "opsdeck-sim: %s\n", error.c_str());
        return 2;
    }
    Logger::setRole(SimOptions::roleName(options->role));

    auto service = makeService(*options);
    if (!service->start(error)) {
        Logger::error(error);
        ShutdownFlag::trigger();
        service->stop();
        return 2;
    }

    int signal = 0;
    while (signal <= 0 && !service->finished()) {
        const timespec slice{0, 200 * 1000 * 1000};
        signal = sigtimedwait(&termination, nullptr, &slice);
    }
    Logger::info(signal == SIGTERM  ? "received SIGTERM, shutting down"
                 : signal == SIGINT ? "received SIGINT, shutting down"
                                    : "finished, shutting down");
    if (signal > 0 && options->exitDelayS > 0) {
        // As an engine freeing GPU memory: still up, port held, until the delay ends.
        char line[64];
        std::snprintf(line, sizeof line, "exiting in %g s (--exit-delay)", options->exitDelayS);
        Logger::info(line);
        const auto end =
            std::chrono::steady_clock::now() + std::chrono::duration<double>(options->exitDelayS);
        while (std::chrono::steady_clock::now() < end) {
            const timespec slice{0, 100 * 1000 * 1000};
            sigtimedwait(&termination, nullptr, &slice); // a second signal waits too
        }
    }
    ShutdownFlag::trigger();
    service->stop();
    Logger::info("shutdown complete");
    return 0;
}
