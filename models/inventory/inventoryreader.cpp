#include "inventoryreader.h"

#include "alertsreader.h"
#include "visibletext.h"

#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QSslCertificate>
#include <algorithm>
#include <yaml-cpp/yaml.h>

using namespace Qt::StringLiterals;

namespace opsdeck::inventory::detail {

namespace {

// Key lists are built per call, not held in globals: nothing is shared between loads.
QStringList topKeys()
{
    return {u"armed"_s,    u"prometheus"_s, u"hosts"_s, u"services"_s,
            u"clusters"_s, u"alerts"_s,     u"watch"_s};
}

QStringList watchKeys()
{
    return {u"enabled"_s, u"interval"_s, u"idle_gap"_s};
}

QStringList hostKeys()
{
    return {u"name"_s, u"kind"_s, u"address"_s, u"port"_s, u"user"_s, u"sudo"_s, u"watch_paths"_s};
}

QStringList serviceKeys()
{
    return {u"name"_s,         u"role"_s,         u"host"_s,  u"url"_s,  u"health_path"_s,
            u"metrics_path"_s, u"serve_script"_s, u"start"_s, u"stop"_s, u"status"_s,
            u"pid_file"_s,     u"log"_s,          u"tags"_s,  u"http"_s, u"metrics_url"_s,
            u"profile"_s,      u"via"_s};
}

QStringList httpKeys()
{
    return {u"api_key"_s, u"ca_file"_s, u"verify_tls"_s, u"timeout_ms"_s, u"proxy"_s};
}

QStringList clusterKeys()
{
    return {u"name"_s,  u"prefill"_s,          u"decode"_s,   u"router"_s,
            u"proxy"_s, u"transfer_backend"_s, u"lock_dir"_s, u"audit_log"_s};
}

QStringList roleNames()
{
    return {u"prefill"_s, u"decode"_s, u"router"_s, u"proxy"_s, u"engine"_s};
}

QStringList transferBackends()
{
    return {u"mooncake"_s, u"nixl"_s};
}

} // namespace

InventoryReader::InventoryReader(InventoryDiagnostics &diagnostics, const QString &directory)
    : m_diagnostics(diagnostics), m_directory(directory)
{
}

Inventory InventoryReader::read(const YAML::Node &root)
{
    Inventory inventory;
    if (root.IsNull()) {
        m_diagnostics.add({}, {},
                          u"the file is empty (expected a mapping with hosts, services and "
                          "clusters)"_s);
        return inventory;
    }
    if (!root.IsMap()) {
        m_diagnostics.add(positionOf(root.Mark()), {},
                          u"the top level must be a mapping with hosts, services and clusters, "
                          "found %1"_s.arg(describe(root)));
        return inventory;
    }
    YamlMapping top(m_diagnostics, root, {}, topKeys());
    inventory.armed = top.boolean(u"armed"_s).value_or(false);
    inventory.prometheus = readUrl(top, u"prometheus"_s, Need::Optional, false).value_or(QUrl());
    inventory.hosts = readEntries<Host>(top, u"hosts"_s, hostKeys(), &InventoryReader::readHost);
    inventory.services =
        readEntries<Service>(top, u"services"_s, serviceKeys(), &InventoryReader::readService);
    inventory.clusters =
        readEntries<Cluster>(top, u"clusters"_s, clusterKeys(), &InventoryReader::readCluster);
    if (top.has(u"alerts"_s))
        inventory.alerts = AlertsReader(m_diagnostics).read(root[std::string("alerts")]);
    if (const std::optional<YAML::Node> watch = top.mapping(u"watch"_s)) {
        YamlMapping fields(m_diagnostics, *watch, u"watch"_s, watchKeys());
        inventory.watch.enabled = fields.boolean(u"enabled"_s).value_or(true);
        inventory.watch.intervalS = fields.duration(u"interval"_s, 10, 3600).value_or(60);
        inventory.watch.idleGapS = fields.duration(u"idle_gap"_s, 1, 600).value_or(10);
        // A round is the idle gap plus its probes: a gap as long as the interval
        // would leave no pause and silently stretch the interval.
        if (inventory.watch.idleGapS >= inventory.watch.intervalS)
            fields.error(fields.has(u"idle_gap"_s) ? u"idle_gap"_s : u"interval"_s,
                         u"idle_gap (%1 s) must be shorter than interval (%2 s)"_s
                             .arg(inventory.watch.idleGapS)
                             .arg(inventory.watch.intervalS));
    }
    return inventory;
}

template <typename Item, typename ReadOne>
QVector<Item> InventoryReader::readEntries(YamlMapping &top, const QString &key,
                                           const QStringList &known, ReadOne readOne)
{
    QVector<Item> items;
    const std::optional<YAML::Node> list = top.sequence(key);
    if (!list)
        return items;
    int index = 0;
    for (const YAML::Node &node : *list) {
        const QString path = u"%1[%2]"_s.arg(key).arg(index++);
        // yaml-cpp marks an empty entry at the next token, a line too far; the list is closer.
        const Position where = positionOf(node.IsNull() ? list->Mark() : node.Mark());
        m_diagnostics.remember(path, where);
        if (!YamlMapping::expectMapping(m_diagnostics, node, path)) {
            items.append(Item{});
            continue;
        }
        YamlMapping fields(m_diagnostics, node, path, known);
        items.append((this->*readOne)(fields));
    }
    return items;
}

Host InventoryReader::readHost(YamlMapping &fields)
{
    Host host;
    host.name = fields.text(u"name"_s, Need::Required).value_or(QString());
    bool ssh = false;
    if (const auto kind = fields.text(u"kind"_s, Need::Required)) {
        if (const auto parsed = hostKindFromName(*kind)) {
            host.kind = *parsed;
            ssh = host.kind == HostKind::Ssh;
        } else {
            fields.error(u"kind"_s, u"unknown kind '%1' (expected local or ssh)"_s.arg(*kind));
        }
    }
    if (ssh && !fields.has(u"address"_s))
        fields.missing(u"address"_s, u"an ssh host needs one"_s);
    else
        host.address =
            fields.text(u"address"_s, ssh ? Need::Required : Need::Optional).value_or(QString());
    host.port = fields.integer(u"port"_s, 1, 65535).value_or(22);
    host.user = fields.text(u"user"_s).value_or(QString());
    host.sudo = fields.boolean(u"sudo"_s).value_or(false);
    host.watchPaths = fields.textList(u"watch_paths"_s).value_or(QStringList());
    for (const QString &path : std::as_const(host.watchPaths))
        if (path.startsWith(u'-'))
            fields.error(u"watch_paths"_s,
                         u"'%1' starts with '-': a folder, never an option for find"_s.arg(path));
    return host;
}

Service InventoryReader::readService(YamlMapping &fields)
{
    Service service;
    service.name = fields.text(u"name"_s, Need::Required).value_or(QString());
    if (const auto role = fields.text(u"role"_s, Need::Required)) {
        if (const auto parsed = roleFromName(*role))
            service.role = *parsed;
        else
            fields.error(u"role"_s, u"unknown role '%1' (expected %2)"_s.arg(
                                        *role, alternatives(roleNames())));
    }
    service.host = fields.text(u"host"_s, Need::Required).value_or(QString());
    service.via = fields.text(u"via"_s).value_or(QString());
    service.url = readUrl(fields, u"url"_s, Need::Required, true).value_or(QUrl());
    service.healthPath = readEndpoint(fields, u"health_path"_s, service.healthPath);
    readMetricsEndpoint(fields, service);
    if (const auto profile = fields.text(u"profile"_s)) {
        // The engine profiles' names (models/metrics/engineprofile.h).
        const QStringList profiles = {u"auto"_s, u"sglang"_s, u"vllm"_s, u"router"_s};
        if (profiles.contains(*profile))
            service.profile = *profile;
        else
            fields.error(u"profile"_s, u"unknown profile '%1' (expected %2)"_s.arg(
                                           *profile, alternatives(profiles)));
    }
    service.serveScript = readOwnFileRefused(fields, u"serve_script"_s);
    service.start = fields.text(u"start"_s).value_or(QString());
    service.stop = fields.text(u"stop"_s).value_or(QString());
    service.status = fields.text(u"status"_s).value_or(QString());
    service.pidFile = readOwnFileRefused(fields, u"pid_file"_s);
    // Quoted in every command OpsDeck runs with it (the identity beside it,
    // the stop's checks): `~` or `$HOME` would name a file nobody writes.
    if (service.pidFile.startsWith(u'~') || service.pidFile.startsWith(u'$')) {
        fields.error(u"pid_file"_s,
                     u"%1: give the pid file's absolute path: OpsDeck quotes it in its commands, "
                     "so the host's shell does not expand ~ or $"_s.arg(service.pidFile));
        service.pidFile.clear();
    }
    service.log = readOwnFileRefused(fields, u"log"_s);
    service.tags = fields.textList(u"tags"_s).value_or(QStringList());
    // Tags are free labels, but two of them change what OpsDeck does: a near
    // miss ("Production", "nowatch") would silently do nothing.
    static const QStringList meaningful{u"production"_s, u"no-watch"_s};
    for (const QString &tag : std::as_const(service.tags)) {
        const QString meant = nearest(tag, meaningful);
        if (!meant.isEmpty() && meant != tag)
            fields.error(u"tags"_s, u"tag '%1' is not '%2' (did you mean it? tags are exact and "
                                    "lower case)"_s.arg(tag, meant));
    }
    service.http = readHttp(fields, service.name);
    return service;
}

HttpSettings InventoryReader::readHttp(YamlMapping &service, const QString &serviceName)
{
    HttpSettings http;
    const std::optional<YAML::Node> node = service.mapping(u"http"_s);
    if (!node)
        return http;
    YamlMapping fields(m_diagnostics, *node, service.path(u"http"_s), httpKeys());
    http.apiKeySecret = readApiKeySecret(fields, serviceName);
    http.caFile = readCaFile(fields);
    http.verifyTls = fields.boolean(u"verify_tls"_s).value_or(true);
    // Up to 10 minutes: a whole request, not a stream.
    http.timeoutMs = fields.integer(u"timeout_ms"_s, 1, 600000).value_or(0);
    http.proxy = readProxy(fields).value_or(QUrl());
    return http;
}

QString InventoryReader::readApiKeySecret(YamlMapping &http, const QString &serviceName)
{
    const std::optional<QString> value = http.text(u"api_key"_s);
    if (!value)
        return {};
    if (*value == u"secret"_s)
        return u"http/%1/api-key"_s.arg(serviceName);
    const QString prefix = u"secret:"_s;
    if (value->startsWith(prefix)) {
        const QString name = value->mid(prefix.size());
        const bool printable = std::all_of(name.cbegin(), name.cend(), [](QChar c) {
            return c.unicode() > 0x20 && c.unicode() < 0x7f;
        });
        // The audit chain's key and anchor (history::AuditKey) are never an
        // API key: sent as a bearer token, the key would let anyone who
        // reads it forge entries that verify as intact.
        if (name.startsWith(u"audit/"_s)) {
            http.error(u"api_key"_s, u"'%1' is the audit log's own secret, never sent to a "
                                     "service"_s.arg(name));
            return {};
        }
        if (!name.isEmpty() && printable)
            return name;
        http.error(u"api_key"_s, u"'secret:' must be followed by a key name without spaces, "
                                 "e.g. secret:http/shared/api-key"_s);
        return {};
    }
    // Never quote the value: it may be the key itself, and messages reach logs.
    http.error(u"api_key"_s,
               u"keys never live in the inventory: write 'secret' (the secret store's "
               "http/%1/api-key) or 'secret:<key name>', and store the key with "
               "'opsdeck-cli secret set http/%1/api-key'"_s.arg(serviceName));
    return {};
}

std::optional<QUrl> InventoryReader::readProxy(YamlMapping &http)
{
    const std::optional<QUrl> proxy = readUrl(http, u"proxy"_s, Need::Optional, true);
    if (!proxy)
        return std::nullopt;
    const QString shown = proxy->toDisplayString(QUrl::RemoveUserInfo);
    if (proxy->scheme() != u"http"_s)
        http.error(u"proxy"_s, u"'%1': a proxy is written http://HOST:PORT (https targets go "
                               "through it with CONNECT)"_s.arg(shown));
    else if (!proxy->userInfo().isEmpty())
        http.error(u"proxy"_s, u"'%1': credentials never live in the inventory"_s.arg(shown));
    else if (!proxy->path().isEmpty() && proxy->path() != u"/"_s)
        http.error(u"proxy"_s,
                   u"'%1': a proxy URL has no path (write http://HOST:PORT)"_s.arg(shown));
    else
        return proxy;
    return std::nullopt;
}

Cluster InventoryReader::readCluster(YamlMapping &fields)
{
    Cluster cluster;
    cluster.name = fields.text(u"name"_s, Need::Required).value_or(QString());
    cluster.prefill = fields.textList(u"prefill"_s, Need::Required).value_or(QStringList());
    cluster.decode = fields.textList(u"decode"_s, Need::Required).value_or(QStringList());
    cluster.router = fields.text(u"router"_s).value_or(QString());
    cluster.proxy = fields.text(u"proxy"_s).value_or(QString());
    cluster.lockDir = readPath(fields, u"lock_dir"_s);
    cluster.auditLog = readPath(fields, u"audit_log"_s);
    if (isOwnFileName(cluster.auditLog))
        fields.error(u"audit_log"_s, ownFileError(cluster.auditLog));
    // Appended to by every workflow: only a log, never a file that something
    // reads as its own (a pid file, a serve script, an inventory).
    else if (!cluster.auditLog.isEmpty() && !cluster.auditLog.endsWith(u".log"_s))
        fields.error(u"audit_log"_s,
                     u"%1 is not a .log file: the audit copy is appended to, so "
                     "it may name no pid file, serve script or inventory"_s.arg(cluster.auditLog));
    const QString backend = fields.text(u"transfer_backend"_s).value_or(QString());
    if (backend.isEmpty() || transferBackends().contains(backend))
        cluster.transferBackend = backend;
    else
        fields.error(u"transfer_backend"_s, u"unknown transfer backend '%1' (expected %2)"_s.arg(
                                                backend, alternatives(transferBackends())));
    return cluster;
}

std::optional<QUrl> InventoryReader::readUrl(YamlMapping &fields, const QString &key, Need need,
                                             bool needsPort, bool allowQuery)
{
    const std::optional<QString> text = fields.text(key, need);
    if (!text || text->isEmpty())
        return std::nullopt;
    const QUrl url(*text, QUrl::StrictMode);
    // A password in a URL would be echoed by every message and every output
    // that shows the URL: never quote it, and never accept it. Read from the
    // text too: an invalid URL (a bad port) has no user info in QUrl's eyes.
    static const QRegularExpression userInfo(u"^([A-Za-z][A-Za-z0-9+.-]*://)[^/?#@]*@"_s);
    const bool credentials = !url.userInfo().isEmpty() || userInfo.match(*text).hasMatch();
    QString shown = *text;
    shown.replace(userInfo, u"\\1"_s);
    const QString quoted = u'\'' + shown + u'\'';
    QString problem;
    if (credentials)
        problem = quoted + u" carries credentials: they never live in the inventory (an API key "
                           "goes in the secret store, `http: {api_key: secret}`)"_s;
    else if (url.scheme() != u"http"_s && url.scheme() != u"https"_s)
        problem = quoted + u" is not an http or https URL (write e.g. http://127.0.0.1:30000)"_s;
    else if (!url.isValid())
        // QUrl appends "; source was ..." and more, which repeats the quoted text.
        problem = quoted + u" is not a valid URL: "_s + url.errorString().section(u';', 0, 0);
    else if (url.host().isEmpty())
        problem = quoted + u" has no host"_s;
    else if (needsPort && url.port() == -1)
        problem = quoted + u" has no port (write it, e.g. "_s + url.scheme() + u"://"_s +
                  url.host() + u":30000)"_s;
    else if (url.port() == 0)
        problem = quoted + u" has port 0 (expected 1 to 65535)"_s;
    else if (url.hasFragment() || (url.hasQuery() && !allowQuery))
        // health_path and metrics_path are appended to the URL's path.
        problem = quoted + u" must not have a query or fragment"_s;
    if (problem.isEmpty())
        return url;
    fields.error(key, problem);
    return std::nullopt;
}

QString InventoryReader::readEndpoint(YamlMapping &fields, const QString &key,
                                      const QString &fallback)
{
    const std::optional<QString> path = fields.text(key);
    if (!path)
        return fallback;
    if (!path->startsWith(u'/')) {
        fields.error(key, u"'%1' must start with '/'"_s.arg(*path));
        return fallback;
    }
    return *path;
}

void InventoryReader::readMetricsEndpoint(YamlMapping &fields, Service &service)
{
    // A plain proxy (or any server without /metrics) says `metrics_path: none`
    // (or leaves it empty), so the poller does not fetch a 404 every second.
    if (fields.has(u"metrics_path"_s)) {
        const QString path = fields.text(u"metrics_path"_s).value_or(QString());
        if (path.isEmpty() || path == u"none"_s)
            service.metricsPath.clear();
        else
            service.metricsPath = readEndpoint(fields, u"metrics_path"_s, service.metricsPath);
    }
    const std::optional<QUrl> url =
        readUrl(fields, u"metrics_url"_s, Need::Optional, true, /*allowQuery=*/true);
    if (!url)
        return;
    if (service.metricsPath.isEmpty())
        fields.error(u"metrics_url"_s,
                     u"'%1' contradicts metrics_path: none (keep one of the two)"_s.arg(
                         url->toDisplayString()));
    else
        service.metricsUrlOverride = *url;
}

QString InventoryReader::readCaFile(YamlMapping &fields)
{
    const QString path = readFilePath(fields, u"ca_file"_s);
    // A bad CA file would otherwise show only at runtime, as a service "down"
    // with a TLS error: say what is wrong with it at its line instead.
    if (!path.isEmpty()) {
        if (const QString problem = caFileProblem(path); !problem.isEmpty())
            fields.error(u"ca_file"_s, problem);
    }
    return path;
}

QString InventoryReader::caFileProblem(const QString &path)
{
    const QFileInfo info(path);
    if (!info.exists())
        return u"%1: no such file"_s.arg(path);
    // Checked before opening: a FIFO would block the load, a device never end.
    if (!info.isFile())
        return u"%1: not a regular file; ca_file names a PEM file of CA certificates"_s.arg(path);
    if (info.size() > kMaxCaFileBytes)
        return u"%1: %2 bytes, more than the %3 bytes (1 MiB) a CA file may hold"_s.arg(path)
            .arg(info.size())
            .arg(kMaxCaFileBytes);
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return u"%1: %2"_s.arg(path, file.errorString());
    if (QSslCertificate::fromData(file.read(kMaxCaFileBytes), QSsl::Pem).isEmpty())
        return u"%1: holds no PEM certificate (-----BEGIN CERTIFICATE-----)"_s.arg(path);
    return {};
}

QString InventoryReader::readPath(YamlMapping &fields, const QString &key)
{
    const QString path = fields.text(key).value_or(QString());
    const auto bad = std::find_if(path.cbegin(), path.cend(),
                                  [](QChar c) { return !c.isPrint() || c == u'\u2028'; });
    if (bad == path.cend())
        return path;
    fields.error(key,
                 u"a path must be printable text without control characters: '%1' has %2"_s.arg(
                     logging::visibleText(path), logging::visibleText(QString(*bad))));
    return {};
}

QString InventoryReader::ownFileError(const QString &path)
{
    return u"%1 is named as one of OpsDeck's own files (%2): never a service's or a cluster's "
           "file"_s.arg(path, ownFilePatterns().join(u", "_s));
}

QString InventoryReader::readOwnFileRefused(YamlMapping &fields, const QString &key)
{
    const QString path = readFilePath(fields, key);
    if (!isOwnFileName(path))
        return path;
    fields.error(key, ownFileError(path));
    return {};
}

QString InventoryReader::readFilePath(YamlMapping &fields, const QString &key)
{
    const QString path = readPath(fields, key);
    // `~` and `$VAR` mean something only to the host's shell; resolving them here
    // would turn them into nonsense local paths.
    if (path.isEmpty() || path.startsWith(u'/') || path.startsWith(u'~') || path.startsWith(u'$'))
        return path;
    return QDir::cleanPath(m_directory.absoluteFilePath(path));
}

} // namespace opsdeck::inventory::detail
