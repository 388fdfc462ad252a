#pragma once

#include "inventory.h"
#include "servicestatus.h"
#include "sshconnectionstate.h"
#include "sshsettings.h"

#include <QHash>
#include <QObject>
#include <functional>
#include <memory>
#include <optional>

namespace opsdeck::remote {
class Transport;
}

namespace opsdeck::hosts {

class HostKeyAuditor;
class InventoryTunnels;

/// The window's way to every inventory host (issue 5): one transport per
/// host (LocalTransport for `kind: local`, SshTransport for `kind: ssh`), its
/// connection state, the SSH tunnels of `via:` services, and the unknown
/// host-key question put to the operator.
///
/// Each SshTransport gets SshSettings from its inventory host (name as an
/// ssh config alias; address, port and user as overrides) plus Options
/// (config / known_hosts files, the audit of host-key decisions, and any
/// decoration such as keychain callbacks for passwords).
/// Thread: GUI (or any one thread with an event loop); signals in that thread.
class HostConnections : public QObject
{
    Q_OBJECT
public:
    struct Options
    {
        QString sshConfigFile;  ///< empty: the user's, as OpenSSH
        QString knownHostsFile; ///< empty: the user's
        QString sshDirectory;   ///< empty: ~/.ssh from the password database
        /// Writes host-key decisions to the audit log; may be null (not audited).
        std::shared_ptr<HostKeyAuditor> auditor;
        /// Called on every host's settings last (e.g. keychain password and
        /// passphrase callbacks); may be empty.
        std::function<void(remote::SshSettings &settings)> decorate;

        /// The files the user chose once for every run, window and CLI: group
        /// `[ssh]` of `$XDG_CONFIG_HOME/opsdeck/opsdeck.conf` (the file of
        /// SecretStore::Settings), `config_file=PATH` and `known_hosts_file=PATH`.
        /// A leading `~/` is the password database's home (SshPaths). A missing
        /// or empty key leaves the field empty (the user's ~/.ssh file); a
        /// missing file is no error here (the connect names it). The command
        /// line's `--ssh-config` / `--known-hosts` replace these when given:
        /// pass them as `sshConfigFlag` / `knownHostsFlag` (nullopt: not given).
        static Options fromQSettings(const std::optional<QString> &sshConfigFlag = {},
                                     const std::optional<QString> &knownHostsFlag = {});
    };

    explicit HostConnections(Options options, QObject *parent = nullptr);
    ~HostConnections() override;

    /// Options for the transports made by the next setInventory().
    void setOptions(Options options) { m_options = std::move(options); }
    const Options &options() const { return m_options; }

    /// The settings SshTransport and SshTunnel use for an inventory host.
    static remote::SshSettings sshSettings(const inventory::Host &host, const Options &options);

    /// Replaces every transport and tunnel with those of `inventory`'s
    /// hosts (commands running on the old ones are cancelled), then
    /// connects each ssh host once (a `true` command) so its state shows at
    /// once. Emits hostsChanged().
    void setInventory(const inventory::Inventory &inventory);

    QStringList hostNames() const;
    /// The inventory last given to setInventory() (as written, not routed).
    const std::optional<inventory::Inventory> &inventory() const { return m_inventory; }
    /// nullptr for a host not in the inventory. Valid until the next
    /// setInventory() (hostsChanged() says when) or destruction.
    remote::Transport *transport(const QString &host) const;
    /// Local hosts are always Connected; ssh hosts as their session last said.
    remote::SshConnectionState state(const QString &host) const;
    /// "local" or "ssh user@address:port" (what the inventory says; the ssh
    /// config may map an alias further).
    QString reachedAs(const QString &host) const;
    /// "runs here (no SSH)" for a local host, else SshConnectionState::describe():
    /// "connected", "failed: …", "reconnecting in 4 s: …".
    QString describe(const QString &host) const;

    /// The inventory last given to setInventory(), with its `via:` services
    /// reached through tunnels (InventoryTunnels::routed()); empty before.
    inventory::Inventory routed();
    /// InventoryTunnels::status(): the tunnel of a `via:` service; empty for a direct one.
    QString tunnelStatus(const inventory::Service &service) const;
    /// InventoryTunnels::explain(): a `via:` service is unknown, not down,
    /// while its tunnel has failed.
    void explain(probes::ServiceStatus &status) const;

    /// The operator accepted the unknown key `fingerprint` of `host` in the
    /// dialog: written to the audit log, then the host connects again and
    /// saves exactly that key to known_hosts.
    void acceptHostKey(const QString &host, const QString &fingerprint);
    /// The operator refused it: written to the audit log; the host stays failed.
    void refuseHostKey(const QString &host);

Q_SIGNALS:
    void hostsChanged();
    void stateChanged(const QString &host, const opsdeck::remote::SshConnectionState &state);
    /// A connect was refused because `host`'s key is not in known_hosts
    /// (state.hostKeyType / hostKeyFingerprint / hostEntry say which key).
    /// Emitted once per fingerprint until answered.
    void hostKeyUnknown(const QString &host, const opsdeck::remote::SshConnectionState &state);

private:
    void connectHost(const QString &host);
    void onState(const QString &host, const remote::SshConnectionState &state);

    Options m_options;
    std::optional<inventory::Inventory> m_inventory;
    QHash<QString, remote::Transport *> m_transports; ///< children of this object
    QHash<QString, remote::SshConnectionState> m_states;
    QHash<QString, QString> m_asked; ///< host -> fingerprint put to the operator
    std::unique_ptr<InventoryTunnels> m_tunnels;
};

} // namespace opsdeck::hosts
