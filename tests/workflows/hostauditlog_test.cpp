// HostAuditLog through the local transport: a copy is appended to the file
// the inventory names, and never into OpsDeck's own files, which an
// inventory's audit_log once pointed at (the data dir's audit log, broken
// for good; its history database, its recorder stopped).
#include "hostauditlog.h"
#include "localtransport.h"
#include "testsupport.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <gtest/gtest.h>

using namespace opsdeck;
using workflows::HostAuditLog;

namespace {

// What appending one entry to `path` says ("" when it was appended).
QString appendTo(const QString &path)
{
    remote::LocalTransport local;
    HostAuditLog copy(&local, path);
    history::AuditEntry entry;
    entry.kind = QStringLiteral("workflow");
    entry.host = QStringLiteral("pd");
    entry.action = QStringLiteral("step-done");
    std::optional<QString> said;
    copy.append(entry, [&](const QString &problem) { said = problem; });
    EXPECT_TRUE(test::waitUntil([&] { return said.has_value(); }, std::chrono::seconds(10)))
        << "no answer within 10 s";
    return said.value_or(QStringLiteral("no answer"));
}

QByteArray contentOf(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

} // namespace

TEST(HostAuditLog, ACopyGoesIntoTheFileNamed)
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("opsdeck-audit.log"));
    EXPECT_EQ(appendTo(path), QString());
    EXPECT_TRUE(contentOf(path).contains("\"action\":\"step-done\""));
}

TEST(HostAuditLog, OpsDecksOwnFilesAreNeverACopy)
{
    QTemporaryDir dir;
    // A data dir: its audit log and head, its history database.
    const QByteArray log = "{\"n\":1}\n";
    for (const char *name : {"audit.jsonl", "audit.jsonl.head", "history.sqlite"}) {
        QFile file(dir.filePath(QString::fromLatin1(name)));
        ASSERT_TRUE(file.open(QIODevice::WriteOnly));
        file.write(log);
    }
    for (const char *name : {"audit.jsonl", "history.sqlite"}) {
        const QString path = dir.filePath(QString::fromLatin1(name));
        const QString said = appendTo(path);
        EXPECT_TRUE(said.contains(QStringLiteral("one of OpsDeck's own files")) &&
                    said.contains(path))
            << name << ": " << said.toStdString();
        EXPECT_EQ(contentOf(path), log) << name;
    }
    // A pid file (the recorder's) read as a pid by stop: never appended to.
    const QString pidFile = dir.filePath(QStringLiteral("recorder.pid"));
    ASSERT_TRUE(test::writeFile(pidFile, "4242\n"));
    EXPECT_TRUE(appendTo(pidFile).contains(QStringLiteral("not a .log file")));
    EXPECT_EQ(contentOf(pidFile), QByteArray("4242\n"));
    QTemporaryDir elsewhere;
    const QString journal =
        elsewhere.filePath(QStringLiteral("20261204T101500Z-restart-1a2b.journal"));
    EXPECT_TRUE(appendTo(journal).contains(QStringLiteral("one of OpsDeck's own files")));
    EXPECT_FALSE(QFile::exists(journal));
}
