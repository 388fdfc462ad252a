#pragma once

#include "sshsettings.h"
#include "sshtunnel.h"

#include <QString>
#include <QUrl>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>

namespace opsdeck::remote {

/// The tunnels that the inventory's `via:` services need: one SshTunnel per
/// (via host, target host, target port), started on first use and kept until
/// the set is destroyed, so a service's health and metrics URLs (same
/// host:port) share one local port. This is the one call the poller and the
/// probes need: route(service.via, url).
/// Thread: any (a mutex guards the map). route() does not wait for the SSH
/// connection: the port listens at once and early requests wait in its
/// backlog until the tunnel's session is up (or are closed if it fails).
class SshTunnelSet
{
public:
    /// Gives the SshSettings that reach an inventory host by name (the same
    /// ones its SshTransport uses); called once per new tunnel, in route()'s thread.
    using SettingsFor = std::function<SshSettings(const QString &host)>;

    explicit SshTunnelSet(SettingsFor settingsFor);
    /// Closes every tunnel (their ports are free when this returns).
    ~SshTunnelSet();

    /// `url` as OpsDeck must request it: unchanged when `via` is empty; else
    /// http(s)://127.0.0.1:<port of the tunnel through `via` to url's
    /// host:port>/same path?same query. An empty QUrl when no local port could
    /// be opened (errorText() says why): never the direct URL, which would
    /// bypass the host the inventory asked for.
    QUrl route(const QString &via, const QUrl &url);
    /// The tunnel that route(via, url) uses, or nullptr before it was made
    /// (for the panel: phase, error, open connections). Valid while the set lives.
    const SshTunnel *tunnel(const QString &via, const QUrl &url) const;
    /// SshTunnel::retryNow() on every tunnel through `via`.
    void retryNow(const QString &via);
    /// The last failure to open a local port.
    QString errorText() const;

private:
    using Key = std::tuple<QString, QString, int>; ///< via host, target host, target port
    static Key keyOf(const QString &via, const QUrl &url);

    SettingsFor m_settingsFor;
    mutable std::mutex m_mutex;
    std::map<Key, std::unique_ptr<SshTunnel>> m_tunnels;
    QString m_error;
};

} // namespace opsdeck::remote
