// Errors of values and references: kinds, roles, ports, URLs, paths, names,
// a service's host, cluster members; and many errors at once, in file order.
#include "inventorytest.h"
#include "testsupport.h"

#include <string>

using namespace Qt::StringLiterals;

namespace opsdeck::inventory::test {
namespace {

// Six lines of valid services; cluster entries given to parseClusters() start at line 7.
LoadResult parseClusters(const char *clusters)
{
    std::string yaml = "hosts: [{name: h, kind: local}]\n"
                       "services:\n"
                       "  - {name: p, role: prefill, host: h, url: 'http://127.0.0.1:1'}\n"
                       "  - {name: d, role: decode, host: h, url: 'http://127.0.0.1:2'}\n"
                       "  - {name: r, role: router, host: h, url: 'http://127.0.0.1:3'}\n"
                       "clusters:\n";
    yaml += clusters[0] == '\n' ? clusters + 1 : clusters;
    return parseInventory(QByteArray::fromStdString(yaml), inlineFile());
}

// The index of the error at `field`; errors.size() when there is none.
int errorIndex(const LoadResult &result, const char *field)
{
    for (int i = 0; i < result.errors.size(); ++i)
        if (result.errors[i].field == QLatin1String(field))
            return i;
    return int(result.errors.size());
}

TEST(InventoryValueErrors, UnknownHostKind)
{
    const LoadResult result = parse(R"(
hosts:
  - {name: gpu-a, kind: sshh}
)");
    ASSERT_EQ(result.errors.size(), 1) << dump(result);
    EXPECT_TRUE(
        isError(result, 0, 2, 25, "hosts[0].kind", "unknown kind 'sshh' (expected local or ssh)"));
}

TEST(InventoryValueErrors, UnknownRole)
{
    const LoadResult result = parse(R"(
hosts: [{name: h, kind: local}]
services:
  - name: decode
    role: decoder
    host: h
    url: http://127.0.0.1:30001
)");
    ASSERT_EQ(result.errors.size(), 1) << dump(result);
    EXPECT_TRUE(isError(result, 0, 4, 11, "services[0].role", "decoder"));
    EXPECT_EQ(result.errors[0].message,
              u"unknown role 'decoder' (expected prefill, decode, router, proxy or engine)"_s);
}

TEST(InventoryValueErrors, BadPort)
{
    const LoadResult result = parse(R"(
hosts:
  - {name: a, kind: ssh, address: a.example, port: 0}
  - {name: b, kind: ssh, address: b.example, port: 70000}
  - {name: c, kind: ssh, address: c.example, port: ssh}
  - {name: d, kind: ssh, address: d.example, port: 22.5}
)");
    ASSERT_EQ(result.errors.size(), 4) << dump(result);
    EXPECT_TRUE(
        isError(result, 0, 2, 52, "hosts[0].port", "0 is out of range (expected 1 to 65535)"));
    EXPECT_TRUE(isError(result, 1, 3, 52, "hosts[1].port", "70000 is out of range"));
    EXPECT_TRUE(isError(result, 2, 4, 52, "hosts[2].port", "'ssh' is not a whole number"));
    EXPECT_TRUE(isError(result, 3, 5, 52, "hosts[3].port", "'22.5' is not a whole number"));
}

TEST(InventoryValueErrors, BadServiceUrl)
{
    const struct
    {
        const char *url;
        const char *word;
    } cases[] = {
        {"ftp://gpu-a.example:21", "is not an http or https URL"},
        {"gpu-a.example:30001", "is not an http or https URL"},
        {"127.0.0.1:30001", "is not an http or https URL"},
        {"http:///health", "has no host"},
        {"http://gpu-a.example", "has no port (write it, e.g. http://gpu-a.example:30000)"},
        {"http://gpu-a.example:0", "has port 0"},
        {"http://gpu-a.example:30001/?x=1", "must not have a query or fragment"},
        {"http://gpu a.example:30001", "is not a valid URL"},
    };
    for (const auto &c : cases) {
        const std::string yaml = std::string("hosts: [{name: h, kind: local}]\n"
                                             "services:\n"
                                             "  - name: e\n"
                                             "    role: engine\n"
                                             "    host: h\n"
                                             "    url: '") +
                                 c.url + "'\n";
        const LoadResult result = parse(yaml.c_str());
        ASSERT_EQ(result.errors.size(), 1) << c.url << dump(result);
        EXPECT_TRUE(isError(result, 0, 6, 10, "services[0].url", c.word)) << c.url;
        EXPECT_TRUE(result.errors[0].message.contains(QString::fromUtf8(c.url))) << c.url;
    }
}

// `status --json` printed such a URL whole: a password would reach every
// output. Refused, and the error itself never repeats the password.
TEST(InventoryValueErrors, ServiceUrlWithCredentialsIsRefusedWithoutEchoingThem)
{
    const LoadResult result = parse("hosts: [{name: h, kind: local}]\n"
                                    "services:\n"
                                    "  - name: e\n"
                                    "    role: engine\n"
                                    "    host: h\n"
                                    "    url: 'http://admin:hunter2@127.0.0.1:30001'\n");
    ASSERT_EQ(result.errors.size(), 1) << dump(result);
    EXPECT_TRUE(isError(result, 0, 6, 10, "services[0].url", "carries credentials"));
    EXPECT_FALSE(result.errors[0].toString().contains(QStringLiteral("hunter2")));
    EXPECT_TRUE(result.errors[0].message.contains(QStringLiteral("http://127.0.0.1:30001")));
}

// QUrl drops the user info of an invalid URL (here a bad port), so the
// credentials are found in the text itself: never echoed either way.
TEST(InventoryValueErrors, CredentialsInAnInvalidUrlOrProxyAreNeverEchoed)
{
    const LoadResult result = parse("hosts: [{name: h, kind: local}]\n"
                                    "services:\n"
                                    "  - name: e\n"
                                    "    role: engine\n"
                                    "    host: h\n"
                                    "    url: 'http://admin:URLPASS@127.0.0.1:99999/x'\n"
                                    "    http: {proxy: 'http://u:PROXYPW@127.0.0.1:99999'}\n");
    ASSERT_EQ(result.errors.size(), 2) << dump(result);
    EXPECT_TRUE(isError(result, 0, 6, 10, "services[0].url", "carries credentials"));
    EXPECT_TRUE(isError(result, 1, 7, 19, "services[0].http.proxy", "carries credentials"))
        << dump(result);
    for (const ValidationError &error : result.errors) {
        EXPECT_FALSE(error.toString().contains(QStringLiteral("URLPASS")));
        EXPECT_FALSE(error.toString().contains(QStringLiteral("PROXYPW")));
    }
    EXPECT_TRUE(result.errors[0].message.contains(QStringLiteral("'http://127.0.0.1:99999/x'")));
}

TEST(InventoryValueErrors, BadHealthAndMetricsPath)
{
    const LoadResult result = parse(R"(
hosts: [{name: h, kind: local}]
services:
  - name: e
    role: engine
    host: h
    url: http://127.0.0.1:1
    health_path: health
    metrics_path: metrics
)");
    ASSERT_EQ(result.errors.size(), 2) << dump(result);
    EXPECT_TRUE(
        isError(result, 0, 7, 18, "services[0].health_path", "'health' must start with '/'"));
    EXPECT_TRUE(isError(result, 1, 8, 19, "services[0].metrics_path", "must start with '/'"));
}

TEST(InventoryValueErrors, BadArmedAndPrometheus)
{
    const LoadResult bad = parse(R"(
armed: yes
prometheus: 127.0.0.1:9090
)");
    ASSERT_EQ(bad.errors.size(), 2) << dump(bad);
    EXPECT_TRUE(isError(bad, 0, 1, 8, "armed", "expected true or false, found 'yes'"));
    EXPECT_TRUE(isError(bad, 1, 2, 13, "prometheus", "is not an http or https URL"));

    // Prometheus often sits behind a TLS proxy on the default port.
    const LoadResult good = parse("armed: False\nprometheus: https://prom.example\n");
    ASSERT_TRUE(good.inventory.has_value()) << dump(good);
    EXPECT_EQ(good.inventory->prometheus.host(), u"prom.example"_s);
}

TEST(InventoryValueErrors, BadTransferBackend)
{
    const LoadResult result = parseClusters(R"(
  - {name: main, prefill: [p], decode: [d], transfer_backend: ucx}
)");
    ASSERT_EQ(result.errors.size(), 1) << dump(result);
    EXPECT_TRUE(isError(result, 0, 7, 63, "clusters[0].transfer_backend",
                        "unknown transfer backend 'ucx' (expected mooncake or nixl)"));
}

TEST(InventoryValueErrors, DuplicateNames)
{
    const LoadResult result = parse(R"(
hosts:
  - {name: h, kind: local}
  - {name: h, kind: local}
services:
  - {name: p, role: prefill, host: h, url: 'http://127.0.0.1:1'}
  - {name: d, role: decode, host: h, url: 'http://127.0.0.1:2'}
  - {name: p, role: prefill, host: h, url: 'http://127.0.0.1:3'}
clusters:
  - {name: main, prefill: [p], decode: [d]}
  - {name: main, prefill: [p], decode: [d]}
)");
    ASSERT_EQ(result.errors.size(), 3) << dump(result);
    EXPECT_TRUE(
        isError(result, 0, 3, 12, "hosts[1].name", "duplicate host name 'h' (first at line 2)"));
    EXPECT_TRUE(isError(result, 1, 7, 12, "services[2].name",
                        "duplicate service name 'p' (first at line 5)"));
    EXPECT_TRUE(isError(result, 2, 10, 12, "clusters[1].name",
                        "duplicate cluster name 'main' (first at line 9)"));
}

TEST(InventoryValueErrors, ServiceHostNamesNoHost)
{
    const LoadResult result = parse(R"(
hosts: [{name: gpu-a, kind: local}, {name: edge, kind: local}]
services:
  - {name: e, role: engine, host: gpu-b, url: 'http://127.0.0.1:1'}
)");
    ASSERT_EQ(result.errors.size(), 1) << dump(result);
    EXPECT_TRUE(isError(result, 0, 3, 35, "services[0].host",
                        "no host named 'gpu-b' (hosts: gpu-a, edge)"));

    const LoadResult noHosts =
        parse("services: [{name: e, role: engine, host: h, url: 'http://127.0.0.1:1'}]\n");
    ASSERT_EQ(noHosts.errors.size(), 1) << dump(noHosts);
    EXPECT_TRUE(isError(noHosts, 0, 1, 42, "services[0].host", "the inventory declares no hosts"));
}

TEST(InventoryValueErrors, ClusterMemberNamesNoService)
{
    const LoadResult result = parseClusters(R"(
  - {name: main, prefill: [p, prefil], decode: [d], proxy: px}
)");
    ASSERT_EQ(result.errors.size(), 2) << dump(result);
    EXPECT_TRUE(isError(result, 0, 7, 31, "clusters[0].prefill[1]",
                        "no service named 'prefil' (prefill services: p)"));
    EXPECT_TRUE(isError(result, 1, 7, 60, "clusters[0].proxy",
                        "no service named 'px' (there is no proxy service)"));
}

TEST(InventoryValueErrors, ClusterMemberOfTheWrongRole)
{
    const LoadResult result = parseClusters(R"(
  - name: main
    prefill: [d]
    decode: [d, p]
    router: p
    proxy: r
)");
    ASSERT_EQ(result.errors.size(), 4) << dump(result);
    EXPECT_TRUE(isError(result, 0, 8, 15, "clusters[0].prefill[0]",
                        "service 'd' has role decode (expected prefill)"));
    EXPECT_TRUE(isError(result, 1, 9, 17, "clusters[0].decode[1]",
                        "service 'p' has role prefill (expected decode)"));
    EXPECT_TRUE(isError(result, 2, 10, 13, "clusters[0].router",
                        "service 'p' has role prefill (expected router)"));
    EXPECT_TRUE(isError(result, 3, 11, 12, "clusters[0].proxy",
                        "service 'r' has role router (expected proxy)"));
}

TEST(InventoryValueErrors, ClusterMemberListedTwice)
{
    const LoadResult result = parseClusters(R"(
  - {name: main, prefill: [p, p], decode: [d]}
)");
    ASSERT_EQ(result.errors.size(), 1) << dump(result);
    EXPECT_TRUE(isError(result, 0, 7, 31, "clusters[0].prefill[1]", "service 'p' is listed twice"));
}

TEST(InventoryValueErrors, OneMistakeGivesOneMessage)
{
    // The unknown role must not also make the cluster complain about p's role.
    const LoadResult result = parse(R"(
hosts: [{name: h, kind: local}]
services:
  - {name: p, role: prefil, host: h, url: 'http://127.0.0.1:1'}
  - {name: d, role: decode, host: gpu, url: 'http://127.0.0.1:2'}
clusters:
  - {name: main, prefill: [p], decode: [d]}
)");
    ASSERT_EQ(result.errors.size(), 2) << dump(result);
    EXPECT_TRUE(isError(result, 0, 3, 21, "services[0].role", "unknown role 'prefil'"));
    EXPECT_TRUE(isError(result, 1, 4, 35, "services[1].host", "no host named 'gpu'"));
}

TEST(InventoryValueErrors, MultipleErrorsInFileOrder)
{
    const QString path = opsdeck::test::dataPath(u"inventory/many-errors.yaml"_s);
    const LoadResult result = loadInventory(path);
    EXPECT_FALSE(result.inventory.has_value());
    ASSERT_EQ(result.errors.size(), 8) << dump(result);
    EXPECT_TRUE(isError(result, 0, 6, 11, "services[0].role", "unknown role 'decoder'", path));
    EXPECT_TRUE(isError(result, 1, 7, 11, "services[0].host", "no host named 'gpu-b'", path));
    EXPECT_TRUE(isError(result, 2, 8, 10, "services[0].url", "has no port", path));
    EXPECT_TRUE(isError(result, 3, 10, 60, "hosts[0].port", "out of range", path));
    EXPECT_TRUE(isError(result, 4, 11, 12, "hosts[1].name",
                        "duplicate host name 'gpu-a' (first at line 10)", path));
    EXPECT_TRUE(
        isError(result, 5, 14, 15, "clusters[0].prefill[0]", "no service named 'prefill'", path));
    EXPECT_TRUE(isError(result, 6, 16, 23, "clusters[0].transfer_backend",
                        "unknown transfer backend 'ucx'", path));
    EXPECT_TRUE(isError(result, 7, 17, 1, "extra", "unknown key 'extra'", path));
    EXPECT_EQ(result.errors[0].toString(),
              path + u":6:11: services[0].role: unknown role 'decoder' (expected prefill, "
                     "decode, router, proxy or engine)"_s);
}

// A newline in a name forges lines in status's table; a bidi override
// reorders what a person reads. Both refused where they are written.
TEST(InventoryValueErrors, NamesArePrintableTextWithoutControlCharacters)
{
    const LoadResult result = parse("hosts: [{name: \"h\\x1b[2J\", kind: local}]\n"
                                    "services:\n"
                                    "  - name: \"decode\\nfake-line  healthy\"\n"
                                    "    role: engine\n"
                                    "    host: h\n"
                                    "    url: http://127.0.0.1:30001\n"
                                    "clusters:\n"
                                    "  - name: \"pd\\u202E\"\n"
                                    "    router: decode\n");
    const auto indexOf = [&](const char *field) { return errorIndex(result, field); };
    EXPECT_TRUE(isError(result, indexOf("hosts[0].name"), 1, 16, "hosts[0].name",
                        "a host name must be printable text"));
    EXPECT_TRUE(
        isError(result, indexOf("services[0].name"), 3, 11, "services[0].name", "has \\x0a"));
    EXPECT_TRUE(
        isError(result, indexOf("clusters[0].name"), 8, 11, "clusters[0].name", "has \\u202e"));
}

// A newline in a serve script's or pid file's path split the plan's step
// lines where a hostile inventory chose; every path is refused the same way.
TEST(InventoryValueErrors, PathsArePrintableTextWithoutControlCharacters)
{
    const LoadResult result =
        parse("hosts: [{name: h, kind: local}]\n"
              "services:\n"
              "  - name: d\n"
              "    role: decode\n"
              "    host: h\n"
              "    url: http://127.0.0.1:30001\n"
              "    serve_script: \"/srv/d.sh\\n9. restart nothing\"\n"
              "    pid_file: \"/run/d\\x1b[2J.pid\"\n"
              "    log: /var/log/d.log\n"
              "  - {name: p, role: prefill, host: h, url: 'http://127.0.0.1:30002'}\n"
              "clusters:\n"
              "  - name: pd\n"
              "    prefill: [p]\n"
              "    decode: [d]\n"
              "    lock_dir: \"/srv\\tx\"\n");
    const auto indexOf = [&](const char *field) { return errorIndex(result, field); };
    EXPECT_TRUE(isError(result, indexOf("services[0].serve_script"), 7, 19,
                        "services[0].serve_script", "has \\x0a"));
    EXPECT_TRUE(isError(result, indexOf("services[0].pid_file"), 8, 15, "services[0].pid_file",
                        "a path must be printable text"));
    EXPECT_TRUE(isError(result, indexOf("clusters[0].lock_dir"), 15, 15, "clusters[0].lock_dir",
                        "has \\x09"));
    EXPECT_EQ(indexOf("services[0].log"), result.errors.size());
}

// A cluster named "a/../audit.jsonl" made `lock break` remove the data dir's
// audit log; a pid file or an audit copy named as OpsDeck's own files had
// them removed or appended to. Each refused where it is written.
TEST(InventoryValueErrors, NamesWithASlashAndOpsDecksOwnFilesAreRefused)
{
    const LoadResult result =
        parse("hosts: [{name: h, kind: local}]\n"
              "services:\n"
              "  - name: d\n"
              "    role: decode\n"
              "    host: h\n"
              "    url: http://127.0.0.1:30001\n"
              "    pid_file: /data/opsdeck/audit.jsonl\n"
              "    log: /data/opsdeck/history.sqlite\n"
              "    serve_script: /srv/.opsdeck-lock-pd\n"
              "  - {name: p, role: prefill, host: h, url: 'http://127.0.0.1:30002'}\n"
              "clusters:\n"
              "  - name: a/../audit.jsonl\n"
              "    prefill: [p]\n"
              "    decode: [d]\n"
              "    audit_log: /srv/serve_d.sh.opsdeck-20261204T101500Z.bak\n");
    const auto indexOf = [&](const char *field) { return errorIndex(result, field); };
    EXPECT_TRUE(isError(result, indexOf("services[0].pid_file"), 7, 15, "services[0].pid_file",
                        "is named as one of OpsDeck's own files"));
    EXPECT_TRUE(isError(result, indexOf("services[0].log"), 8, 10, "services[0].log",
                        "is named as one of OpsDeck's own files"));
    // A cluster lock (a knob edit would write it).
    EXPECT_TRUE(isError(result, indexOf("services[0].serve_script"), 9, 19,
                        "services[0].serve_script", "is named as one of OpsDeck's own files"));
    EXPECT_TRUE(isError(result, indexOf("clusters[0].name"), 12, 11, "clusters[0].name",
                        "must not contain '/'"));
    EXPECT_TRUE(isError(result, indexOf("clusters[0].audit_log"), 15, 16, "clusters[0].audit_log",
                        "is named as one of OpsDeck's own files"));
}

// Bytes that are not UTF-8 would be read as U+FFFD: a pid_file or a name
// read back would not be the one written. Refused where the byte is.
TEST(InventoryValueErrors, BytesThatAreNotUtf8AreRefusedWhereTheyAre)
{
    const LoadResult result = parse("hosts: [{name: h, kind: local}]\n"
                                    "services:\n"
                                    "  - name: d\xe9"
                                    "code\n" // Latin-1, not UTF-8
                                    "    role: engine\n");
    ASSERT_EQ(result.errors.size(), 1);
    EXPECT_TRUE(isError(result, 0, 3, 12, "", "not UTF-8"))
        << result.errors[0].toString().toStdString();
    // An overlong encoding of '/' and a cut sequence at the end.
    EXPECT_EQ(parse("a: \xc0\xaf\n").errors.value(0).column, 4);
    EXPECT_EQ(parse("hosts: []\nb: \xe2\x82").errors.value(0).line, 2);
    EXPECT_FALSE(parse("hosts: [{name: \"d\xc3\xa9"
                       "code\", kind: local}]\n")
                     .errors.value(0)
                     .message.contains(u"UTF-8"));
}

// An anchored 1 MB string and 3,000 aliases to it would expand to 3 GB as
// the reader copies each use: refused at once, naming where.
TEST(InventoryValueErrors, AliasesThatExpandPastTheLimitAreRefusedBeforeReading)
{
    QByteArray yaml = "anchor: &a \"" + QByteArray(1000 * 1000, 'A') +
                      "\"\nhosts:\n  - {name: "
                      "local, kind: local}\nservices:\n  - name: x\n    role: engine\n    host: "
                      "local\n    url: http://127.0.0.1:1\n    tags: [*a";
    for (int i = 1; i < 3000; ++i)
        yaml += ", *a";
    yaml += "]\n";
    const LoadResult result = parseInventory(yaml, inlineFile());
    ASSERT_EQ(result.errors.size(), 1) << dump(result);
    EXPECT_EQ(result.errors[0].line, 1);
    EXPECT_TRUE(result.errors[0].message.contains(QStringLiteral("counting each alias as a copy")))
        << dump(result);
}

} // namespace
// `armed: "true"` is a string in YAML, not the switch: an inventory arms
// only with the boolean itself (true, True, TRUE), never by a quoted word.
TEST(InventoryValueErrors, AQuotedTrueDoesNotArm)
{
    const char *base = "hosts: [{name: h, kind: local}]\n"
                       "services:\n"
                       "  - {name: d, role: decode, host: h, url: \"http://127.0.0.1:1\"}\n";
    for (const char *quoted : {"armed: \"true\"\n", "armed: 'true'\n"}) {
        const LoadResult result = parse(QByteArray(QByteArray(quoted) + base).constData());
        ASSERT_EQ(result.errors.size(), 1) << quoted;
        EXPECT_TRUE(isError(result, 0, 1, 8, "armed", "(quoted)"))
            << result.errors[0].toString().toStdString();
    }
    const LoadResult armed = parse(QByteArray(QByteArray("armed: True\n") + base).constData());
    ASSERT_TRUE(armed.inventory.has_value());
    EXPECT_TRUE(armed.inventory->armed);
}

// An audit copy named as the recorder's pid file had every workflow's entries
// appended to it, and the recorder could no longer be stopped.
TEST(InventoryValueErrors, AnAuditCopyIsALogFile)
{
    const LoadResult result = parseClusters("  - name: pd\n"
                                            "    prefill: [p]\n"
                                            "    decode: [d]\n"
                                            "    audit_log: /srv/demo/recorder.pid\n");
    ASSERT_EQ(result.errors.size(), 1);
    EXPECT_TRUE(isError(result, 0, 10, 16, "clusters[0].audit_log", "is not a .log file"))
        << result.errors[0].toString().toStdString();
    EXPECT_TRUE(parseClusters("  - name: pd\n"
                              "    prefill: [p]\n"
                              "    decode: [d]\n"
                              "    audit_log: /srv/demo/opsdeck-audit.log\n")
                    .errors.isEmpty());
}

// A pid file is quoted in every command OpsDeck runs with it: `~/p.pid` was
// accepted and named `$HOME/~/p.pid`, so a running service read as stopped.
TEST(InventoryValueErrors, APidFileIsNotLeftForTheHostsShellToExpand)
{
    const LoadResult result =
        parse("hosts: [{name: h, kind: local}]\n"
              "services:\n"
              "  - {name: p, role: prefill, host: h, url: 'http://127.0.0.1:30002',\n"
              "     pid_file: ~/p.pid}\n"
              "  - {name: d, role: decode, host: h, url: 'http://127.0.0.1:30001',\n"
              "     pid_file: $HOME/d.pid, serve_script: ~/serve_d.sh}\n");
    ASSERT_EQ(result.errors.size(), 2);
    EXPECT_TRUE(isError(result, 0, 4, 16, "services[0].pid_file", "give the pid file's absolute"))
        << result.errors[0].toString().toStdString();
    EXPECT_TRUE(isError(result, 1, 6, 16, "services[1].pid_file", "does not expand ~ or $"))
        << result.errors[1].toString().toStdString();
}

} // namespace opsdeck::inventory::test
