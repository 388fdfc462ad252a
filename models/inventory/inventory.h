#pragma once

#include "alertsettings.h"

#include <QByteArray>
#include <QString>
#include <QStringList>
#include <QUrl>
#include <QVector>
#include <optional>

namespace opsdeck::inventory {

/// How OpsDeck reaches a host: `local` runs commands with QProcess on this
/// machine (the demo), `ssh` through libssh.
enum class HostKind
{
    Local,
    Ssh
};

/// `local` or `ssh`, as written in the inventory.
QString hostKindName(HostKind kind);
/// Inverse of hostKindName(); exact lower-case match, nullopt for anything else.
std::optional<HostKind> hostKindFromName(const QString &name);

/// A machine that runs services. Plain data; safe to copy across threads.
struct Host
{
    QString name; ///< unique key, referenced by Service::host
    HostKind kind = HostKind::Local;
    QString address; ///< DNS name or IP for ssh; unused for local
    int port = 22;   ///< SSH port, 1..65535; unused for local
    QString user;    ///< SSH user; empty means the current user; unused for local
    /// `sudo: true`: reading another user's process (a server's environment
    /// for knob drift) may use `sudo -n` (never a password prompt). Default false.
    bool sudo = false;
    /// `watch_paths`: folders on the host whose changes "what changed since"
    /// lists (`opsdeck-cli changed-since`). Empty: the folders of the serve
    /// scripts of its services. Paths as the host's shell sees them.
    QStringList watchPaths;
};

/// What a service does in the cluster (DESIGN.md glossary). `engine` is a
/// non-disaggregated server that does prefill and decode itself.
enum class Role
{
    Prefill,
    Decode,
    Router,
    Proxy,
    Engine
};

/// `prefill`, `decode`, `router`, `proxy` or `engine`, as written in the inventory.
QString roleName(Role role);
/// Inverse of roleName(); exact lower-case match, nullopt for anything else.
std::optional<Role> roleFromName(const QString &name);

/// How OpsDeck's HTTP requests to one service are made (the service's `http:`
/// block; README, inventory schema). Shared by the poller and the probes.
/// Secrets never live here: `apiKeySecret` is the *name* of a secret-store key.
struct HttpSettings
{
    /// Secret-store key of the API key sent as `Authorization: Bearer <key>`
    /// (SGLang's --api-key): `api_key: secret` means `http/<service>/api-key`,
    /// `api_key: "secret:<key name>"` names another key. Empty: no header.
    QString apiKeySecret;
    /// PEM file of the CA certificates trusted for https (absolute after loading;
    /// relative paths resolve against the inventory's directory). Empty: the system roots.
    QString caFile;
    /// `false` turns TLS certificate and host-name verification off (on by default).
    bool verifyTls = true;
    /// Whole-request timeout for this service, ms; 0: the caller's default.
    int timeoutMs = 0;
    /// Forward proxy `http://HOST:PORT`; empty: direct. Never taken from the environment.
    QUrl proxy;
};

/// One process serving HTTP. Commands run on `host` through its transport
/// (bash -s); they are written by the operator and shown before being run.
///
/// Paths (serveScript, pidFile, log): a relative path in the file is resolved
/// against the directory of the inventory file, on the machine running
/// OpsDeck, when loading; so for ssh hosts write absolute paths. Paths that
/// start with `~` or `$` are kept as written (the host's shell expands them).
struct Service
{
    QString name; ///< unique key
    Role role = Role::Engine;
    QString host; ///< Host::name
    /// `via`: Host::name of an ssh host through which OpsDeck reaches `url`
    /// (and `metrics_url`): a local port forwarded over that host's SSH
    /// (remote/sshtunnel.h), for servers that listen on the host's localhost
    /// or a private network. The URL's host:port is then as the via host sees
    /// it. Empty: reached directly.
    QString via;
    /// Set only in a copy made for polling and probing through a tunnel
    /// (HostConnections::routed()): `url` as the inventory gives it (as the
    /// `via` host sees it), while `url` and `metricsUrlOverride` then point at
    /// the tunnel's local port 127.0.0.1:N. Empty: `url` is the one written.
    QUrl directUrl;
    /// Base URL with an explicit port, e.g. http://127.0.0.1:30000; may carry a path prefix.
    QUrl url;
    QString healthPath = QStringLiteral("/health");
    /// Appended to `url` for /metrics; empty (`metrics_path: none` or empty in the file)
    /// when the service's metrics are not scraped (a plain proxy has none).
    QString metricsPath = QStringLiteral("/metrics");
    /// `metrics_url`: absolute URL of the metrics page when it is not under `url`
    /// (the SGLang router serves /metrics on its own --prometheus-port); overrides
    /// url + metricsPath. Empty: url + metricsPath.
    QUrl metricsUrlOverride;
    QString serveScript; ///< path on the host of the script that sets knobs and execs the server
    /// Command that starts the service detached (setsid, stdin /dev/null, output to `log`).
    QString start;
    QString stop;   ///< command that asks it to stop (SIGTERM); empty: `kill -TERM $(cat pid_file)`
    QString status; ///< command that exits 0 while it runs; empty: `kill -0 $(cat pid_file)`
    QString pidFile;  ///< path on the host of the pid file `start` writes
    QString log;      ///< path on the host of its log file
    QStringList tags; ///< free labels; `production` makes load-generating checks ask first
    /// Which engine's metric names to read its /metrics with: `auto` (detected
    /// from the page), `sglang`, `vllm` or `router` (EngineProfile::name).
    QString profile = QStringLiteral("auto");
    HttpSettings http; ///< API key, TLS, timeout and proxy of requests to it

    bool isProduction() const { return tags.contains(QStringLiteral("production")); }
    /// False when tagged `no-watch`: the keep-alive watch sends it nothing (a
    /// production service may opt out of the background probes).
    bool isWatched() const { return !tags.contains(QStringLiteral("no-watch")); }
    /// `url` with `healthPath` appended to its path (a trailing `/` of `url` is dropped
    /// first; a `?query` in the path becomes the URL's query).
    QUrl healthUrl() const;
    /// `url` with `path` (and its `?query`) after url's own path: `/workers`,
    /// `/server_info`, `/readiness` of this service.
    QUrl urlWithPath(const QString &path) const;
    /// The TCP port the service listens on as its host sees it: the one
    /// written (`directUrl` of a `via:` service, else `url`), not a tunnel's.
    int hostPort() const;
    /// `metricsUrlOverride` when set, else `url` with `metricsPath` appended;
    /// an empty QUrl when the service's metrics are not scraped (see hasMetrics()).
    QUrl metricsUrl() const;
    /// False when the inventory says `metrics_path: none` (or empty): nothing to scrape.
    bool hasMetrics() const { return !metricsUrlOverride.isEmpty() || !metricsPath.isEmpty(); }
};

/// Services that serve one model together: a PD pair (or more), its router
/// and proxies. Members are Service::name values; a loaded inventory
/// guarantees each has the matching role.
struct Cluster
{
    QString name;
    QStringList prefill;     ///< at least one, role prefill
    QStringList decode;      ///< at least one, role decode
    QString router;          ///< empty when there is none
    QString proxy;           ///< empty when there is none
    QString transferBackend; ///< `mooncake` or `nixl`; empty when not given
    /// `lock_dir`: the folder, on the host of the first prefill, where a
    /// workflow takes the cluster's lock; empty: the folder of that
    /// service's serve script (workflows::ClusterLock).
    QString lockDir;
    /// `audit_log`: the file on the host of the first prefill where a copy of
    /// every workflow's audit entries is appended for teammates; empty:
    /// `opsdeck-audit.log` next to the lock (workflows::HostAuditLog).
    QString auditLog;
};

/// The inventory's `watch:` section: the background keep-alive watch that
/// runs whenever the inventory is open (window and `opsdeck-cli record`), per
/// path into each cluster one fresh and one reused probe after an idle gap.
struct WatchSettings
{
    bool enabled = true;   ///< `enabled: false` turns the watch off
    double intervalS = 60; ///< `interval`: one round per this many seconds, s (10..3600)
    double idleGapS = 10;  ///< `idle_gap`: how long the kept connection idles first, s (1..600)
};

/// A loaded, validated inventory. Every Service::host names a Host, every
/// cluster member names a Service, and names are unique.
struct Inventory
{
    QString path; ///< file it was read from (absolute)
    QVector<Host> hosts;
    QVector<Service> services;
    QVector<Cluster> clusters;
    QUrl prometheus;      ///< optional Prometheus server for history (issue 3)
    bool armed = false;   ///< `armed: true` lets workflows change hosts; false is read-only
    AlertSettings alerts; ///< the `alerts:` section; without one, the default rules
    WatchSettings watch;  ///< the `watch:` section; without one, the defaults

    /// Lookups by name; nullptr when there is none. Pointers stay valid while
    /// the inventory is not modified.
    const Host *host(const QString &name) const;
    const Service *service(const QString &name) const;
    const Cluster *cluster(const QString &name) const;
    /// The first decode service of the first cluster, else the first decode service.
    const Service *firstDecode() const;
};

/// One problem found while loading: where it is and which field.
struct ValidationError
{
    QString file;    ///< path as given to loadInventory() / parseInventory()
    int line = 0;    ///< 1-based; 0 when the problem is the file as a whole
    int column = 0;  ///< 1-based; 0 when unknown
    QString field;   ///< dotted path of the field, e.g. `services[2].url`
    QString message; ///< what is wrong, in plain words

    /// `file:line:column: field: message` (the form compilers use, so editors jump to it).
    /// As compilers do, `:column` is left out when it is 0, `:line:column` when the
    /// line is 0, and `field: ` when the field is empty (the file as a whole, a YAML
    /// syntax error).
    QString toString() const;
};

struct LoadResult
{
    std::optional<Inventory> inventory; ///< set only when `errors` is empty
    QVector<ValidationError> errors;    ///< every problem found, in file order
};

/// Reads and validates an inventory file (YAML, schema in README.md).
/// Never throws; a missing file, bad YAML or a bad field becomes an error
/// naming file:line:column and the field. Line and column come from
/// yaml-cpp's marks of the offending node (for a missing key: the mapping
/// that lacks it). Any thread; no shared state.
LoadResult loadInventory(const QString &path);
/// Same, from text already read; `path` is used in messages and to resolve
/// relative paths.
LoadResult parseInventory(const QByteArray &yaml, const QString &path);

/// Names of files OpsDeck keeps its own data in, as shell glob patterns: the
/// data dir's audit log and its head and lock, the history database and its
/// WAL, workflow journals, the plaintext secrets file, the backups of
/// serve scripts, and the cluster locks (`.opsdeck-lock-<cluster>`). An inventory never names one as a service's pid file, log
/// or serve script, nor as a cluster's audit copy: a stop would remove it as
/// a stale pid file, a copy would append to it. Any thread.
QStringList ownFilePatterns();
/// True when the file name of `path` matches one of ownFilePatterns().
bool isOwnFileName(const QString &path);

/// `base` with `path` appended to its path, a trailing '/' of `base` dropped
/// first ("http://h:1/api/" + "/v1/models" is "http://h:1/api/v1/models"); a
/// "?query" in `path` becomes the URL's query. Any thread.
QUrl withPath(const QUrl &base, const QString &path);

} // namespace opsdeck::inventory
