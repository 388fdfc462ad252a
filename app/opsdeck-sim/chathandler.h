#pragma once

#include "kvreceiver.h"
#include "simoptions.h"

#include <atomic>
#include <functional>
#include <httplib.h>
#include <memory>
#include <vector>

namespace opsdeck::sim {

class ChatRequest;
class KvRegistry;
class PdCounters;
class PeerAgents;
class Scheduler;
class SimRequest;

/// POST /v1/chat/completions of an engine (prefill, decode or unified).
///
/// A request carrying bootstrap_room is, on a prefill, prefilled only (one
/// token) and its KV registered under the room; on a decode it first receives
/// the room's KV (KvReceiver), then decodes. Anything else runs prefill and
/// decode here. PD requests go to dp rank room % dp, others round-robin.
/// Non-streaming answers wait for the last token (and give up when the client
/// disconnects); streaming answers send one chat.completion.chunk per token
/// and cancel the request when the client goes away, so it leaves the batch.
///
/// Threads: handle() runs on HTTP worker threads, concurrently.
class ChatHandler
{
public:
    /// `prefills` (a decode's memory of prefills, else nullptr) and
    /// `instanceId` go to its KvReceiver.
    ChatHandler(const SimOptions &options, std::vector<std::unique_ptr<Scheduler>> &schedulers,
                KvRegistry *registry, PdCounters &pd, std::function<bool()> ready,
                PeerAgents *prefills, std::string instanceId);
    /// The engine's listen address (HOST:PORT) for the KV handshake; set before serving.
    void setAddress(std::string address) { m_receiver.setAddress(std::move(address)); }

    void handle(const httplib::Request &req, httplib::Response &res);

private:
    bool receiveKv(const ChatRequest &chat, int rank, httplib::Response &res);
    void respondWhole(const ChatRequest &chat, const std::shared_ptr<SimRequest> &request,
                      httplib::Response &res);
    void respondStream(const ChatRequest &chat, const std::shared_ptr<SimRequest> &request,
                       httplib::Response &res);
    std::function<void()> roomFailer(const ChatRequest &chat,
                                     const std::shared_ptr<SimRequest> &request) const;

    const SimOptions &m_options;
    std::vector<std::unique_ptr<Scheduler>> &m_schedulers;
    KvRegistry *m_registry; ///< prefill only
    PdCounters &m_pd;
    std::function<bool()> m_ready;
    KvReceiver m_receiver;
    std::atomic<unsigned> m_nextRank{0};
};

} // namespace opsdeck::sim
