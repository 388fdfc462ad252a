#pragma once

#include <functional>
#include <httplib.h>
#include <memory>

namespace opsdeck::sim {

class UpstreamCall;

/// Turns an UpstreamCall into the response of the handler that forwarded it
/// (router and proxy). A `text/event-stream` answer is streamed through
/// chunk by chunk as it arrives; anything else is relayed whole with its
/// status and end-to-end headers. A client that disconnects cancels the
/// upstream exchange, so the engine drops the request from its batch.
class ResponseRelay
{
public:
    /// Called once when the relay ends: upstream status (502 when it failed
    /// before answering) and whether the exchange failed.
    using Done = std::function<void(int status, bool failed)>;

    /// End-to-end request headers to forward (drops hop-by-hop ones, Host,
    /// Content-Length, and asks the upstream for an unencoded body).
    static httplib::Headers requestHeaders(const httplib::Headers &in);
    /// Relays `call` into `res`; for a stream `done` runs after the handler returned.
    static void relay(const std::shared_ptr<UpstreamCall> &call, httplib::Response &res, Done done);
    /// Waits for the upstream's headers while the client is still there and no
    /// shutdown began; false when the wait was given up or the upstream failed.
    static bool awaitHeaders(UpstreamCall &call);
};

} // namespace opsdeck::sim
