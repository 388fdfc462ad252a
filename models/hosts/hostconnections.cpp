#include "hostconnections.h"

#include "apppaths.h"
#include "hostkeyauditor.h"
#include "inventorytunnels.h"
#include "localtransport.h"
#include "secretstore.h"
#include "settingsvalues.h"
#include "sshpaths.h"
#include "sshtransport.h"

#include <QSettings>

namespace opsdeck::hosts {

using remote::SshConnectionState;

HostConnections::Options
HostConnections::Options::fromQSettings(const std::optional<QString> &sshConfigFlag,
                                        const std::optional<QString> &knownHostsFlag)
{
    // The same file SecretStore reads, whatever the application's name.
    QSettings conf(settings::AppPaths::configFile(), QSettings::IniFormat);
    conf.beginGroup(QStringLiteral("ssh"));
    Options options;
    // A comma in a path is kept (settingsvalues.h: Qt would split it into a list).
    options.sshConfigFile = sshConfigFlag.value_or(remote::SshPaths::expandTilde(
        settings::settingsString(conf, QStringLiteral("config_file"))));
    options.knownHostsFile = knownHostsFlag.value_or(remote::SshPaths::expandTilde(
        settings::settingsString(conf, QStringLiteral("known_hosts_file"))));
    return options;
}

HostConnections::HostConnections(Options options, QObject *parent)
    : QObject(parent), m_options(std::move(options))
{
}

HostConnections::~HostConnections() = default;

remote::SshSettings HostConnections::sshSettings(const inventory::Host &host,
                                                 const Options &options)
{
    remote::SshSettings settings;
    // The inventory name is also looked up in the ssh config, as an alias;
    // the inventory's address, port and user beat the config (as ssh -p / -l).
    settings.host = host.name;
    settings.address = host.address;
    settings.port = host.port;
    settings.user = host.user;
    settings.configFile = options.sshConfigFile;
    settings.knownHostsFile = options.knownHostsFile;
    settings.sshDirectory = options.sshDirectory;
    if (options.auditor)
        settings.hostKeyDecided =
            [auditor = options.auditor](const remote::HostKeyDecision &decision, QString *error) {
                return auditor->record(decision, error);
            };
    if (options.decorate)
        options.decorate(settings);
    return settings;
}

void HostConnections::setInventory(const inventory::Inventory &inventory)
{
    // Tunnels first: their sessions use the old settings and ports.
    m_tunnels.reset();
    qDeleteAll(m_transports);
    m_transports.clear();
    m_states.clear();
    m_inventory = inventory;

    for (const inventory::Host &host : inventory.hosts) {
        remote::Transport *transport = nullptr;
        if (host.kind == inventory::HostKind::Ssh) {
            auto *ssh = new remote::SshTransport(host.name, sshSettings(host, m_options), this);
            connect(ssh, &remote::SshTransport::connectionStateChanged, this,
                    [this, name = host.name](const SshConnectionState &state) {
                        onState(name, state);
                    });
            transport = ssh;
        } else {
            transport = new remote::LocalTransport(host.name, this);
            SshConnectionState local;
            local.phase = SshConnectionState::Phase::Connected;
            m_states.insert(host.name, local);
        }
        m_transports.insert(host.name, transport);
    }
    m_tunnels = std::make_unique<InventoryTunnels>(
        inventory,
        [options = m_options](const inventory::Host &host) { return sshSettings(host, options); });
    Q_EMIT hostsChanged();
    for (const inventory::Host &host : inventory.hosts)
        if (host.kind == inventory::HostKind::Ssh)
            connectHost(host.name);
}

void HostConnections::connectHost(const QString &host)
{
    remote::Transport *transport = m_transports.value(host);
    if (!transport)
        return;
    // A no-op command makes the session connect now, so the window shows the
    // host's state (and asks about an unknown key) before anything needs it.
    remote::CommandRequest request;
    request.argv = QStringList{QStringLiteral("true")};
    request.deadline = std::chrono::seconds(30);
    transport->run(request);
}

void HostConnections::onState(const QString &host, const SshConnectionState &state)
{
    m_states.insert(host, state);
    Q_EMIT stateChanged(host, state);
    if (state.failure == SshConnectionState::Failure::HostKeyRefused && state.hostKeyUnknown &&
        m_asked.value(host) != state.hostKeyFingerprint) {
        m_asked.insert(host, state.hostKeyFingerprint);
        Q_EMIT hostKeyUnknown(host, state);
    }
}

QStringList HostConnections::hostNames() const
{
    QStringList names;
    if (m_inventory)
        for (const inventory::Host &host : m_inventory->hosts)
            names << host.name;
    return names;
}

remote::Transport *HostConnections::transport(const QString &host) const
{
    return m_transports.value(host);
}

SshConnectionState HostConnections::state(const QString &host) const
{
    return m_states.value(host);
}

QString HostConnections::reachedAs(const QString &host) const
{
    const inventory::Host *entry = m_inventory ? m_inventory->host(host) : nullptr;
    if (!entry)
        return {};
    if (entry->kind == inventory::HostKind::Local)
        return QStringLiteral("local");
    const QString address = entry->address.isEmpty() ? entry->name : entry->address;
    return QStringLiteral("ssh %1%2:%3")
        .arg(entry->user.isEmpty() ? QString() : entry->user + u'@', address)
        .arg(entry->port);
}

QString HostConnections::describe(const QString &host) const
{
    const inventory::Host *entry = m_inventory ? m_inventory->host(host) : nullptr;
    if (entry && entry->kind == inventory::HostKind::Local)
        return QStringLiteral("runs here (no SSH)");
    return m_states.value(host).describe();
}

inventory::Inventory HostConnections::routed()
{
    return m_tunnels ? m_tunnels->routed() : inventory::Inventory{};
}

QString HostConnections::tunnelStatus(const inventory::Service &service) const
{
    return m_tunnels ? m_tunnels->status(service) : QString();
}

void HostConnections::explain(probes::ServiceStatus &status) const
{
    if (m_tunnels)
        m_tunnels->explain(status);
}

void HostConnections::acceptHostKey(const QString &host, const QString &fingerprint)
{
    auto *ssh = qobject_cast<remote::SshTransport *>(m_transports.value(host));
    if (!ssh)
        return;
    const SshConnectionState state = m_states.value(host);
    if (m_options.auditor)
        m_options.auditor->recordOperatorAnswer(host, state.hostKeyType, fingerprint, true);
    ssh->acceptHostKey(fingerprint);
    connectHost(host);
    // The transport's connect saves the key; the tunnels then match it.
    if (m_tunnels)
        m_tunnels->retryNow(host);
}

void HostConnections::refuseHostKey(const QString &host)
{
    const SshConnectionState state = m_states.value(host);
    if (m_options.auditor)
        m_options.auditor->recordOperatorAnswer(host, state.hostKeyType, state.hostKeyFingerprint,
                                                false);
}

} // namespace opsdeck::hosts
