#pragma once

#include "inventory.h"
#include "yamlmapping.h"

#include <QDir>

namespace opsdeck::inventory::detail {

/// Reads the YAML document of an inventory into an Inventory, reporting every
/// problem of structure, type and value to the diagnostics. References between
/// entries (a service's host, cluster members) and unique names are left to
/// InventoryChecker, which needs the whole file first. A bad list entry still
/// yields a (default) item, so indexes match `hosts[i]` paths.
class InventoryReader
{
public:
    /// `directory`: absolute directory of the inventory file, for relative paths.
    InventoryReader(InventoryDiagnostics &diagnostics, const QString &directory);

    Inventory read(const YAML::Node &root);

private:
    template <typename Item, typename ReadOne>
    QVector<Item> readEntries(YamlMapping &top, const QString &key, const QStringList &known,
                              ReadOne readOne);
    Host readHost(YamlMapping &fields);
    Service readService(YamlMapping &fields);
    Cluster readCluster(YamlMapping &fields);
    HttpSettings readHttp(YamlMapping &service, const QString &serviceName);
    QString readApiKeySecret(YamlMapping &http, const QString &serviceName);
    std::optional<QUrl> readProxy(YamlMapping &http);

    /// `allowQuery`: only for a URL used as is (metrics_url); base URLs get paths appended.
    std::optional<QUrl> readUrl(YamlMapping &fields, const QString &key, Need need, bool needsPort,
                                bool allowQuery = false);
    QString readEndpoint(YamlMapping &fields, const QString &key, const QString &fallback);
    void readMetricsEndpoint(YamlMapping &fields, Service &service);
    /// A path as written (a host's, not resolved), with an error at its place
    /// when it holds a control character: a newline would split the plan's
    /// lines and the commands built from it where a hostile inventory chooses.
    QString readPath(YamlMapping &fields, const QString &key);
    /// readPath(), a relative one resolved against the inventory's folder.
    QString readFilePath(YamlMapping &fields, const QString &key);
    /// readFilePath(), with an error at its place when it is named as one of
    /// OpsDeck's own files (isOwnFileName()).
    QString readOwnFileRefused(YamlMapping &fields, const QString &key);
    static QString ownFileError(const QString &path);
    /// `ca_file`, with an error at its place unless it is a readable regular
    /// file of at most kMaxCaFileBytes holding at least one PEM certificate.
    QString readCaFile(YamlMapping &fields);
    /// Why `path` is no usable CA file, or empty.
    static QString caFileProblem(const QString &path);
    /// 1 MiB: a CA bundle of the whole Mozilla store is about 220 KiB.
    static constexpr qint64 kMaxCaFileBytes = 1024 * 1024;

    InventoryDiagnostics &m_diagnostics;
    QDir m_directory;
};

} // namespace opsdeck::inventory::detail
