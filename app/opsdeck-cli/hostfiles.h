#pragma once

#include "inventory.h"

#include <QCommandLineParser>
#include <QString>
#include <memory>
#include <optional>

namespace opsdeck::remote {
class RemoteFiles;
class Transport;
} // namespace opsdeck::remote
namespace opsdeck::hosts {
class HostKeyAuditor;
}

namespace opsdeck::cli {

/// The files and commands of one host for a command that reads or edits
/// files there (`knobs`): this machine (LocalFiles, LocalTransport), or an
/// inventory host of kind ssh (SftpFiles over SshTransport, with the ssh
/// config and known_hosts of `--ssh-config` / `--known-hosts` or the
/// settings file; host-key decisions audited in `--data-dir`).
struct HostFiles
{
    QString host; ///< the inventory's name, or "local"
    std::unique_ptr<remote::Transport> transport;
    std::unique_ptr<remote::RemoteFiles> files; ///< uses `transport`; destroyed first
    std::shared_ptr<hosts::HostKeyAuditor> auditor;

    HostFiles();
    HostFiles(HostFiles &&) noexcept;
    HostFiles &operator=(HostFiles &&other) noexcept;
    ~HostFiles();

    /// This machine's.
    static HostFiles local();
    /// `hostName` of `inventory`; nullopt (the reason printed) when the
    /// inventory has no such host.
    static std::optional<HostFiles> of(const inventory::Inventory &inventory,
                                       const QString &hostName, const QCommandLineParser &parser);
};

} // namespace opsdeck::cli
