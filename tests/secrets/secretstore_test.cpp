// SecretStore against the real gnome-keyring of the test session
// (packaging/test.sh: dbus-run-session + gnome-keyring-daemon --unlock), and
// the opt-in plaintext file. Keys carry the test process's pid so that runs
// never see each other's secrets.
#include "plaintextsecretfile.h"
#include "secretstore.h"
#include "testsupport.h"

#include <QCoreApplication>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QThread>
#include <atomic>
#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>
#include <sstream>

using namespace opsdeck::secrets;
using Status = SecretResult::Status;

namespace {

QString uniqueKey(const QString &what)
{
    return QStringLiteral("test/%1/%2").arg(QCoreApplication::applicationPid()).arg(what);
}

} // namespace

TEST(SecretStore, WritesReadsAndRemovesInTheRealKeyring)
{
    SecretStore store(SecretStore::Settings{}, nullptr);
    const QString key = uniqueKey(QStringLiteral("roundtrip"));
    const QByteArray value = QByteArrayLiteral("sk-roundtrip-\x01\xff-value");

    const SecretResult written = store.writeBlocking(key, value);
    ASSERT_TRUE(written.ok()) << written.error.toStdString();
    const SecretResult read = store.readBlocking(key);
    ASSERT_TRUE(read.ok()) << read.error.toStdString();
    EXPECT_EQ(read.value, value);

    const SecretResult removed = store.removeBlocking(key);
    ASSERT_TRUE(removed.ok()) << removed.error.toStdString();
    const SecretResult gone = store.readBlocking(key);
    EXPECT_EQ(gone.status, Status::NotFound);
    EXPECT_TRUE(gone.value.isEmpty());
}

TEST(SecretStore, AMissingKeyIsAClearErrorNamingTheKey)
{
    SecretStore store(SecretStore::Settings{}, nullptr);
    const QString key = uniqueKey(QStringLiteral("never-written"));
    const SecretResult result = store.readBlocking(key);
    EXPECT_EQ(result.status, Status::NotFound);
    EXPECT_EQ(result.error, key + QStringLiteral(" is not in the secret store"));
}

TEST(SecretStore, AsyncReadSignalsWithItsId)
{
    SecretStore store(SecretStore::Settings{}, nullptr);
    const QString key = uniqueKey(QStringLiteral("async"));
    ASSERT_TRUE(store.writeBlocking(key, QByteArrayLiteral("async-value")).ok());
    QSignalSpy spy(&store, &SecretStore::readFinished);
    const quint64 id = store.read(key);
    ASSERT_TRUE(spy.wait(10000));
    ASSERT_EQ(spy.size(), 1);
    EXPECT_EQ(spy.at(0).at(0).toULongLong(), id);
    EXPECT_EQ(spy.at(0).at(1).toString(), key);
    EXPECT_EQ(spy.at(0).at(2).value<SecretResult>().value, QByteArrayLiteral("async-value"));
    EXPECT_TRUE(store.removeBlocking(key).ok());
}

TEST(SecretStore, ABadKeyIsRefusedBeforeTheKeychain)
{
    SecretStore store(SecretStore::Settings{}, nullptr);
    const SecretResult result = store.readBlocking(QStringLiteral("http/with space/api-key"));
    EXPECT_EQ(result.status, Status::Failed);
    EXPECT_NE(result.error.indexOf(QStringLiteral("printable ASCII without spaces")), -1);
}

TEST(SecretStore, ValuesNeverReachTheLog)
{
    std::ostringstream captured;
    auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(captured);
    auto previous = spdlog::default_logger();
    auto logger = std::make_shared<spdlog::logger>("capture", sink);
    logger->set_level(spdlog::level::trace);
    spdlog::set_default_logger(logger);

    SecretStore store(SecretStore::Settings{}, nullptr);
    const QString key = uniqueKey(QStringLiteral("logged"));
    const QByteArray value = QByteArrayLiteral("sk-must-not-be-logged-4711");
    EXPECT_TRUE(store.writeBlocking(key, value).ok());
    EXPECT_TRUE(store.readBlocking(key).ok());
    EXPECT_TRUE(store.removeBlocking(key).ok());
    spdlog::set_default_logger(previous);
    EXPECT_EQ(captured.str().find("sk-must-not-be-logged-4711"), std::string::npos);
}

TEST(PlaintextSecretFile, IsCreatedWithMode0600AndRoundTrips)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    PlaintextSecretFile file(dir.filePath(QStringLiteral("sub/secrets.json")));
    ASSERT_TRUE(file.write(QStringLiteral("http/decode/api-key"), "sk-file").ok());
    // Owner read/write and nothing for group or others (User* is the owner seen by us).
    EXPECT_EQ(QFile::permissions(file.path()),
              QFile::ReadOwner | QFile::WriteOwner | QFile::ReadUser | QFile::WriteUser);
    EXPECT_EQ(file.read(QStringLiteral("http/decode/api-key")).value, QByteArrayLiteral("sk-file"));
    EXPECT_EQ(file.read(QStringLiteral("http/other/api-key")).status, Status::NotFound);
    EXPECT_TRUE(file.remove(QStringLiteral("http/decode/api-key")).ok());
    EXPECT_EQ(file.read(QStringLiteral("http/decode/api-key")).status, Status::NotFound);
}

// Another user's planted link must not make OpsDeck write a secret into
// their file; a file readable by others is tightened before it is read.
TEST(PlaintextSecretFile, ALinkInItsPlaceIsRefusedAndALooseFileIsTightened)
{
    QTemporaryDir dir;
    const QString victim = dir.filePath(QStringLiteral("victim"));
    ASSERT_TRUE(opsdeck::test::writeFile(victim, "precious\n"));
    const QString path = dir.filePath(QStringLiteral("secrets.json"));
    ASSERT_TRUE(QFile::link(victim, path));
    PlaintextSecretFile file(path);
    const auto written = file.write(QStringLiteral("http/decode/api-key"), "sk-file");
    EXPECT_FALSE(written.ok());
    EXPECT_TRUE(written.error.contains(QStringLiteral("symbolic link")))
        << written.error.toStdString();
    EXPECT_EQ(opsdeck::test::readFile(victim), QByteArray("precious\n"));

    QFile::remove(path);
    ASSERT_TRUE(file.write(QStringLiteral("http/decode/api-key"), "sk-file").ok());
    ASSERT_TRUE(QFile::setPermissions(path, QFile::permissions(path) | QFile::ReadOther |
                                                QFile::ReadGroup));
    EXPECT_EQ(file.read(QStringLiteral("http/decode/api-key")).value, QByteArrayLiteral("sk-file"));
    EXPECT_EQ(QFile::permissions(path) & (QFile::ReadOther | QFile::ReadGroup), 0);
}

// The console's poller reads keys on its worker thread: the store works there too.
TEST(SecretStore, BlockingReadOnAWorkerThread)
{
    SecretStore store(SecretStore::Settings{}, nullptr);
    const QString key = uniqueKey(QStringLiteral("worker"));
    ASSERT_TRUE(store.writeBlocking(key, QByteArrayLiteral("worker-value")).ok());
    SecretResult seen;
    std::atomic<bool> done{false};
    std::unique_ptr<QThread> worker(QThread::create([&] {
        seen = SecretStore::shared().readBlocking(key);
        done = true;
    }));
    worker->start();
    // The job runs in this (the main) thread, so it keeps its event loop going.
    ASSERT_TRUE(opsdeck::test::waitUntil([&] { return done.load(); }, std::chrono::seconds(20)));
    ASSERT_TRUE(worker->wait(QDeadlineTimer(5000)));
    EXPECT_TRUE(seen.ok()) << seen.error.toStdString();
    EXPECT_EQ(seen.value, QByteArrayLiteral("worker-value"));
    EXPECT_TRUE(store.removeBlocking(key).ok());
}
