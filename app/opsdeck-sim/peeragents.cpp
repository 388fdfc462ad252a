#include "peeragents.h"

#include "logger.h"

namespace opsdeck::sim {

PeerAgents::PeerAgents(std::string backend, std::string peerRole)
    : m_nixl(backend == "nixl"), m_peerRole(std::move(peerRole))
{
}

PeerAgents::Verdict PeerAgents::check(const std::string &address, const std::string &instance)
{
    std::lock_guard lock(m_mutex);
    const auto it = m_known.find(address);
    if (instance.empty() || it == m_known.end() || it->second == instance)
        return Verdict::Usable;
    const std::string change = " (instance " + it->second + ", now " + instance + ")";
    if (!m_nixl) {
        Logger::info("mooncake: " + m_peerRole + " " + address + " restarted" + change +
                     ": re-registered its transfer metadata");
        it->second = instance;
        return Verdict::Usable;
    }
    // Every request would repeat it: one line per peer and new instance.
    if (m_warned.insert(address + " " + instance).second)
        Logger::warn("nixl: stale agent metadata for " + m_peerRole + " " + address + change +
                     ": transfers hang until both sides restart");
    return Verdict::Stale;
}

void PeerAgents::remember(const std::string &address, const std::string &instance)
{
    if (instance.empty())
        return;
    std::lock_guard lock(m_mutex);
    if (m_nixl)
        m_known.try_emplace(address, instance);
    else
        m_known[address] = instance;
}

} // namespace opsdeck::sim
