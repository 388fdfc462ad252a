#pragma once

#include <optional>
#include <string>
#include <vector>

namespace opsdeck::sim {

/// Every command-line flag of opsdeck-sim with its default. The flags are
/// defined once, on CLI11, in simoptions.cpp: the same definitions parse them
/// and write `--help` (SimOptions::helpText()), so the two cannot drift.
/// Units are in the names: `...S` seconds, `...Ms` milliseconds.
struct SimOptions
{
    enum class Role
    {
        Prefill,
        Decode,
        Engine,
        Router,
        Proxy,
        Traffic
    };

    /// One `--prefill URL [BOOTSTRAP_PORT]` of the router.
    struct PrefillWorker
    {
        std::string url;
        int bootstrapPort = -1; ///< -1: learn it from the worker's /server_info
    };

    /// Parses argv (without argv[0]). Returns nullopt with `error` set on bad
    /// input (CLI11's message, naming the flag); `helpRequested` is set for -h/--help.
    static std::optional<SimOptions> parse(const std::vector<std::string> &args, std::string &error,
                                           bool &helpRequested);
    static std::string helpText();
    static std::string roleName(Role role);

    bool isEngine() const
    {
        return role == Role::Prefill || role == Role::Decode || role == Role::Engine;
    }

    // --- all roles
    Role role = Role::Engine;
    std::string host = "127.0.0.1";
    int port = 30000;           ///< role default: engines/router 30000, proxy 8080, traffic 0
    int threads = 0;            ///< HTTP worker threads; 0 = auto (see --help)
    int keepAliveTimeoutS = 60; ///< idle seconds before a kept-alive connection is closed
    int keepAliveMaxCount = 1000;
    int readTimeoutS = 30;
    int writeTimeoutS = 30;
    int upstreamTimeoutS = 600; ///< read timeout of forwarding clients (router, proxy)
    double faultStallS = 0.0;   ///< --fault reused-stall=S; 0 = no fault
    int faultAfter = 1;         ///< requests a connection serves before the stall applies
    /// --fault scheduler-stuck (engines): requests join the waiting queue but are never
    /// admitted, so waiting > 0 and running == 0 (the scheduler_stuck alert's condition).
    bool faultSchedulerStuck = false;
    bool logRequests = false;
    std::string apiKey;      ///< --api-key: as SGLang's, Bearer key of the public server
    std::string tlsCertFile; ///< --tls-cert: PEM chain; with --tls-key the server speaks HTTPS
    std::string tlsKeyFile;  ///< --tls-key: PEM private key
    double logIntervalS = 5.0;
    /// --exit-delay: seconds between SIGTERM and the exit, serving and holding
    /// its port meanwhile (an engine freeing GPU memory); a second signal waits too.
    double exitDelayS = 0.0;

    // --- prefill / decode / engine
    std::string servedModelName = "Qwen/Qwen3-8B";
    double readyDelayS = 2.0;
    int dp = 1;
    int tp = 1;
    int maxRunningRequests = 64;
    /// SGLang's --decode-log-interval: /metrics scheduler gauges (running, waiting,
    /// token usage, PD queues) are written every N decode steps (and each prefill
    /// step, and every 30 s when idle); /v1/loads stays live.
    int decodeLogInterval = 40;
    int chunkedPrefillSize = 8192; ///< tokens per prefill step
    int maxTotalTokens = 262144;   ///< KV pool size in tokens (token_usage denominator)
    std::string transferBackend = "mooncake";
    int bootstrapPort = 8998; ///< prefill's bootstrap server; 0 = free port
    /// Decode: seconds a PD request waits for its room's KV (also how long a
    /// nixl transfer with stale agent metadata hangs) before a transfer failure.
    double kvTransferTimeoutS = 30.0;
    double decodeStepBaseMs = 10.0;      ///< a in step_ms = a + b x batch
    double decodeStepPerReqMs = 0.4;     ///< b
    double prefillStepBaseMs = 8.0;      ///< c in step_ms = c + d x tokens
    double prefillStepPerTokenMs = 0.05; ///< d
    /// Streaming test knobs (issue 4, TTFT as the first content token): every
    /// stream already starts with the role chunk {"role":"assistant","content":""};
    /// --stream-empty-first-chunk adds a content-only empty chunk {"content":""}
    /// after it, --stream-split-events writes each SSE event in two writes split
    /// mid-JSON 20 ms apart, --first-token-delay-ms holds the first content token
    /// back until MS after the role chunk.
    bool streamEmptyFirstChunk = false;
    bool streamSplitEvents = false;
    int firstTokenDelayMs = 0;

    // --- router
    std::vector<PrefillWorker> prefills;
    std::vector<std::string> decodes;
    int metricsPort = 29000; ///< 0 = free port
    double healthCheckIntervalS = 1.0;
    /// --worker-failed-after: a worker that was healthy and then fails N health
    /// checks in a row is failed for good (until removed and added again); 0 = never.
    int workerFailedAfter = 0;

    // --- proxy
    std::string upstream;

    // --- traffic
    std::string target;
    int clients = 4;
    int maxTokens = 32;
    int idleGapMs = 200;
    int rounds = 4;
    bool stream = false;
    double durationS = 0.0; ///< 0 = until SIGTERM
    long totalRequests = 0; ///< 0 = unlimited
};

} // namespace opsdeck::sim
