#include "simoptions.h"

#include <charconv>
#include <cstdlib>
#include <functional>
#include <map>
#include <sys/stat.h>
#include <utility>

namespace opsdeck::sim {

namespace {

bool toInt(const std::string &text, long &out)
{
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
    return ec == std::errc() && ptr == text.data() + text.size() && !text.empty();
}

bool toDouble(const std::string &text, double &out)
{
    char *end = nullptr;
    out = std::strtod(text.c_str(), &end);
    return !text.empty() && end == text.c_str() + text.size();
}

bool isDigits(const std::string &text)
{
    long ignored = 0;
    return toInt(text, ignored);
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

std::optional<SimOptions> SimOptions::parse(const std::vector<std::string> &args,
                                            std::string &error, bool &helpRequested)
{
    SimOptions o;
    bool roleSeen = false;
    bool portSeen = false;
    bool bootstrapSeen = false;
    bool metricsSeen = false;
    size_t i = 0;

    auto value = [&](const std::string &flag, std::string &out) {
        if (i + 1 >= args.size()) {
            error = flag + " needs a value";
            return false;
        }
        out = args[++i];
        return true;
    };
    auto intFlag = [&](long min, long max, auto &target) {
        return [&, min, max](const std::string &flag) {
            std::string text;
            long parsed = 0;
            if (!value(flag, text))
                return false;
            if (!toInt(text, parsed) || parsed < min || parsed > max) {
                error = flag + " expects an integer in [" + std::to_string(min) + ", " +
                        std::to_string(max) + "], got '" + text + "'";
                return false;
            }
            target = static_cast<std::remove_reference_t<decltype(target)>>(parsed);
            return true;
        };
    };
    auto doubleFlag = [&](double min, double &target) {
        return [&, min](const std::string &flag) {
            std::string text;
            double parsed = 0;
            if (!value(flag, text))
                return false;
            if (!toDouble(text, parsed) || parsed < min) {
                error =
                    flag + " expects a number >= " + std::to_string(min) + ", got '" + text + "'";
                return false;
            }
            target = parsed;
            return true;
        };
    };
    auto stringFlag = [&](std::string &target) {
        return [&](const std::string &flag) { return value(flag, target); };
    };

    using Handler = std::function<bool(const std::string &)>;
    const std::map<std::string, Handler> handlers = {
        {"--role",
         [&](const std::string &flag) {
             std::string text;
             if (!value(flag, text))
                 return false;
             static const std::map<std::string, Role> roles = {
                 {"prefill", Role::Prefill}, {"decode", Role::Decode}, {"engine", Role::Engine},
                 {"router", Role::Router},   {"proxy", Role::Proxy},   {"traffic", Role::Traffic}};
             const auto it = roles.find(text);
             if (it == roles.end()) {
                 error = "unknown --role '" + text +
                         "' (expected prefill|decode|engine|router|proxy|traffic)";
                 return false;
             }
             o.role = it->second;
             roleSeen = true;
             return true;
         }},
        {"--host", stringFlag(o.host)},
        {"--port",
         [&](const std::string &flag) {
             portSeen = true;
             return intFlag(0, 65535, o.port)(flag);
         }},
        {"--threads", intFlag(0, 4096, o.threads)},
        {"--keep-alive-timeout", intFlag(1, 86400, o.keepAliveTimeoutS)},
        {"--keep-alive-max-count", intFlag(1, 1000000, o.keepAliveMaxCount)},
        {"--read-timeout", intFlag(1, 86400, o.readTimeoutS)},
        {"--write-timeout", intFlag(1, 86400, o.writeTimeoutS)},
        {"--upstream-timeout", intFlag(1, 86400, o.upstreamTimeoutS)},
        {"--fault",
         [&](const std::string &flag) {
             std::string text;
             if (!value(flag, text))
                 return false;
             if (text == "none") {
                 o.faultStallS = 0;
                 o.faultSchedulerStuck = false;
                 return true;
             }
             if (text == "scheduler-stuck") {
                 o.faultSchedulerStuck = true;
                 return true;
             }
             const std::string prefix = "reused-stall=";
             double seconds = 0;
             // A stall is a finite number of seconds (NaN and inf would silently not stall).
             if (text.rfind(prefix, 0) != 0 || !toDouble(text.substr(prefix.size()), seconds) ||
                 !(seconds >= 0 && seconds <= 86400)) {
                 error = "unknown --fault '" + text +
                         "' (expected reused-stall=SECONDS, scheduler-stuck or none)";
                 return false;
             }
             o.faultStallS = seconds;
             return true;
         }},
        {"--fault-after", intFlag(0, 1000000, o.faultAfter)},
        {"--log-requests",
         [&](const std::string &) {
             o.logRequests = true;
             return true;
         }},
        {"--log-interval", doubleFlag(0.1, o.logIntervalS)},
        {"--api-key",
         [&](const std::string &flag) {
             // An empty key would serve without any check: refuse it.
             if (!stringFlag(o.apiKey)(flag))
                 return false;
             if (!o.apiKey.empty())
                 return true;
             error = "--api-key needs a non-empty key";
             return false;
         }},
        {"--tls-cert", stringFlag(o.tlsCertFile)},
        {"--tls-key", stringFlag(o.tlsKeyFile)},
        {"--served-model-name", stringFlag(o.servedModelName)},
        {"--model-path", stringFlag(o.servedModelName)},
        {"--ready-delay", doubleFlag(0, o.readyDelayS)},
        {"--dp", intFlag(1, 64, o.dp)},
        {"--dp-size", intFlag(1, 64, o.dp)},
        {"--tp", intFlag(1, 64, o.tp)},
        {"--tp-size", intFlag(1, 64, o.tp)},
        {"--max-running-requests", intFlag(1, 1024, o.maxRunningRequests)},
        {"--decode-log-interval", intFlag(1, 1000000, o.decodeLogInterval)},
        {"--chunked-prefill-size", intFlag(1, 1 << 24, o.chunkedPrefillSize)},
        {"--max-total-tokens", intFlag(1, 1 << 30, o.maxTotalTokens)},
        {"--transfer-backend", stringFlag(o.transferBackend)},
        {"--disaggregation-transfer-backend", stringFlag(o.transferBackend)},
        {"--disaggregation-bootstrap-port",
         [&](const std::string &flag) {
             bootstrapSeen = true;
             return intFlag(0, 65535, o.bootstrapPort)(flag);
         }},
        {"--kv-transfer-timeout", doubleFlag(0.1, o.kvTransferTimeoutS)},
        {"--decode-step-base-ms", doubleFlag(0, o.decodeStepBaseMs)},
        {"--decode-step-per-req-ms", doubleFlag(0, o.decodeStepPerReqMs)},
        {"--prefill-step-base-ms", doubleFlag(0, o.prefillStepBaseMs)},
        {"--prefill-step-per-token-ms", doubleFlag(0, o.prefillStepPerTokenMs)},
        {"--stream-empty-first-chunk",
         [&](const std::string &) {
             o.streamEmptyFirstChunk = true;
             return true;
         }},
        {"--stream-split-events",
         [&](const std::string &) {
             o.streamSplitEvents = true;
             return true;
         }},
        {"--first-token-delay-ms", intFlag(0, 60000, o.firstTokenDelayMs)},
        {"--prefill",
         [&](const std::string &flag) {
             PrefillWorker worker;
             if (!value(flag, worker.url))
                 return false;
             // The real router takes the bootstrap port as an optional positional value.
             if (i + 1 < args.size() && isDigits(args[i + 1]))
                 worker.bootstrapPort = std::atoi(args[++i].c_str());
             o.prefills.push_back(worker);
             return true;
         }},
        {"--prefill-bootstrap-port",
         [&](const std::string &flag) {
             if (o.prefills.empty()) {
                 error = flag + " must follow a --prefill URL";
                 return false;
             }
             return intFlag(1, 65535, o.prefills.back().bootstrapPort)(flag);
         }},
        {"--decode",
         [&](const std::string &flag) {
             std::string url;
             if (!value(flag, url))
                 return false;
             o.decodes.push_back(url);
             return true;
         }},
        {"--metrics-port",
         [&](const std::string &flag) {
             metricsSeen = true;
             return intFlag(0, 65535, o.metricsPort)(flag);
         }},
        {"--health-check-interval", doubleFlag(0.05, o.healthCheckIntervalS)},
        {"--upstream", stringFlag(o.upstream)},
        {"--target", stringFlag(o.target)},
        {"--clients", intFlag(1, 256, o.clients)},
        {"--max-tokens", intFlag(1, 1 << 20, o.maxTokens)},
        {"--idle-gap-ms", intFlag(0, 3600000, o.idleGapMs)},
        {"--rounds", intFlag(1, 1000, o.rounds)},
        {"--stream",
         [&](const std::string &) {
             o.stream = true;
             return true;
         }},
        {"--duration", doubleFlag(0, o.durationS)},
        {"--requests", intFlag(0, 1L << 40, o.totalRequests)},
    };

    for (; i < args.size(); ++i) {
        const std::string &flag = args[i];
        if (flag == "-h" || flag == "--help") {
            helpRequested = true;
            return std::nullopt;
        }
        const auto it = handlers.find(flag);
        if (it == handlers.end()) {
            error = "unknown argument '" + flag + "' (see --help)";
            return std::nullopt;
        }
        if (!it->second(flag))
            return std::nullopt;
    }

    if (!roleSeen) {
        error = "--role is required (prefill|decode|engine|router|proxy|traffic)";
        return std::nullopt;
    }
    if (!portSeen)
        o.port = o.role == Role::Proxy ? 8080 : o.role == Role::Traffic ? 0 : 30000;
    // With --port 0 the caller wants no fixed ports at all: the side servers follow.
    if (o.port == 0 && !bootstrapSeen)
        o.bootstrapPort = 0;
    if (o.port == 0 && !metricsSeen)
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
    if (o.transferBackend != "mooncake" && o.transferBackend != "nixl") {
        error = "--transfer-backend expects mooncake or nixl, got '" + o.transferBackend + "'";
        return std::nullopt;
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
