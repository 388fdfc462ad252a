#include "hostfiles.h"

#include "cliinventory.h"
#include "clioutput.h"
#include "hostconnections.h"
#include "hostkeyauditor.h"
#include "localfiles.h"
#include "localtransport.h"
#include "sftpfiles.h"
#include "sshsecrets.h"
#include "sshtransport.h"

namespace opsdeck::cli {

HostFiles::HostFiles() = default;
HostFiles::HostFiles(HostFiles &&) noexcept = default;

HostFiles &HostFiles::operator=(HostFiles &&other) noexcept
{
    files.reset(); // before the transport it uses
    transport = std::move(other.transport);
    files = std::move(other.files);
    auditor = std::move(other.auditor);
    host = std::move(other.host);
    return *this;
}

HostFiles::~HostFiles()
{
    files.reset(); // before the transport it uses
    transport.reset();
    if (auditor)
        auditor->flush();
}

HostFiles HostFiles::local()
{
    HostFiles local;
    local.host = QStringLiteral("local");
    local.transport = std::make_unique<remote::LocalTransport>();
    local.files = std::make_unique<remote::LocalFiles>(local.host);
    return local;
}

std::optional<HostFiles> HostFiles::of(const inventory::Inventory &inventory,
                                       const QString &hostName, const QCommandLineParser &parser)
{
    const inventory::Host *host = inventory.host(hostName);
    if (!host) {
        printError(QStringLiteral("%1: no host named \"%2\" in the inventory")
                       .arg(inventory.path, hostName));
        return std::nullopt;
    }
    if (host->kind == inventory::HostKind::Local) {
        HostFiles local = HostFiles::local();
        local.host = host->name;
        return local;
    }
    HostFiles remoteHost;
    remoteHost.host = host->name;
    remote::SshSettings settings =
        hosts::HostConnections::sshSettings(*host, sshFileOptions(parser));
    remote::SshSecrets::install(settings);
    remoteHost.auditor = hosts::HostKeyAuditor::inDataDir(parser.value(QStringLiteral("data-dir")));
    settings.hostKeyDecided =
        [auditor = remoteHost.auditor](const remote::HostKeyDecision &decision, QString *error) {
            return auditor->record(decision, error);
        };
    auto transport = std::make_unique<remote::SshTransport>(host->name, settings);
    remoteHost.files = std::make_unique<remote::SftpFiles>(transport.get());
    remoteHost.transport = std::move(transport);
    return remoteHost;
}

} // namespace opsdeck::cli
