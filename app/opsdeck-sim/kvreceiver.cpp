#include "kvreceiver.h"

#include "peeragents.h"
#include "shutdownflag.h"
#include "simjson.h"

#include <httplib.h>

namespace opsdeck::sim {

KvReceiver::Result KvReceiver::receive(const std::string &host, int port, std::uint64_t room,
                                       const std::function<void()> &onHandshake,
                                       const std::function<bool()> &keepGoing) const
{
    using Clock = std::chrono::steady_clock;
    const auto start = Clock::now();
    auto finish = [&](Outcome outcome, std::string detail) {
        Result result;
        result.outcome = outcome;
        result.detail = std::move(detail);
        result.waitedMs = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
        return result;
    };
    const std::string where = host + ":" + std::to_string(port);
    const std::string roomText = std::to_string(room);
    // Who this decode is, for the prefill's PeerAgents.
    const std::string self = m_address.empty()
                                 ? std::string()
                                 : "&decode_instance=" + m_instanceId + "&decode_addr=" + m_address;

    httplib::Client client(host, port);
    client.set_keep_alive(true);
    client.set_tcp_nodelay(true);
    client.set_connection_timeout(std::chrono::seconds(2));
    client.set_read_timeout(std::chrono::seconds(10));

    bool handshaken = false;
    std::string prefillInstance;
    for (int attempt = 0; attempt < 3 && !handshaken; ++attempt) {
        if (!keepGoing())
            return finish(Outcome::Aborted, "client gone");
        if (attempt > 0 && !ShutdownFlag::sleepFor(std::chrono::milliseconds(200)))
            return finish(Outcome::Aborted, "shutdown");
        const auto res = client.Get("/route?bootstrap_room=" + roomText + self);
        handshaken = res && res->status == 200;
        if (handshaken) {
            const auto route = parsedJson(res->body);
            const std::string *instance = route ? stringMember(*route, "instance_id") : nullptr;
            prefillInstance = instance ? *instance : std::string();
        }
    }
    if (!handshaken)
        return finish(Outcome::BootstrapFailed, "bootstrap server " + where + " unreachable");
    onHandshake();

    const auto deadline = start + m_timeout;
    const auto notReady = [&](const std::string &why) {
        return finish(Outcome::TransferFailed, "room " + roomText + " not ready within " +
                                                   std::to_string(m_timeout.count()) + " ms" + why);
    };
    if (m_prefills && m_prefills->check(where, prefillInstance) == PeerAgents::Verdict::Stale) {
        // The transfer goes through the old prefill's agent, which is gone: it
        // never completes, and nothing tells the decode so before its timeout.
        while (Clock::now() < deadline) {
            if (!keepGoing())
                return finish(Outcome::Aborted, "client gone");
            const auto left = deadline - Clock::now();
            if (!ShutdownFlag::sleepFor(std::chrono::duration_cast<std::chrono::milliseconds>(
                    std::min<Clock::duration>(left, std::chrono::milliseconds(100)))))
                return finish(Outcome::Aborted, "shutdown");
        }
        return notReady(" (nixl: stale agent metadata for prefill " + where + ")");
    }
    int lostConnections = 0;
    for (;;) {
        if (!keepGoing())
            return finish(Outcome::Aborted, "client gone");
        const auto left =
            std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
        if (left.count() <= 0)
            return notReady({});
        const long waitMs = std::min<long>(1000, left.count());
        const auto res = client.Get("/kv?bootstrap_room=" + roomText +
                                    "&wait_ms=" + std::to_string(waitMs) + self);
        if (!res) {
            // The prefill vanished mid-transfer; a couple of retries ride out a blip.
            if (++lostConnections >= 3)
                return finish(Outcome::TransferFailed, "lost the prefill at " + where);
            ShutdownFlag::sleepFor(std::chrono::milliseconds(100));
            continue;
        }
        lostConnections = 0;
        if (res->status == 200) {
            if (m_prefills)
                m_prefills->remember(where, prefillInstance);
            return finish(Outcome::Ready, {});
        }
        if (res->status == 410)
            return finish(Outcome::TransferFailed, "prefill failed room " + roomText);
        // 202 pending or 404 not yet known to the prefill: poll again.
    }
}

} // namespace opsdeck::sim
