#include "simoptions.h"

#include <CLI/CLI.hpp>
#include <cmath>
#include <map>
#include <sys/stat.h>
#include <utility>

namespace opsdeck::sim {

namespace {

/// What the flags set beside SimOptions: whether a value was given, for the
/// defaults that follow others (--port 0 frees the side ports too).
struct Seen
{
    bool bootstrapPort = false;
    bool metricsPort = false;
};

/// A finite number of at least `min` (CLI::Range lets NaN through).
CLI::Validator atLeast(double min)
{
    return CLI::Validator(
        [min](std::string &text) -> std::string {
            double value = 0;
            if (!CLI::detail::lexical_cast(text, value) || !std::isfinite(value) || value < min)
                return "expects a number >= " + CLI::detail::to_string(min) + ", got '" + text +
                       "'";
            return {};
        },
        "NUMBER >= " + CLI::detail::to_string(min));
}

bool isDigits(const std::string &text)
{
    return !text.empty() && text.find_first_not_of("0123456789") == std::string::npos &&
           text.size() <= 5;
}

const char *kFooter =
    R"(Logs go to stderr, one timestamped line each ("YYYY-MM-DD HH:MM:SS.mmm LEVEL ROLE: text").
On start the main server logs exactly one "listening on http://HOST:PORT" line (the router then
also "metrics listening on http://HOST:PORT"). SIGTERM/SIGINT stop the servers, join the threads
and exit 0. A port already in use: error naming the port, exit 2. Bad flags: exit 2.

ENGINES
  Step model (one scheduler loop per rank, steps scheduled on absolute steady-clock deadlines):
    decode step_ms(batch)   = (A + B x batch) / (1 + gain(batch)); every running request gets one
                              token per step. Defaults: step(1)=10.4, step(16)=16.4, step(64)=35.6,
                              step(96)=48.4 ms -> decode tokens/s = batch x 1000 / step_ms.
    prefill step_ms(tokens) = C + D x tokens, tokens <= --chunked-prefill-size, shared by all
                              requests waiting for prefill (they reach decode together). A prefill
                              step, when one is pending, runs before the next decode step.
    Waiting requests are admitted at step boundaries up to --max-running-requests and while the
    KV pool holds them (--max-total-tokens). The prefill produces the first token, decode the
    remaining max_tokens - 1.
  Knobs read from the environment at start (logged):
    SGLANG_SM120_MMA_TARGET_CTAS=512  decode gain(batch): 0 up to batch 16, linear to 13 % at 64,
                              linear down to 6 % at 96, 6 % beyond. Other values: no effect.
  Tokens: prompt_tokens = ceil(UTF-8 bytes of all messages[].content / 4), at least 1;
    completion_tokens = max_tokens (default 16; max_completion_tokens also read), finish_reason
    "length". Text is deterministic per prompt, so streamed and non-streamed content are equal.
  A stream always starts with the role chunk, delta {"role":"assistant","content":""}, as SGLang's.
  Endpoints: GET /health, /health_generate (503 while starting, then 200), /server_info,
    /get_server_info, /v1/models, /v1/loads (SGLang shape, ?dp_rank=N), /metrics (SGLang
    Prometheus families, labels dp_rank engine_type model_name pp_rank tp_rank);
    POST /v1/chat/completions (OpenAI shape; "stream": true gives SSE chat.completion.chunk
    events and "data: [DONE]"; stream_options.include_usage adds a usage chunk; bad JSON -> 400).
  PD: a request with bootstrap_host/bootstrap_port/bootstrap_room is, on a prefill, prefilled
    only (1 token) and its KV handed over under that room; on a decode it waits for that room's KV
    from the prefill's bootstrap server (GET /route handshake, GET /kv?bootstrap_room=R long poll),
    then decodes. Unreachable bootstrap server -> sglang:num_bootstrap_failed_reqs_total, room not
    ready within --kv-transfer-timeout -> sglang:num_transfer_failed_reqs_total; both answer 500.
  Restarts: each prefill/decode process has a random KV transfer agent instance (logged as
    "KV transfer agent: BACKEND instance ID"); each side remembers its peer's instance from the
    first completed transfer. When only one side restarts, nixl keeps the stale one and logs once
    "nixl: stale agent metadata for prefill|decode HOST:PORT (instance A, now B): transfers hang
    until both sides restart": /health stays 200, every transfer hangs to --kv-transfer-timeout
    (a transfer failure) until the other side restarts too. mooncake logs "mooncake: prefill|decode
    HOST:PORT restarted (instance A, now B): re-registered its transfer metadata" and recovers.

ROUTER
  Endpoints: GET /health (200 once up), /readiness (200 when >= 1 prefill and >= 1 decode are
    healthy, else 503), /workers (SGLang gateway shape; "status" pending|ready|not_ready|failed),
    /workers/ID (one worker; ID = its URL, percent-encoded), /v1/models;
    POST /workers {"url": URL, "worker_type": "prefill"|"decode", "bootstrap_port": N (prefill,
    optional)}: 202 {"status":"accepted","worker_id",...}, 400 naming the bad field, 409 when
    registered; DELETE /workers/ID: 202, 404 unknown (errors {"error","code"}); both take effect
    before the answer. POST /v1/chat/completions:
    picks a prefill and a decode (round-robin over healthy workers), adds bootstrap_host,
    bootstrap_port and a random 63-bit bootstrap_room, sends to both at once and returns the
    decode answer (SSE passes through as it arrives). GET /metrics on --metrics-port.

TRAFFIC
  Logs one summary line per N (= clients) completed requests. Serves GET /health and GET /stats
  (JSON counters) on --port (default 0 = free port).
)";

/// Every flag, its value's range and its words for --help: one definition
/// for parsing and help alike.
void define(CLI::App &app, SimOptions &o, Seen &seen)
{
    app.description("opsdeck-sim: one service of a simulated SGLang prefill/decode (PD) cluster "
                    "on a loopback port.");
    app.footer(kFooter);
    app.get_formatter()->column_width(36);

    const char *all = "ALL ROLES";
    static const std::map<std::string, SimOptions::Role> roles = {
        {"prefill", SimOptions::Role::Prefill}, {"decode", SimOptions::Role::Decode},
        {"engine", SimOptions::Role::Engine},   {"router", SimOptions::Role::Router},
        {"proxy", SimOptions::Role::Proxy},     {"traffic", SimOptions::Role::Traffic}};
    app.add_option_function<std::string>(
           "--role",
           [&o](const std::string &text) {
               const auto it = roles.find(text);
               if (it == roles.end())
                   throw CLI::ValidationError(
                       "--role", "unknown --role '" + text +
                                     "' (expected prefill|decode|engine|router|proxy|traffic)");
               o.role = it->second;
           },
           "prefill | decode | engine (non-PD) | router | proxy | traffic")
        ->required()
        ->option_text("R REQUIRED")
        ->group(all);
    app.add_option("--host", o.host, "listen address")->capture_default_str()->group(all);
    app.add_option("--port", o.port,
                   "main port; 0 = pick a free one (default 30000; proxy 8080; traffic 0). With "
                   "--port 0, --disaggregation-bootstrap-port and --metrics-port also default to 0")
        ->check(CLI::Range(0, 65535))
        ->group(all);
    app.add_option("--threads", o.threads,
                   "HTTP worker threads (0 = auto: engines max(2 x dp x max-running-requests, "
                   "512) + 32, router/proxy 544). One kept-alive connection holds one thread for "
                   "its whole life, so a batch needs one thread per client")
        ->check(CLI::Range(0, 4096))
        ->capture_default_str()
        ->group(all);
    app.add_option("--keep-alive-timeout", o.keepAliveTimeoutS,
                   "idle seconds before a kept-alive connection is closed")
        ->check(CLI::Range(1, 86400))
        ->capture_default_str()
        ->group(all);
    app.add_option("--keep-alive-max-count", o.keepAliveMaxCount,
                   "requests served on one connection before it is closed")
        ->check(CLI::Range(1, 1000000))
        ->capture_default_str()
        ->group(all);
    app.add_option("--read-timeout", o.readTimeoutS, "server read timeout, s")
        ->check(CLI::Range(1, 86400))
        ->capture_default_str()
        ->group(all);
    app.add_option("--write-timeout", o.writeTimeoutS, "server write timeout, s")
        ->check(CLI::Range(1, 86400))
        ->capture_default_str()
        ->group(all);
    app.add_option("--upstream-timeout", o.upstreamTimeoutS,
                   "read timeout of forwarding clients, router and proxy, s")
        ->check(CLI::Range(1, 86400))
        ->capture_default_str()
        ->group(all);
    app.add_option("--api-key", o.apiKey,
                   "as SGLang's --api-key: the main (or proxy) server answers 401 "
                   "{\"error\":\"Unauthorized\"} unless \"Authorization: Bearer KEY\"; OPTIONS and "
                   "paths starting with /health or /metrics stay open")
        ->check(CLI::Validator(
            [](std::string &key) {
                // An empty key would serve without any check.
                return key.empty() ? std::string("needs a non-empty key") : std::string();
            },
            "KEY"))
        ->group(all);
    app.add_option("--tls-cert", o.tlsCertFile,
                   "with --tls-key: serve HTTPS on the main (or proxy) server with this PEM "
                   "certificate chain; the \"listening on\" line then says https://")
        ->group(all);
    app.add_option("--tls-key", o.tlsKeyFile, "the PEM private key of --tls-cert")->group(all);
    app.add_option_function<std::string>(
           "--fault",
           [&o](const std::string &text) {
               if (text == "none") {
                   o.faultStallS = 0;
                   o.faultSchedulerStuck = false;
                   return;
               }
               if (text == "scheduler-stuck") {
                   o.faultSchedulerStuck = true;
                   return;
               }
               const std::string prefix = "reused-stall=";
               double seconds = 0;
               // A stall is a finite number of seconds (NaN and inf would silently not stall).
               if (text.rfind(prefix, 0) != 0 ||
                   !CLI::detail::lexical_cast(text.substr(prefix.size()), seconds) ||
                   !(seconds >= 0 && seconds <= 86400))
                   throw CLI::ValidationError("--fault", "unknown --fault '" + text +
                                                             "' (expected reused-stall=SECONDS, "
                                                             "scheduler-stuck or none)");
               o.faultStallS = seconds;
           },
           "reused-stall=S (router and proxy: a request arriving on a client connection that "
           "already served N requests waits S seconds before it is handled or forwarded; fresh "
           "connections pass at once), scheduler-stuck (engines: requests are queued but never "
           "admitted, so waiting > 0 and running == 0), or none. Repeat to combine")
        ->trigger_on_parse()
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
        ->option_text("FAULT")
        ->group(all);
    app.add_option("--fault-after", o.faultAfter,
                   "N for reused-stall: requests a connection serves before it stalls (1: the "
                   "2nd request stalls)")
        ->check(CLI::Range(0, 1000000))
        ->capture_default_str()
        ->group(all);
    app.add_flag("--log-requests", o.logRequests,
                 "one log line per HTTP request: server, method, path, status, client address "
                 "and the request's number on its connection")
        ->group(all);
    app.add_option("--exit-delay", o.exitDelayS,
                   "seconds from SIGTERM/SIGINT to the exit, still serving and holding the port "
                   "(an engine freeing GPU memory)")
        ->check(CLI::Range(0.0, 3600.0))
        ->capture_default_str()
        ->group(all);
    app.add_option("--log-interval", o.logIntervalS,
                   "period of the engines' \"Prefill batch.\" and \"Decode batch.\" lines, s")
        ->check(atLeast(0.1))
        ->capture_default_str()
        ->group(all);

    const char *engines = "ENGINES (--role prefill | decode | engine)";
    app.add_option("--served-model-name,--model-path", o.servedModelName,
                   "model name reported and used as metric label; any model name is accepted in "
                   "requests")
        ->capture_default_str()
        ->group(engines);
    app.add_option("--ready-delay", o.readyDelayS,
                   "/health answers 503 until this many seconds after start")
        ->check(atLeast(0))
        ->capture_default_str()
        ->group(engines);
    app.add_option(
           "--dp,--dp-size", o.dp,
           "data-parallel ranks; each rank has its own scheduler thread, batch and metric "
           "series (dp_rank label); requests go round-robin over ranks, PD requests to rank "
           "bootstrap_room % N")
        ->check(CLI::Range(1, 64))
        ->capture_default_str()
        ->group(engines);
    app.add_option("--tp,--tp-size", o.tp, "reported only")
        ->check(CLI::Range(1, 64))
        ->capture_default_str()
        ->group(engines);
    app.add_option("--max-running-requests", o.maxRunningRequests,
                   "per-rank batch limit; the rest wait in the queue")
        ->check(CLI::Range(1, 1024))
        ->capture_default_str()
        ->group(engines);
    app.add_option(
           "--decode-log-interval", o.decodeLogInterval,
           "as SGLang: the /metrics scheduler gauges are written after each prefill step, "
           "every N decode steps and every 30 s when idle, and hold their value in between; "
           "counters, histograms and /v1/loads stay live")
        ->check(CLI::Range(1, 1000000))
        ->capture_default_str()
        ->group(engines);
    app.add_option("--chunked-prefill-size", o.chunkedPrefillSize, "prompt tokens per prefill step")
        ->check(CLI::Range(1, 1 << 24))
        ->capture_default_str()
        ->group(engines);
    app.add_option("--max-total-tokens", o.maxTotalTokens,
                   "KV pool size in tokens: token_usage = used / N; a request is admitted only "
                   "while prompt + max_tokens of all admitted requests fit")
        ->check(CLI::Range(1, 1 << 30))
        ->capture_default_str()
        ->group(engines);
    app.add_option(
           "--transfer-backend,--disaggregation-transfer-backend", o.transferBackend,
           "KV transfer backend, reported in /server_info. After a restart of only one side "
           "of a PD pair, nixl keeps the gone peer's agent metadata: /health stays 200 but "
           "every transfer hangs (a transfer failure after --kv-transfer-timeout) until "
           "both sides have been restarted; mooncake re-registers the new peer and "
           "recovers")
        ->check(CLI::IsMember({"mooncake", "nixl"}))
        ->capture_default_str()
        ->group(engines);
    app.add_option("--disaggregation-bootstrap-port", o.bootstrapPort,
                   "prefill's bootstrap (KV handoff) server; 0 = free port, reported in "
                   "/server_info")
        ->check(CLI::Range(0, 65535))
        ->capture_default_str()
        ->each([&seen](const std::string &) { seen.bootstrapPort = true; })
        ->group(engines);
    app.add_option("--kv-transfer-timeout", o.kvTransferTimeoutS,
                   "decode gives up waiting for a room's KV after this many seconds (a transfer "
                   "failure), also a nixl transfer hung on stale agent metadata")
        ->check(atLeast(0.1))
        ->capture_default_str()
        ->group(engines);
    app.add_option("--decode-step-base-ms", o.decodeStepBaseMs, "A of the step model")
        ->check(atLeast(0))
        ->capture_default_str()
        ->group(engines);
    app.add_option("--decode-step-per-req-ms", o.decodeStepPerReqMs, "B of the step model")
        ->check(atLeast(0))
        ->capture_default_str()
        ->group(engines);
    app.add_option("--prefill-step-base-ms", o.prefillStepBaseMs, "C of the step model")
        ->check(atLeast(0))
        ->capture_default_str()
        ->group(engines);
    app.add_option("--prefill-step-per-token-ms", o.prefillStepPerTokenMs, "D of the step model")
        ->check(atLeast(0))
        ->capture_default_str()
        ->group(engines);
    app.add_flag("--stream-empty-first-chunk", o.streamEmptyFirstChunk,
                 "after the role chunk, send one more chunk with delta {\"content\":\"\"}")
        ->group(engines);
    app.add_flag("--stream-split-events", o.streamSplitEvents,
                 "write every SSE event in two writes split mid-JSON, 20 ms apart")
        ->group(engines);
    app.add_option("--first-token-delay-ms", o.firstTokenDelayMs,
                   "send the first content token no earlier than this after the role chunk")
        ->check(CLI::Range(0, 60000))
        ->capture_default_str()
        ->group(engines);

    const char *router = "ROUTER (--role router)";
    app.add_option_function<std::vector<std::string>>(
           "--prefill",
           [&o](const std::vector<std::string> &values) {
               SimOptions::PrefillWorker worker;
               worker.url = values.at(0);
               // The real router takes the bootstrap port as an optional second value.
               if (values.size() > 1) {
                   if (!isDigits(values[1]) || std::stoi(values[1]) < 1 ||
                       std::stoi(values[1]) > 65535)
                       throw CLI::ValidationError("--prefill", "bootstrap port '" + values[1] +
                                                                   "' is not in [1, 65535]");
                   worker.bootstrapPort = std::stoi(values[1]);
               }
               o.prefills.push_back(worker);
           },
           "URL [BOOTSTRAP_PORT]: a prefill worker (repeatable); without a port it is read from "
           "the worker's /server_info")
        ->expected(1, 2)
        ->trigger_on_parse()
        ->option_text("URL [PORT]")
        ->group(router);
    app.add_option_function<int>(
           "--prefill-bootstrap-port",
           [&o](int port) {
               if (o.prefills.empty())
                   throw CLI::ValidationError("--prefill-bootstrap-port",
                                              "must follow a --prefill URL");
               o.prefills.back().bootstrapPort = port;
           },
           "bootstrap port of the preceding --prefill")
        ->check(CLI::Range(1, 65535))
        ->trigger_on_parse()
        ->group(router);
    app.add_option("--decode", o.decodes, "URL: a decode worker (repeatable)")->group(router);
    app.add_option("--metrics-port", o.metricsPort,
                   "Prometheus port for sgl_router_* metrics, 0 = free")
        ->check(CLI::Range(0, 65535))
        ->capture_default_str()
        ->each([&seen](const std::string &) { seen.metricsPort = true; })
        ->group(router);
    app.add_option("--health-check-interval", o.healthCheckIntervalS,
                   "worker /health poll period, s; a worker turns healthy after one 200 and "
                   "unhealthy after two failures")
        ->check(atLeast(0.05))
        ->capture_default_str()
        ->group(router);
    app.add_option("--worker-failed-after", o.workerFailedAfter,
                   "a worker that was healthy and then fails N health checks in a row is marked "
                   "failed for good (status \"failed\", is_healthy false) even when its /health "
                   "answers again, until it is removed and added again (DELETE then POST "
                   "/workers); 0 = never")
        ->check(CLI::Range(0, 1000000))
        ->capture_default_str()
        ->group(router);

    app.add_option("--upstream", o.upstream,
                   "URL: the HTTP/1.1 keep-alive reverse proxy's upstream; method, path, query, "
                   "body and end-to-end headers are forwarded, SSE streams through; takes the "
                   "--fault flags")
        ->group("PROXY (--role proxy)");

    const char *traffic = "TRAFFIC (--role traffic)";
    app.add_option("--target", o.target, "URL where chat completions go (router, proxy or engine)")
        ->group(traffic);
    app.add_option("--clients", o.clients, "client threads, one keep-alive connection each")
        ->check(CLI::Range(1, 256))
        ->capture_default_str()
        ->group(traffic);
    app.add_option("--max-tokens", o.maxTokens, "max_tokens per request")
        ->check(CLI::Range(1, 1 << 20))
        ->capture_default_str()
        ->group(traffic);
    app.add_option("--idle-gap-ms", o.idleGapMs,
                   "mean think time between rounds, uniform in [MS/2, 3MS/2]")
        ->check(CLI::Range(0, 3600000))
        ->capture_default_str()
        ->group(traffic);
    app.add_option("--rounds", o.rounds, "rounds per conversation before it starts over")
        ->check(CLI::Range(1, 1000))
        ->capture_default_str()
        ->group(traffic);
    app.add_flag("--stream", o.stream, "use SSE streaming requests")->group(traffic);
    app.add_option("--duration", o.durationS, "stop after this many seconds (0 = until SIGTERM)")
        ->check(atLeast(0))
        ->capture_default_str()
        ->group(traffic);
    app.add_option("--requests", o.totalRequests,
                   "stop after this many requests in total (0 = unlimited)")
        ->check(CLI::Range(0L, 1L << 40))
        ->capture_default_str()
        ->group(traffic);
}

} // namespace

std::string SimOptions::roleName(Role role)
{
    switch (role) {
    case Role::Prefill:
        return "prefill";
    case Role::Decode:
        return "decode";
    case Role::Engine:
        return "engine";
    case Role::Router:
        return "router";
    case Role::Proxy:
        return "proxy";
    case Role::Traffic:
        return "traffic";
    }
    return "engine";
}

std::string SimOptions::helpText()
{
    SimOptions o;
    Seen seen;
    CLI::App app;
    app.name("opsdeck-sim");
    define(app, o, seen);
    return app.help();
}

std::optional<SimOptions> SimOptions::parse(const std::vector<std::string> &args,
                                            std::string &error, bool &helpRequested)
{
    SimOptions o;
    Seen seen;
    CLI::App app;
    app.name("opsdeck-sim");
    define(app, o, seen);
    // CLI11 takes the arguments last to first.
    std::vector<std::string> reversed(args.rbegin(), args.rend());
    try {
        app.parse(reversed);
    } catch (const CLI::CallForHelp &) {
        helpRequested = true;
        return std::nullopt;
    } catch (const CLI::ParseError &e) {
        error = e.what();
        return std::nullopt;
    }
    if (app.count("--port") == 0)
        o.port = o.role == Role::Proxy ? 8080 : o.role == Role::Traffic ? 0 : 30000;
    // With --port 0 the caller wants no fixed ports at all: the side servers follow.
    if (o.port == 0 && !seen.bootstrapPort)
        o.bootstrapPort = 0;
    if (o.port == 0 && !seen.metricsPort)
        o.metricsPort = 0;
    if (o.tlsCertFile.empty() != o.tlsKeyFile.empty()) {
        error = "--tls-cert and --tls-key go together";
        return std::nullopt;
    }
    // Opening a FIFO would block before any signal handling: regular files only.
    for (const auto &[flag, path] :
         {std::pair{"--tls-cert", &o.tlsCertFile}, std::pair{"--tls-key", &o.tlsKeyFile}}) {
        struct stat info
        {
        };
        if (!path->empty() && (stat(path->c_str(), &info) != 0 || !S_ISREG(info.st_mode))) {
            error = std::string(flag) + " '" + *path + "' is not a regular file";
            return std::nullopt;
        }
    }
    if (o.role == Role::Router && (o.prefills.empty() || o.decodes.empty())) {
        error = "--role router needs at least one --prefill URL and one --decode URL";
        return std::nullopt;
    }
    if (o.role == Role::Proxy && o.upstream.empty()) {
        error = "--role proxy needs --upstream URL";
        return std::nullopt;
    }
    if (o.role == Role::Traffic && o.target.empty()) {
        error = "--role traffic needs --target URL";
        return std::nullopt;
    }
    return o;
}

} // namespace opsdeck::sim
