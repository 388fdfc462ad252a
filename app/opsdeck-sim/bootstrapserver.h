#pragma once

#include "httpserver.h"

#include <memory>
#include <string>

namespace opsdeck::sim {

class KvRegistry;
class PeerAgents;

/// The prefill's bootstrap server (SGLang runs one on
/// --disaggregation-bootstrap-port, default 8998): decode engines contact it
/// to hand over the KV of a bootstrap room.
///
/// Endpoints (plain HTTP, JSON):
///   GET /health                          200 "OK"
///   GET /route?bootstrap_room=R          handshake: the prefill's rank info
///       and its instance_id; the decode adds decode_instance=ID and
///       decode_addr=HOST:PORT (its own instance and listen address), which
///       PeerAgents checks: a stale nixl peer leaves the room pending for good
///   GET /kv?bootstrap_room=R&wait_ms=M   long poll (M <= 5000): 200 ready,
///       202 still pending, 404 room unknown to the prefill, 410 prefill failed;
///       the same decode_instance / decode_addr: a ready answer remembers that decode
///
/// Threads: HTTP handlers on the server's pool; start/stop from main.
class BootstrapServer
{
public:
    /// `instanceId`: this prefill's (EngineService); `decodes`: its memory of decodes.
    BootstrapServer(KvRegistry &registry, PeerAgents &decodes, HttpServer::Settings settings,
                    std::string transferBackend, int dpSize, std::string instanceId);
    ~BootstrapServer();

    bool start(const std::string &host, int port, std::string &error);
    int port() const { return m_server.boundPort(); }
    void stop();

private:
    KvRegistry &m_registry;
    PeerAgents &m_decodes;
    HttpServer m_server;
    std::string m_host;
    const std::string m_transferBackend;
    const int m_dpSize;
    const std::string m_instanceId;
};

} // namespace opsdeck::sim
