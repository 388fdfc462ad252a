#include "responserelay.h"

#include "chatresponder.h"
#include "httpserver.h"
#include "shutdownflag.h"
#include "upstreamcall.h"

#include <algorithm>
#include <cctype>

namespace opsdeck::sim {

namespace {

bool sameName(const std::string &a, const char *b)
{
    const std::string_view other(b);
    return a.size() == other.size() &&
           std::equal(a.begin(), a.end(), other.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) ==
                      std::tolower(static_cast<unsigned char>(y));
           });
}

bool isHopByHop(const std::string &name)
{
    for (const char *hop : {"Connection", "Keep-Alive", "Proxy-Authenticate", "Proxy-Authorization",
                            "TE", "Trailer", "Trailers", "Transfer-Encoding", "Upgrade",
                            "Content-Length", "Host", "Accept-Encoding", "Content-Encoding"}) {
        if (sameName(name, hop))
            return true;
    }
    return false;
}

} // namespace

httplib::Headers ResponseRelay::requestHeaders(const httplib::Headers &in)
{
    httplib::Headers out;
    for (const auto &[name, value] : in) {
        // httplib adds REMOTE_ADDR/LOCAL_ADDR style pseudo headers on the server side.
        if (!isHopByHop(name) && name.rfind("REMOTE_", 0) != 0 && name.rfind("LOCAL_", 0) != 0)
            out.emplace(name, value);
    }
    out.emplace("Accept-Encoding", "identity");
    return out;
}

bool ResponseRelay::awaitHeaders(UpstreamCall &call)
{
    while (!call.waitForHeaders(std::chrono::milliseconds(100))) {
        if (call.finished())
            return false;
        if (ShutdownFlag::triggered() || !HttpServer::currentClientConnected()) {
            call.cancel();
            return false;
        }
    }
    return true;
}

void ResponseRelay::relay(const std::shared_ptr<UpstreamCall> &call, httplib::Response &res,
                          Done done)
{
    if (!awaitHeaders(*call)) {
        res.status = 502;
        res.set_content(ChatResponder::errorBody("upstream unavailable: " + call->error(),
                                                 "BadGatewayError", 502),
                        "application/json");
        done(502, true);
        return;
    }
    res.status = call->status();
    std::string contentType = "application/octet-stream";
    for (const auto &[name, value] : call->headers()) {
        if (sameName(name, "Content-Type"))
            contentType = value;
        else if (!isHopByHop(name))
            res.set_header(name, value);
    }

    if (contentType.rfind("text/event-stream", 0) == 0) {
        const int status = res.status;
        res.set_chunked_content_provider(
            contentType,
            [call](size_t, httplib::DataSink &sink) {
                std::string chunk;
                const bool more = call->next(chunk, std::chrono::milliseconds(100));
                if (!chunk.empty() && !sink.write(chunk.data(), chunk.size())) {
                    call->cancel(); // our client went away: tell the upstream
                    return false;
                }
                if (!more) {
                    sink.done();
                    return true;
                }
                if (chunk.empty() && !sink.is_writable()) {
                    call->cancel();
                    return false;
                }
                return true;
            },
            [call, status, done](bool) {
                call->cancel();
                done(status, call->failed());
            });
        return;
    }

    std::string body;
    std::string chunk;
    while (call->next(chunk, std::chrono::milliseconds(100))) {
        body += chunk;
        if (chunk.empty() && (ShutdownFlag::triggered() || !HttpServer::currentClientConnected()))
            call->cancel();
    }
    if (call->failed()) {
        res.status = 502;
        res.set_content(ChatResponder::errorBody("upstream failed mid-response: " + call->error(),
                                                 "BadGatewayError", 502),
                        "application/json");
        done(502, true);
        return;
    }
    res.set_content(body, contentType);
    done(res.status, false);
}

} // namespace opsdeck::sim
