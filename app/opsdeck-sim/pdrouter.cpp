#include "pdrouter.h"

#include "chatresponder.h"
#include "httpserver.h"
#include "logger.h"
#include "responserelay.h"
#include "routermetrics.h"
#include "shutdownflag.h"
#include "simjson.h"
#include "upstreamcall.h"

#include <chrono>

namespace opsdeck::sim {

namespace {

constexpr const char *kRoute = "/v1/chat/completions";

void sendError(httplib::Response &res, int status, const std::string &message)
{
    res.status = status;
    res.set_content(
        ChatResponder::errorBody(
            message, status == 400 ? "BadRequestError" : "ServiceUnavailableError", status),
        "application/json");
}

} // namespace

PdRouter::PdRouter(WorkerPool &workers, RouterMetrics &metrics)
    : m_workers(workers), m_metrics(metrics), m_rng(std::random_device{}())
{
}

std::uint64_t PdRouter::nextRoom()
{
    std::lock_guard lock(m_rngMutex);
    return m_rng() & ((1ULL << 63) - 1);
}

std::string PdRouter::withBootstrap(const std::string &body, const std::string &host, int port,
                                    std::uint64_t room)
{
    const size_t close = body.rfind('}');
    std::string head = body.substr(0, close);
    size_t last = head.find_last_not_of(" \t\r\n");
    const bool empty = last == std::string::npos || head[last] == '{';
    std::string fields = std::string(empty ? "" : ",") + "\"bootstrap_host\":\"" + host +
                         "\",\"bootstrap_port\":" + std::to_string(port) +
                         ",\"bootstrap_room\":" + std::to_string(room);
    return head + fields + body.substr(close);
}

void PdRouter::handle(const httplib::Request &req, httplib::Response &res)
{
    using Clock = std::chrono::steady_clock;
    const auto start = Clock::now();
    m_metrics.recordRequest(kRoute);
    const auto finishWith = [&, start](int status, const std::string &errorType) {
        const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
        m_metrics.recordDuration(kRoute, seconds);
        if (status >= 400)
            m_metrics.recordRequestError(kRoute, errorType);
    };

    const auto doc = parsedJson(req.body);
    if (!doc || !doc->is_object()) {
        sendError(res, 400, "Invalid JSON body: expected a chat completion request object");
        return finishWith(400, "invalid_request");
    }
    WorkerPool::Worker *prefill = m_workers.pick(WorkerPool::Type::Prefill);
    WorkerPool::Worker *decode = m_workers.pick(WorkerPool::Type::Decode);
    if (!prefill || !decode) {
        m_metrics.recordPdError("no_available_workers");
        sendError(res, 503,
                  std::string("No available ") + (prefill ? "decode" : "prefill") +
                      " workers (all unhealthy or not checked yet)");
        return finishWith(503, "no_available_workers");
    }
    const int bootstrapPort = prefill->bootstrapPort;
    if (bootstrapPort <= 0) {
        m_metrics.recordPdError("bootstrap_port_unknown");
        sendError(res, 503, "Bootstrap port of prefill " + prefill->url + " not known yet");
        return finishWith(503, "bootstrap_port_unknown");
    }

    const std::string body =
        withBootstrap(req.body, prefill->address.host(), bootstrapPort, nextRoom());
    UpstreamCall::Request toDecode;
    toDecode.method = "POST";
    toDecode.path = decode->address.path() + kRoute;
    toDecode.headers = ResponseRelay::requestHeaders(req.headers);
    toDecode.body = body;
    UpstreamCall::Request toPrefill = toDecode;
    toPrefill.path = prefill->address.path() + kRoute;
    auto prefillCall = std::make_shared<UpstreamCall>(*prefill->pool, std::move(toPrefill));
    auto decodeCall = std::make_shared<UpstreamCall>(*decode->pool, std::move(toDecode));
    m_metrics.recordPdRequest(kRoute, prefill->url, decode->url);
    ++prefill->processed;
    ++decode->processed;
    ++prefill->running;
    ++decode->running;

    // The decode answers only after it received the KV, so a prefill that
    // fails first decides the outcome.
    while (!decodeCall->waitForHeaders(std::chrono::milliseconds(50))) {
        const bool prefillBad =
            prefillCall->finished() && (prefillCall->failed() || prefillCall->status() >= 400);
        if (prefillBad || decodeCall->finished() || ShutdownFlag::triggered() ||
            !HttpServer::currentClientConnected())
            break;
    }
    auto done = [this, start, prefill, decode, prefillCall](int status, bool failed) {
        // Let the prefill's (ignored) answer complete, so its connection is reused.
        prefillCall->waitFinished(std::chrono::seconds(1));
        --prefill->running;
        --decode->running;
        const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
        m_metrics.recordDuration(kRoute, seconds);
        m_metrics.recordPdDuration(kRoute, seconds);
        if (failed || status >= 400) {
            m_metrics.recordRequestError(kRoute, "pd_request_failed");
            m_metrics.recordPdError(failed ? "decode_unreachable" : "decode_error");
            m_metrics.recordDecodeError(decode->url);
        }
    };
    if (!decodeCall->headersReady() && prefillCall->finished() &&
        (prefillCall->failed() || prefillCall->status() >= 400)) {
        decodeCall->cancel();
        const bool unreachable = prefillCall->failed();
        const int status = unreachable ? 502 : prefillCall->status();
        m_metrics.recordPrefillError(prefill->url);
        m_metrics.recordPdError(unreachable ? "prefill_unreachable" : "prefill_error");
        Logger::warn("prefill " + prefill->url + " failed: " +
                     (unreachable ? prefillCall->error() : "status " + std::to_string(status)));
        sendError(res, status,
                  "Prefill worker " + prefill->url + " failed: " +
                      (unreachable ? prefillCall->error() : "status " + std::to_string(status)));
        --prefill->running;
        --decode->running;
        return finishWith(status, "prefill_failed");
    }
    ResponseRelay::relay(decodeCall, res, done);
}

} // namespace opsdeck::sim
