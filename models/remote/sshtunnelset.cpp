#include "sshtunnelset.h"

namespace opsdeck::remote {

SshTunnelSet::SshTunnelSet(SettingsFor settingsFor) : m_settingsFor(std::move(settingsFor)) {}

SshTunnelSet::~SshTunnelSet() = default;

SshTunnelSet::Key SshTunnelSet::keyOf(const QString &via, const QUrl &url)
{
    return {via, url.host(), url.port(url.scheme() == u"https" ? 443 : 80)};
}

QUrl SshTunnelSet::route(const QString &via, const QUrl &url)
{
    if (via.isEmpty())
        return url;
    const Key key = keyOf(via, url);
    std::lock_guard lock(m_mutex);
    auto found = m_tunnels.find(key);
    if (found == m_tunnels.end()) {
        auto tunnel = std::make_unique<SshTunnel>(via, m_settingsFor(via), std::get<1>(key),
                                                  std::get<2>(key));
        if (!tunnel->start()) {
            m_error = tunnel->errorText();
            return {};
        }
        found = m_tunnels.emplace(key, std::move(tunnel)).first;
    }
    return found->second->tunnelledUrl(url);
}

const SshTunnel *SshTunnelSet::tunnel(const QString &via, const QUrl &url) const
{
    std::lock_guard lock(m_mutex);
    const auto found = m_tunnels.find(keyOf(via, url));
    return found == m_tunnels.end() ? nullptr : found->second.get();
}

QString SshTunnelSet::errorText() const
{
    std::lock_guard lock(m_mutex);
    return m_error;
}

} // namespace opsdeck::remote

namespace opsdeck::remote {

void SshTunnelSet::retryNow(const QString &via)
{
    std::lock_guard lock(m_mutex);
    for (auto &[key, tunnel] : m_tunnels)
        if (std::get<0>(key) == via)
            tunnel->retryNow();
}

} // namespace opsdeck::remote
