// Errors of file, syntax, shape and keys: each names file:line:column, the
// dotted field and what is wrong. Positions are asserted exactly.
#include "inventorytest.h"

#include <QFile>
#include <QTemporaryDir>
#include <sys/stat.h>

using namespace Qt::StringLiterals;

namespace opsdeck::inventory::test {
namespace {

TEST(InventoryStructureErrors, MissingFileGivesTheOsReason)
{
    const QString path = u"/nonexistent-opsdeck-dir/inventory.yaml"_s;
    const LoadResult result = loadInventory(path);
    EXPECT_FALSE(result.inventory.has_value());
    ASSERT_EQ(result.errors.size(), 1) << dump(result);
    EXPECT_TRUE(isError(result, 0, 0, 0, "", "No such file or directory", path));
    EXPECT_EQ(result.errors[0].toString(),
              path + u": cannot open the inventory: No such file or directory"_s);
}

TEST(InventoryStructureErrors, AFifoOrADirectoryIsRefusedWithoutBlocking)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const QString fifo = dir.filePath(u"inventory.fifo"_s);
    ASSERT_EQ(::mkfifo(fifo.toLocal8Bit().constData(), 0600), 0);
    // Opening a FIFO for reading would wait for a writer forever.
    const LoadResult fromFifo = loadInventory(fifo);
    ASSERT_EQ(fromFifo.errors.size(), 1) << dump(fromFifo);
    EXPECT_TRUE(isError(fromFifo, 0, 0, 0, "", "not a regular file", fifo));
    const LoadResult fromDir = loadInventory(dir.path());
    ASSERT_EQ(fromDir.errors.size(), 1) << dump(fromDir);
    EXPECT_TRUE(isError(fromDir, 0, 0, 0, "", "not a regular file", dir.path()));
}

TEST(InventoryStructureErrors, FileErrorsNameThePathAsGiven)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const QString path = dir.filePath(u"inv.yaml"_s);
    QFile file(path);
    ASSERT_TRUE(file.open(QIODevice::WriteOnly));
    file.write("hosts: []\nservics: []\n");
    file.close();
    const LoadResult result = loadInventory(path);
    ASSERT_EQ(result.errors.size(), 1) << dump(result);
    EXPECT_TRUE(isError(result, 0, 2, 1, "servics", "unknown key", path));
}

TEST(InventoryStructureErrors, YamlSyntaxErrorHasTheParserPosition)
{
    const LoadResult result = parse(R"(
hosts: []
services: name: decode
)");
    EXPECT_FALSE(result.inventory.has_value());
    ASSERT_EQ(result.errors.size(), 1) << dump(result);
    EXPECT_TRUE(isError(result, 0, 2, 15, "", "YAML syntax error"));
    EXPECT_TRUE(result.errors[0].message.contains(u"illegal map value"_s));
}

TEST(InventoryStructureErrors, TopLevelMustBeAMapping)
{
    const LoadResult list = parse(R"(
- gpu-a
- gpu-b
)");
    ASSERT_EQ(list.errors.size(), 1) << dump(list);
    EXPECT_TRUE(isError(list, 0, 1, 1, "", "found a list"));
    EXPECT_TRUE(list.errors[0].message.contains(u"must be a mapping"_s));

    const LoadResult scalar = parse("\n\njust text\n");
    ASSERT_EQ(scalar.errors.size(), 1) << dump(scalar);
    EXPECT_TRUE(isError(scalar, 0, 2, 1, "", "found 'just text'"));
}

TEST(InventoryStructureErrors, EmptyFile)
{
    for (const char *text : {"", "# only a comment\n"}) {
        const LoadResult result = parse(text);
        ASSERT_EQ(result.errors.size(), 1) << dump(result);
        EXPECT_TRUE(isError(result, 0, 0, 0, "", "the file is empty"));
    }
}

TEST(InventoryStructureErrors, SecondDocument)
{
    const LoadResult result = parse(R"(
hosts: []
---
services: []
)");
    ASSERT_EQ(result.errors.size(), 1) << dump(result);
    EXPECT_TRUE(isError(result, 0, 3, 1, "", "second YAML document"));
}

TEST(InventoryStructureErrors, UnknownTopLevelKey)
{
    const LoadResult result = parse(R"(
hosts: []
servics: []
colour: red
)");
    ASSERT_EQ(result.errors.size(), 2) << dump(result);
    EXPECT_TRUE(isError(result, 0, 2, 1, "servics", "unknown key 'servics'"));
    EXPECT_TRUE(result.errors[0].message.contains(u"did you mean 'services'?"_s));
    EXPECT_TRUE(
        isError(result, 1, 3, 1, "colour",
                "(expected armed, prometheus, hosts, services, clusters, alerts or watch)"));
}

TEST(InventoryStructureErrors, UnknownHostKey)
{
    const LoadResult result = parse(R"(
hosts:
  - name: gpu-a
    kind: ssh
    adress: gpu-a.example
)");
    ASSERT_EQ(result.errors.size(), 2) << dump(result);
    // The typo also leaves the ssh host without its address.
    EXPECT_TRUE(isError(result, 0, 2, 5, "hosts[0].address", "missing required field"));
    EXPECT_TRUE(isError(result, 1, 4, 5, "hosts[0].adress", "did you mean 'address'?"));
}

TEST(InventoryStructureErrors, UnknownServiceKey)
{
    const LoadResult result = parse(R"(
hosts: [{name: h, kind: local}]
services:
  - {name: e, role: engine, host: h, url: 'http://127.0.0.1:1', helth_path: /h, owner: me}
)");
    ASSERT_EQ(result.errors.size(), 2) << dump(result);
    EXPECT_TRUE(isError(result, 0, 3, 65, "services[0].helth_path", "did you mean 'health_path'?"));
    EXPECT_TRUE(
        isError(result, 1, 3, 81, "services[0].owner", "unknown key 'owner' (expected name"));
}

TEST(InventoryStructureErrors, UnknownClusterKey)
{
    const LoadResult result = parse(R"(
hosts: [{name: h, kind: local}]
services:
  - {name: p, role: prefill, host: h, url: 'http://127.0.0.1:1'}
  - {name: d, role: decode, host: h, url: 'http://127.0.0.1:2'}
clusters:
  - name: main
    prefil: [p]
    decode: [d]
)");
    ASSERT_EQ(result.errors.size(), 2) << dump(result);
    EXPECT_TRUE(isError(result, 0, 6, 5, "clusters[0].prefill", "missing required field"));
    EXPECT_TRUE(isError(result, 1, 7, 5, "clusters[0].prefil", "did you mean 'prefill'?"));
}

TEST(InventoryStructureErrors, RepeatedKey)
{
    const LoadResult result = parse(R"(
hosts: [{name: h, kind: local}]
services:
  - name: e
    role: engine
    host: h
    url: http://127.0.0.1:1
    url: http://127.0.0.1:2
)");
    ASSERT_EQ(result.errors.size(), 1) << dump(result);
    EXPECT_TRUE(isError(result, 0, 7, 5, "services[0].url", "appears twice (first at line 6)"));
}

TEST(InventoryStructureErrors, WrongType)
{
    const LoadResult scalarForList = parse("hosts: gpu-a\n");
    ASSERT_EQ(scalarForList.errors.size(), 1) << dump(scalarForList);
    EXPECT_TRUE(isError(scalarForList, 0, 1, 8, "hosts", "expected a list, found 'gpu-a'"));

    const LoadResult scalarForMapping = parse(R"(
hosts:
  - gpu-a
)");
    ASSERT_EQ(scalarForMapping.errors.size(), 1) << dump(scalarForMapping);
    EXPECT_TRUE(isError(scalarForMapping, 0, 2, 5, "hosts[0]", "expected a mapping"));

    const LoadResult listForString = parse(R"(
hosts:
  - name: [gpu-a]
    kind: local
)");
    ASSERT_EQ(listForString.errors.size(), 1) << dump(listForString);
    EXPECT_TRUE(
        isError(listForString, 0, 2, 11, "hosts[0].name", "expected a string, found a list"));

    const LoadResult tags = parse(R"(
hosts: [{name: h, kind: local}]
services:
  - {name: a, role: engine, host: h, url: 'http://127.0.0.1:1', tags: production}
  - {name: b, role: engine, host: h, url: 'http://127.0.0.1:2', tags: [gpu, {x: y}]}
)");
    ASSERT_EQ(tags.errors.size(), 2) << dump(tags);
    EXPECT_TRUE(isError(tags, 0, 3, 71, "services[0].tags", "expected a list, found 'production'"));
    EXPECT_TRUE(
        isError(tags, 1, 4, 77, "services[1].tags[1]", "expected a string, found a mapping"));

    const LoadResult members = parse(R"(
clusters:
  - {name: main, prefill: p, decode: [d]}
)");
    ASSERT_EQ(members.errors.size(), 2) << dump(members);
    EXPECT_TRUE(isError(members, 0, 2, 27, "clusters[0].prefill", "expected a list, found 'p'"));
    EXPECT_TRUE(isError(members, 1, 2, 39, "clusters[0].decode[0]", "no service named 'd'"));
}

TEST(InventoryStructureErrors, MissingRequiredServiceField)
{
    const QStringList lines{u"name: e"_s, u"role: engine"_s, u"host: h"_s,
                            u"url: http://127.0.0.1:1"_s};
    for (const QString &missing : {u"name"_s, u"role"_s, u"host"_s, u"url"_s}) {
        QString yaml = u"hosts: [{name: h, kind: local}]\nservices:\n"_s;
        QString prefix = u"  - "_s;
        for (const QString &line : lines) {
            if (line.startsWith(missing + u':'))
                continue;
            yaml += prefix + line + u'\n';
            prefix = u"    "_s;
        }
        const LoadResult result = parse(yaml.toUtf8().constData());
        ASSERT_EQ(result.errors.size(), 1) << missing.toStdString() << dump(result);
        const QString field = u"services[0]."_s + missing;
        EXPECT_TRUE(isError(result, 0, 3, 5, field.toUtf8().constData(),
                            ("missing required field '" + missing.toStdString() + "'").c_str()));
    }
}

TEST(InventoryStructureErrors, MissingRequiredHostAndClusterFields)
{
    const LoadResult result = parse(R"(
hosts:
  - {name: gpu-a, address: gpu-a.example}
  - {name: gpu-b, kind: ssh}
  - {kind: local}
clusters:
  - {prefill: []}
)");
    ASSERT_EQ(result.errors.size(), 6) << dump(result);
    EXPECT_TRUE(isError(result, 0, 2, 5, "hosts[0].kind", "missing required field 'kind'"));
    EXPECT_TRUE(isError(result, 1, 3, 5, "hosts[1].address", "an ssh host needs one"));
    EXPECT_TRUE(isError(result, 2, 4, 5, "hosts[2].name", "missing required field 'name'"));
    EXPECT_TRUE(isError(result, 3, 6, 5, "clusters[0].name", "missing required field 'name'"));
    EXPECT_TRUE(isError(result, 4, 6, 5, "clusters[0].decode", "missing required field 'decode'"));
    EXPECT_TRUE(isError(result, 5, 6, 15, "clusters[0].prefill", "must list at least one"));
}

TEST(InventoryStructureErrors, EmptyRequiredValue)
{
    const LoadResult result = parse(R"(
hosts:
  - name:
    kind: local
services:
  - {name: e, role: engine, host: '', url: 'http://127.0.0.1:1'}
)");
    ASSERT_EQ(result.errors.size(), 2) << dump(result);
    EXPECT_TRUE(isError(result, 0, 2, 5, "hosts[0].name", "must not be empty"));
    EXPECT_TRUE(isError(result, 1, 5, 35, "services[0].host", "must not be empty"));
}

} // namespace
} // namespace opsdeck::inventory::test

namespace opsdeck::inventory::test {

// A newline or an escape in the file's own name is shown escaped: the error
// stays one line, and no second "file:line" line can be forged.
TEST(InventoryErrors, AFileNameWithANewlineCannotForgeALine)
{
    const ValidationError error{u"/tmp/x\n\x1b[31mFORGED.yaml:1:1: all good"_s, 2, 3, {}, u"bad"_s};
    const QString text = error.toString();
    EXPECT_FALSE(text.contains(u'\n'));
    EXPECT_FALSE(text.contains(QChar(0x1b)));
    EXPECT_TRUE(text.startsWith(u"/tmp/x\\x0a\\x1b[31mFORGED.yaml:1:1: all good:2:3: "_s))
        << text.toStdString();
}

} // namespace opsdeck::inventory::test
