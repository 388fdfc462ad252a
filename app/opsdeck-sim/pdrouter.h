#pragma once

#include "workerpool.h"

#include <cstdint>
#include <httplib.h>
#include <mutex>
#include <random>
#include <string>

namespace opsdeck::sim {

class RouterMetrics;

/// POST /v1/chat/completions of the router, the way the SGLang PD router
/// routes it: pick a prefill and a decode worker (round-robin over healthy
/// ones), add bootstrap_host / bootstrap_port (the prefill's bootstrap
/// server) / bootstrap_room (random 63-bit) to the JSON body, send it to both
/// at once, and return the decode's answer (SSE passes through as it
/// arrives). A prefill that fails or answers an error before the decode
/// answers ends the request with that error (502 when unreachable).
/// Threads: handle() on HTTP worker threads, concurrently.
class PdRouter
{
public:
    PdRouter(WorkerPool &workers, RouterMetrics &metrics);

    void handle(const httplib::Request &req, httplib::Response &res);

    /// `body` (a JSON object) with the three bootstrap fields appended.
    static std::string withBootstrap(const std::string &body, const std::string &host, int port,
                                     std::uint64_t room);

private:
    std::uint64_t nextRoom();

    WorkerPool &m_workers;
    RouterMetrics &m_metrics;
    std::mutex m_rngMutex;
    std::mt19937_64 m_rng;
};

} // namespace opsdeck::sim
