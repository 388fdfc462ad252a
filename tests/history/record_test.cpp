// `opsdeck-cli record` against a real opsdeck-sim engine with traffic: it
// writes its pid file, refuses a second recorder and a second writer,
// records health and batch series, and on SIGTERM flushes, removes its pid
// file and exits 0. Then `demo up` starts the demo's recorder and `demo down`
// stops it.
#include "clitest.h"
#include "corrupthistory.h"
#include "historystore.h"
#include "historywriter.h"
#include "simprocess.h"
#include "testsupport.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QRegularExpression>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <algorithm>
#include <csignal>
#include <fcntl.h>
#include <functional>
#include <gtest/gtest.h>
#include <optional>
#include <sys/file.h>
#include <sys/stat.h>

using namespace opsdeck;
using opsdeck::history::HistoryStore;
using opsdeck::test::processAlive;
using opsdeck::test::runCli;
using opsdeck::test::waitUntil;

namespace {

qint64 pidIn(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll().trimmed().toLongLong() : 0;
}

QString writeFile(const QString &path, const QByteArray &text)
{
    QFile file(path);
    EXPECT_TRUE(file.open(QIODevice::WriteOnly));
    file.write(text);
    return path;
}

QVector<double> valuesOf(HistoryStore &store, const QString &service, const QString &key)
{
    QVector<double> values;
    for (const auto &sample : store.rawSamples(service, key, 0, std::numeric_limits<qint64>::max()))
        values.append(sample.value);
    return values;
}

// An inventory of one engine on a port nothing listens on (every poll still
// gives an "up" = 0 sample), as `inv.yaml` in `dir`.
// An inventory of one engine at `url`.
QString engineIn(const QTemporaryDir &dir, const QString &url)
{
    return writeFile(dir.filePath(QStringLiteral("inv.yaml")),
                     QStringLiteral("hosts:\n  - {name: local, kind: local}\nservices:\n"
                                    "  - name: engine\n    role: engine\n    host: local\n"
                                    "    url: %1\n")
                         .arg(url)
                         .toUtf8());
}

QString unreachableEngineIn(const QTemporaryDir &dir)
{
    return engineIn(dir, QStringLiteral("http://127.0.0.1:9"));
}

// A history file with one marker, "from the backup" at 1000 ms: what a
// person restores by hand.
bool writeBackup(const QString &path)
{
    HistoryStore backup(path);
    history::Marker marker;
    marker.timeMs = 1000;
    marker.kind = QStringLiteral("note");
    marker.text = QStringLiteral("from the backup");
    return backup.open() && backup.addMarker(marker);
}

// Starts `opsdeck-cli ARGUMENTS` and waits until it says it records (and
// `also` holds); its stderr so far in `said`.
bool startRecording(QProcess &recorder, const QStringList &arguments, QByteArray &said,
                    const std::function<bool()> &also = {},
                    std::chrono::seconds deadline = std::chrono::seconds(15))
{
    recorder.setStandardInputFile(QProcess::nullDevice());
    recorder.start(test::binPath(QStringLiteral("opsdeck-cli")), arguments);
    return waitUntil(
        [&] {
            said += recorder.readAllStandardError();
            return said.contains("recording 1 services") && (!also || also());
        },
        deadline);
}

// Waits until `process` has `file` open (its checks before that are done).
bool holdsOpen(const QProcess &process, const QString &file)
{
    const QString fds = QStringLiteral("/proc/%1/fd").arg(process.processId());
    return waitUntil(
        [&] {
            for (const QFileInfo &fd : QDir(fds).entryInfoList(QDir::AllEntries | QDir::System))
                if (fd.symLinkTarget() == QFileInfo(file).canonicalFilePath())
                    return true;
            return false;
        },
        std::chrono::seconds(10));
}

// A new history file at `database`, held by this process's exclusive lock
// until release(): a recorder opening it waits in its first read (SQLite's
// busy timeout, 5 s), after its pid file's first check.
class ExclusivelyHeld
{
public:
    explicit ExclusivelyHeld(const QString &database)
        : m_name(QStringLiteral("held-%1").arg(database))
    {
        EXPECT_TRUE(QDir().mkpath(QFileInfo(database).absolutePath()));
        EXPECT_TRUE(HistoryStore(database).open());
        QSqlDatabase holder = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), m_name);
        holder.setDatabaseName(database);
        EXPECT_TRUE(holder.open());
        QSqlQuery query(holder);
        for (const char *statement :
             {"PRAGMA locking_mode=EXCLUSIVE", "BEGIN EXCLUSIVE", "CREATE TABLE held(a)"})
            EXPECT_TRUE(query.exec(QString::fromLatin1(statement))) << statement;
    }
    ~ExclusivelyHeld() { release(); }
    ExclusivelyHeld(const ExclusivelyHeld &) = delete;
    ExclusivelyHeld &operator=(const ExclusivelyHeld &) = delete;
    void release()
    {
        if (!QSqlDatabase::contains(m_name))
            return;
        {
            QSqlDatabase holder = QSqlDatabase::database(m_name);
            QSqlQuery(holder).exec(QStringLiteral("ROLLBACK"));
            holder.close();
        }
        QSqlDatabase::removeDatabase(m_name);
    }

private:
    QString m_name;
};

} // namespace

TEST(RecordCommand, RecordsARealEngineUntilSigterm)
{
    test::SimProcess engine;
    ASSERT_TRUE(
        engine.start({QStringLiteral("--role"), QStringLiteral("engine"), QStringLiteral("--port"),
                      QStringLiteral("0"), QStringLiteral("--ready-delay"), QStringLiteral("0")}))
        << engine.errorText().toStdString();
    test::SimProcess traffic;
    ASSERT_TRUE(traffic.start({QStringLiteral("--role"), QStringLiteral("traffic"),
                               QStringLiteral("--target"), engine.url(),
                               QStringLiteral("--clients"), QStringLiteral("8")}))
        << traffic.errorText().toStdString();

    QTemporaryDir dir;
    const QString inventory = engineIn(dir, engine.url());
    const QString data = dir.filePath(QStringLiteral("data"));
    const QString pidFile = dir.filePath(QStringLiteral("recorder.pid"));

    QProcess recorder;
    recorder.setStandardInputFile(QProcess::nullDevice());
    recorder.start(test::binPath(QStringLiteral("opsdeck-cli")),
                   {QStringLiteral("record"), QStringLiteral("--inventory"), inventory,
                    QStringLiteral("--data-dir"), data, QStringLiteral("--pid-file"), pidFile,
                    QStringLiteral("--interval-ms"), QStringLiteral("200")});
    ASSERT_TRUE(recorder.waitForStarted());
    ASSERT_TRUE(
        waitUntil([&] { return pidIn(pidFile) == recorder.processId(); }, std::chrono::seconds(15)))
        << recorder.readAllStandardError().toStdString();

    // A second recorder on the same pid file, or into the same database, is refused.
    const auto samePid =
        runCli({QStringLiteral("record"), QStringLiteral("--inventory"), inventory,
                QStringLiteral("--data-dir"), data, QStringLiteral("--pid-file"), pidFile});
    EXPECT_EQ(samePid.exitCode, 1);
    EXPECT_TRUE(samePid.standardError.contains(
        QStringLiteral("already running: pid %1").arg(recorder.processId()).toUtf8()))
        << samePid.standardError.toStdString();
    const auto sameData = runCli({QStringLiteral("record"), QStringLiteral("--inventory"),
                                  inventory, QStringLiteral("--data-dir"), data});
    EXPECT_EQ(sameData.exitCode, 1);
    EXPECT_TRUE(sameData.standardError.contains(
        QStringLiteral("history is being recorded by pid %1").arg(recorder.processId()).toUtf8()))
        << sameData.standardError.toStdString();
    EXPECT_EQ(pidIn(pidFile), recorder.processId()) << "the refused one left the pid file alone";

    // Readable while it records (WAL): wait for a busy batch in a flushed block.
    HistoryStore store(HistoryStore::pathIn(data));
    ASSERT_TRUE(store.open()) << store.lastError().toStdString();
    const QString svc = QStringLiteral("engine");
    EXPECT_TRUE(waitUntil(
        [&] {
            const auto running = valuesOf(store, svc, QStringLiteral("live_running"));
            return running.size() >= 5 && *std::max_element(running.cbegin(), running.cend()) > 0;
        },
        std::chrono::seconds(30)))
        << "no busy decode batch recorded";

    ::kill(static_cast<pid_t>(recorder.processId()), SIGTERM);
    ASSERT_TRUE(recorder.waitForFinished(15000));
    EXPECT_EQ(recorder.exitStatus(), QProcess::NormalExit);
    EXPECT_EQ(recorder.exitCode(), 0) << recorder.readAllStandardError().toStdString();
    EXPECT_FALSE(QFile::exists(pidFile));

    const auto running = valuesOf(store, svc, QStringLiteral("live_running"));
    const auto waiting = valuesOf(store, svc, QStringLiteral("live_waiting"));
    const auto latency = valuesOf(store, svc, QStringLiteral("health_latency_ms"));
    const auto up = valuesOf(store, svc, QStringLiteral("up"));
    ASSERT_GE(running.size(), 5);
    EXPECT_EQ(waiting.size(), running.size());
    for (const double value : running) {
        EXPECT_GE(value, 0);
        EXPECT_LE(value, 8) << "8 traffic clients can never run more than 8 requests";
        EXPECT_EQ(value, std::floor(value));
    }
    ASSERT_GE(latency.size(), 5);
    for (const double ms : latency) {
        EXPECT_GT(ms, 0);
        EXPECT_LT(ms, 2000);
    }
    ASSERT_FALSE(up.isEmpty());
    EXPECT_EQ(up.back(), 1);
    // The /metrics scrape's series too: the batch as the engine's gauge reports it.
    const auto gauge = valuesOf(store, svc, QStringLiteral("running"));
    ASSERT_FALSE(gauge.isEmpty());
    for (const double value : gauge) {
        EXPECT_GE(value, 0);
        EXPECT_LE(value, 8);
    }
    const auto rollups = store.rollups(svc, QStringLiteral("health_latency_ms"), 0,
                                       std::numeric_limits<qint64>::max());
    ASSERT_FALSE(rollups.isEmpty()) << "the last minute's rollup is written on stop";
}

TEST(RecordCommand, RefusesABadInventoryWithItsLine)
{
    QTemporaryDir dir;
    const QString inventory = writeFile(dir.filePath(QStringLiteral("bad.yaml")),
                                        "services:\n  - name: decode\n    role: decoder\n"
                                        "    host: local\n    url: http://127.0.0.1:1\n");
    const auto run = runCli({QStringLiteral("record"), QStringLiteral("--inventory"), inventory,
                             QStringLiteral("--data-dir"), dir.filePath(QStringLiteral("d"))});
    EXPECT_EQ(run.exitCode, 2);
    EXPECT_TRUE(run.standardError.contains((inventory + QStringLiteral(":3:")).toUtf8()))
        << run.standardError.toStdString();
    EXPECT_FALSE(QFile::exists(dir.filePath(QStringLiteral("d/history.sqlite"))));
    EXPECT_EQ(runCli({QStringLiteral("record")}).exitCode, 2);
    EXPECT_EQ(runCli({QStringLiteral("record"), QStringLiteral("--inventory"), inventory,
                      QStringLiteral("--interval-ms"), QStringLiteral("5")})
                  .exitCode,
              2);
}

TEST(RecordCommand, DemoUpStartsTheRecorderAndDemoDownStopsIt)
{
    QTemporaryDir home;
    const QString demo = home.filePath(QStringLiteral("demo"));
    const auto up = runCli({QStringLiteral("demo"), QStringLiteral("up"), QStringLiteral("--dir"),
                            demo, QStringLiteral("--traffic"), QStringLiteral("2")},
                           home.path(), std::chrono::seconds(90));
    ASSERT_EQ(up.exitCode, 0) << up.standardError.toStdString();
    const QString pidFile = demo + QStringLiteral("/recorder.pid");
    qint64 pid = 0;
    ASSERT_TRUE(waitUntil(
        [&] {
            pid = pidIn(pidFile);
            return pid > 0 && processAlive(pid);
        },
        std::chrono::seconds(10)));
    // The pid file can be written between the shell's fork and the exec.
    QByteArray command;
    EXPECT_TRUE(waitUntil(
        [&] {
            QFile cmdline(QStringLiteral("/proc/%1/cmdline").arg(pid));
            command = cmdline.open(QIODevice::ReadOnly) ? cmdline.readAll() : QByteArray();
            return command.contains("opsdeck-cli") && command.contains("record");
        },
        std::chrono::seconds(10)))
        << command.toStdString();

    HistoryStore store(HistoryStore::pathIn(demo));
    ASSERT_TRUE(waitUntil([&] { return QFile::exists(store.path()); }, std::chrono::seconds(10)));
    ASSERT_TRUE(store.open()) << store.lastError().toStdString();
    EXPECT_TRUE(waitUntil(
        [&] { return !valuesOf(store, QStringLiteral("decode"), QStringLiteral("up")).isEmpty(); },
        std::chrono::seconds(20)))
        << "the demo's recorder wrote nothing";

    const auto down =
        runCli({QStringLiteral("demo"), QStringLiteral("down"), QStringLiteral("--dir"), demo},
               home.path());
    EXPECT_EQ(down.exitCode, 0) << down.standardError.toStdString();
    EXPECT_FALSE(processAlive(pid)) << "recorder still runs";
    EXPECT_FALSE(QFile::exists(pidFile));
    EXPECT_TRUE(down.standardError.contains("recorder stopped"))
        << down.standardError.toStdString();
}

// A closed terminal or a dropped ssh session sends SIGHUP: the recorder stops
// as for SIGTERM (flush, pid file removed, exit 0), not with the default death
// that left the pid file and the lock behind.
TEST(RecordCommand, SighupStopsCleanly)
{
    QTemporaryDir dir;
    const QString inventory = unreachableEngineIn(dir);
    const QString pidFile = dir.filePath(QStringLiteral("recorder.pid"));
    QProcess recorder;
    recorder.setStandardInputFile(QProcess::nullDevice());
    recorder.start(test::binPath(QStringLiteral("opsdeck-cli")),
                   {QStringLiteral("record"), QStringLiteral("--inventory"), inventory,
                    QStringLiteral("--data-dir"), dir.filePath(QStringLiteral("data")),
                    QStringLiteral("--pid-file"), pidFile});
    ASSERT_TRUE(recorder.waitForStarted());
    ASSERT_TRUE(
        waitUntil([&] { return pidIn(pidFile) == recorder.processId(); }, std::chrono::seconds(15)))
        << recorder.readAllStandardError().toStdString();
    ::kill(static_cast<pid_t>(recorder.processId()), SIGHUP);
    ASSERT_TRUE(recorder.waitForFinished(15000));
    EXPECT_EQ(recorder.exitStatus(), QProcess::NormalExit);
    EXPECT_EQ(recorder.exitCode(), 0) << recorder.readAllStandardError().toStdString();
    EXPECT_FALSE(QFile::exists(pidFile));
}

// The database deleted under a running recorder: SQLite would write on into
// the deleted file and lose everything silently; record stops with exit 1.
TEST(RecordCommand, ADatabaseRemovedWhileRecordingStopsItWithExitOne)
{
    QTemporaryDir dir;
    const QString inventory = unreachableEngineIn(dir);
    const QString data = dir.filePath(QStringLiteral("data"));
    QProcess recorder;
    QByteArray said;
    ASSERT_TRUE(startRecording(recorder,
                               {QStringLiteral("record"), QStringLiteral("--inventory"), inventory,
                                QStringLiteral("--data-dir"), data, QStringLiteral("--interval-ms"),
                                QStringLiteral("200")},
                               said))
        << said.toStdString();
    const QString database = HistoryStore::pathIn(data);
    for (const QString &suffix : {QString(), QStringLiteral("-wal"), QStringLiteral("-shm")})
        QFile::remove(database + suffix);
    ASSERT_TRUE(recorder.waitForFinished(15000)) << "a flush every 5 s must notice";
    said += recorder.readAllStandardError();
    EXPECT_EQ(recorder.exitCode(), 1) << said.toStdString();
    EXPECT_TRUE(said.contains("was removed or replaced while recording")) << said.toStdString();
    EXPECT_TRUE(said.contains("samples were not written")) << said.toStdString();
}

// A backup restored over the database of a running recorder: the recorder
// stops, and the old file's WAL is moved aside, never replayed into the
// restored file by the next recorder.
TEST(RecordCommand, ARestoredDatabaseIsNotOverwrittenByTheOldWal)
{
    QTemporaryDir dir;
    const QString inventory = unreachableEngineIn(dir);
    const QString data = dir.filePath(QStringLiteral("data"));
    const QString database = HistoryStore::pathIn(data);
    const QString restored = dir.filePath(QStringLiteral("backup.sqlite"));
    ASSERT_TRUE(writeBackup(restored));
    QProcess recorder;
    QByteArray said;
    ASSERT_TRUE(startRecording(recorder,
                               {QStringLiteral("record"), QStringLiteral("--inventory"), inventory,
                                QStringLiteral("--data-dir"), data, QStringLiteral("--interval-ms"),
                                QStringLiteral("200")},
                               said,
                               [&] { return QFile::exists(database + QStringLiteral("-wal")); }))
        << said.toStdString();
    ASSERT_TRUE(QFile::copy(restored, database + QStringLiteral(".new")));
    ASSERT_EQ(::rename(QFile::encodeName(database + QStringLiteral(".new")).constData(),
                       QFile::encodeName(database).constData()),
              0);
    // Another opener writes before the recorder has seen the file replaced
    // (a knob edit's marker): it goes into the restored file.
    history::Marker added;
    added.timeMs = 1500;
    added.kind = QStringLiteral("knob");
    added.text = QStringLiteral("written after the restore");
    QString why;
    ASSERT_TRUE(HistoryStore::addMarkerTo(database, added, &why)) << why.toStdString();
    ASSERT_TRUE(recorder.waitForFinished(15000));
    said += recorder.readAllStandardError();
    EXPECT_EQ(recorder.exitCode(), 1) << said.toStdString();
    EXPECT_TRUE(said.contains("removed or replaced while recording")) << said.toStdString();
    EXPECT_FALSE(QFile::exists(database + QStringLiteral("-wal")));

    HistoryStore reopened(database);
    ASSERT_TRUE(reopened.open(true)) << reopened.lastError().toStdString();
    const QVector<history::Marker> markers = reopened.markers(0, 2000);
    ASSERT_EQ(markers.size(), 2) << "the restored file is the backup, not the old WAL replayed";
    EXPECT_EQ(markers.first().text, QStringLiteral("from the backup"));
    EXPECT_EQ(markers.last().text, QStringLiteral("written after the restore"));
    EXPECT_TRUE(reopened.seriesList().isEmpty());
}

namespace {

// A raw connection holding a read snapshot (a window reading history while
// the recorder writes): the recorder's next commits cannot be checkpointed
// and stay in the WAL, as they would if it were killed just after one.
class Snapshot
{
public:
    explicit Snapshot(const QString &database)
    {
        QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), kName);
        db.setDatabaseName(database);
        if (db.open()) {
            QSqlQuery query(db);
            m_open = query.exec(QStringLiteral("BEGIN")) &&
                     query.exec(QStringLiteral("SELECT count(*) FROM series")) && query.next();
            m_samples = samplesIn(db);
        }
    }
    ~Snapshot()
    {
        {
            QSqlDatabase db = QSqlDatabase::database(kName, false);
            QSqlQuery(db).exec(QStringLiteral("COMMIT"));
            db.close();
        }
        QSqlDatabase::removeDatabase(kName);
    }
    bool isOpen() const { return m_open; }
    /// The samples the file held when the snapshot began.
    qint64 samples() const { return m_samples; }

    static qint64 samplesIn(const QSqlDatabase &db)
    {
        QSqlQuery query(db);
        return query.exec(QStringLiteral("SELECT coalesce(sum(count), 0) FROM blocks")) &&
                       query.next()
                   ? query.value(0).toLongLong()
                   : -1;
    }

private:
    static inline const QString kName = QStringLiteral("snapshot");
    bool m_open = false;
    qint64 m_samples = -1;
};

// The samples in `database`'s blocks, through a connection of its own.
qint64 samplesInFile(const QString &database)
{
    qint64 samples = -1;
    {
        QSqlDatabase db =
            QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("count"));
        db.setDatabaseName(database);
        if (db.open())
            samples = Snapshot::samplesIn(db);
        db.close();
    }
    QSqlDatabase::removeDatabase(QStringLiteral("count"));
    return samples;
}

// `cp backup database`: written over in place (same inode, mtime now).
void restoreByCopyOver(const QString &backup, const QString &database)
{
    QFile from(backup);
    QFile to(database);
    ASSERT_TRUE(from.open(QIODevice::ReadOnly) && to.open(QIODevice::WriteOnly));
    ASSERT_EQ(to.write(from.readAll()), from.size());
}

qint64 walSize(const QString &database)
{
    return QFileInfo(database + QStringLiteral("-wal")).size();
}

QStringList walsSetAside(const QString &database)
{
    return QDir(QFileInfo(database).absolutePath())
        .entryList({QFileInfo(database).fileName() + QStringLiteral("-wal.not-replayed-*")});
}

// Starts `record` of `engine` into `data` and waits until a series is in
// the file; its stderr so far in `said`.
bool recordUntilASeriesIsIn(QProcess &recorder, const QTemporaryDir &dir,
                            const test::SimProcess &engine, const QString &data, QByteArray &said)
{
    const QString database = HistoryStore::pathIn(data);
    return startRecording(
        recorder,
        {QStringLiteral("record"), QStringLiteral("--inventory"), engineIn(dir, engine.url()),
         QStringLiteral("--data-dir"), data, QStringLiteral("--interval-ms"),
         QStringLiteral("200")},
        said,
        [&] {
            HistoryStore reader(database);
            return QFile::exists(database) && reader.open() && !reader.seriesList().isEmpty();
        },
        std::chrono::seconds(20));
}

// Starts a recorder of `engine` into `data` and kills it (SIGKILL) while its
// last flush sits in the WAL; `samplesBefore` is what the file held without it.
void killRecorderWithAFullWal(const QTemporaryDir &dir, const test::SimProcess &engine,
                              const QString &data, qint64 *samplesBefore)
{
    const QString database = HistoryStore::pathIn(data);
    QProcess recorder;
    QByteArray said;
    ASSERT_TRUE(recordUntilASeriesIsIn(recorder, dir, engine, data, said)) << said.toStdString();
    {
        Snapshot snapshot(database);
        ASSERT_TRUE(snapshot.isOpen());
        *samplesBefore = snapshot.samples();
        // The recorder flushes every 5 s; its checkpoint cannot empty the
        // WAL while the snapshot reads, so the next flush stays in it. Killed
        // once that flush is committed (a new reader sees more samples: a
        // transaction still being written is not replayed) and the record
        // is settled (not in a checkpoint, which may still write the file).
        ASSERT_TRUE(waitUntil(
            [&] {
                return samplesInFile(database) > *samplesBefore &&
                       test::readFile(database + QStringLiteral("-walbase")).startsWith("v2 ");
            },
            std::chrono::seconds(15)));
    }
    ::kill(pid_t(recorder.processId()), SIGKILL);
    ASSERT_TRUE(recorder.waitForFinished(5000));
    ASSERT_GT(walSize(database), 0) << "the flush is still only in the WAL";
}

} // namespace

// A recorder killed (SIGKILL) with a flush only in the WAL: the next opener
// replays it, as SQLite's recovery should, and sets nothing aside; so does
// the opener of the data folder copied whole (`cp -a`, as when moving to
// another disk), whose WAL is the copy's.
TEST(RecordCommand, AKilledRecordersLastFlushIsReplayedIntoItsOwnFile)
{
    test::SimProcess engine;
    ASSERT_TRUE(engine.start(test::simArgs(QStringLiteral("engine"))))
        << engine.errorText().toStdString();
    QTemporaryDir dir;
    const QString data = dir.filePath(QStringLiteral("data"));
    qint64 before = 0;
    ASSERT_NO_FATAL_FAILURE(killRecorderWithAFullWal(dir, engine, data, &before));
    const QString copy = dir.filePath(QStringLiteral("copy"));
    ASSERT_EQ(QProcess::execute(QStringLiteral("cp"), {QStringLiteral("-a"), data, copy}), 0);
    for (const QString &folder : {data, copy}) {
        SCOPED_TRACE(folder.toStdString());
        const QString database = HistoryStore::pathIn(folder);
        ASSERT_GT(walSize(database), 0);
        {
            HistoryStore reopened(database);
            ASSERT_TRUE(reopened.open(true)) << reopened.lastError().toStdString();
            EXPECT_TRUE(reopened.openNotice().isEmpty()) << reopened.openNotice().toStdString();
        }
        EXPECT_TRUE(walsSetAside(database).isEmpty());
        EXPECT_GT(samplesInFile(database), before) << "the WAL's flush was replayed";
    }
}

// A backup copied over the file in place (`cp backup history.sqlite`) while
// the recorder runs: its next flush finds the file written outside, stops
// recording (exit 1, said), and never writes its pages into the backup,
// neither by a checkpoint nor as it closes; the backup opens whole.
TEST(RecordCommand, ABackupCopiedOverTheFileWhileRecordingStopsItAndStaysAsItWas)
{
    test::SimProcess engine;
    ASSERT_TRUE(engine.start(test::simArgs(QStringLiteral("engine"))))
        << engine.errorText().toStdString();
    QTemporaryDir dir;
    const QString data = dir.filePath(QStringLiteral("data"));
    const QString database = HistoryStore::pathIn(data);
    const QString backup = dir.filePath(QStringLiteral("backup.sqlite"));
    ASSERT_TRUE(writeBackup(backup));
    QProcess recorder;
    QByteArray said;
    ASSERT_TRUE(recordUntilASeriesIsIn(recorder, dir, engine, data, said)) << said.toStdString();
    const QByteArray backupBytes = test::readFile(backup);
    ASSERT_NO_FATAL_FAILURE(restoreByCopyOver(backup, database));
    ASSERT_TRUE(recorder.waitForFinished(20000)) << "the next flush (every 5 s) stops it";
    said += recorder.readAllStandardError();
    EXPECT_EQ(recorder.exitCode(), 1) << said.toStdString();
    EXPECT_TRUE(said.contains("was written by another program while open")) << said.toStdString();
    EXPECT_EQ(test::readFile(database), backupBytes) << "the backup stays as it was";
    HistoryStore reopened(database);
    ASSERT_TRUE(reopened.open(true)) << reopened.lastError().toStdString();
    const QVector<history::Marker> markers = reopened.markers(0, 2000);
    ASSERT_EQ(markers.size(), 1);
    EXPECT_EQ(markers.first().text, QStringLiteral("from the backup"));
}

// The same WAL, but a backup was put in place by hand before the next start,
// by `mv` or by `cp` over the file: the WAL is set aside (and said), never
// replayed into the backup. Put in place while a reader still has the WAL
// open, the open is refused; once it closed and the backup was put in place
// again, the backup is read as it is.
TEST(RecordCommand, AKilledRecordersWalIsNeverReplayedIntoARestoredFile)
{
    test::SimProcess engine;
    ASSERT_TRUE(engine.start(test::simArgs(QStringLiteral("engine"))))
        << engine.errorText().toStdString();
    enum class Restore
    {
        Move,
        CopyOver,
        CopyOverWhileOpen,
        CopyFolderOver
    };
    for (const Restore restore :
         {Restore::Move, Restore::CopyOver, Restore::CopyOverWhileOpen, Restore::CopyFolderOver}) {
        SCOPED_TRACE(restore == Restore::Move       ? "mv backup history.sqlite"
                     : restore == Restore::CopyOver ? "cp backup history.sqlite"
                     : restore == Restore::CopyFolderOver
                         ? "cp -a backup/. data/ (the backup's own record comes along)"
                         : "cp backup history.sqlite, a reader open");
        QTemporaryDir dir;
        const QString data = dir.filePath(QStringLiteral("data"));
        const QString database = HistoryStore::pathIn(data);
        const QString backupFolder = dir.filePath(QStringLiteral("backup"));
        const QString backup = restore == Restore::CopyFolderOver
                                   ? HistoryStore::pathIn(backupFolder)
                                   : dir.filePath(QStringLiteral("backup.sqlite"));
        ASSERT_TRUE(writeBackup(backup));
        qint64 before = 0;
        ASSERT_NO_FATAL_FAILURE(killRecorderWithAFullWal(dir, engine, data, &before));
        if (restore == Restore::CopyFolderOver) {
            ASSERT_EQ(QProcess::execute(QStringLiteral("cp"),
                                        {QStringLiteral("-a"), backupFolder + QStringLiteral("/."),
                                         data + QStringLiteral("/")}),
                      0);
        } else if (restore == Restore::Move) {
            ASSERT_EQ(::rename(QFile::encodeName(backup).constData(),
                               QFile::encodeName(database).constData()),
                      0);
        } else if (restore == Restore::CopyOver) {
            ASSERT_NO_FATAL_FAILURE(restoreByCopyOver(backup, database));
        } else {
            {
                Snapshot reader(database);
                ASSERT_TRUE(reader.isOpen());
                ASSERT_NO_FATAL_FAILURE(restoreByCopyOver(backup, database));
                HistoryStore refused(database);
                EXPECT_FALSE(refused.open(true));
                EXPECT_TRUE(
                    refused.lastError().contains(QStringLiteral("still open in another process")))
                    << refused.lastError().toStdString();
            }
            // As the refusal says: every program closed, the backup again.
            ASSERT_NO_FATAL_FAILURE(restoreByCopyOver(backup, database));
        }
        {
            HistoryStore reopened(database);
            ASSERT_TRUE(reopened.open(true)) << reopened.lastError().toStdString();
            if (restore != Restore::CopyOverWhileOpen) {
                EXPECT_TRUE(reopened.openNotice().contains(QStringLiteral("was not replayed")))
                    << reopened.openNotice().toStdString();
                const QStringList aside = walsSetAside(database);
                EXPECT_EQ(aside.size(), 1);
                EXPECT_TRUE(!aside.isEmpty() && reopened.openNotice().contains(aside.first()));
            }
            EXPECT_TRUE(reopened.quickCheck().isEmpty());
            EXPECT_TRUE(reopened.seriesList().isEmpty());
            const QVector<history::Marker> markers = reopened.markers(0, 2000);
            ASSERT_EQ(markers.size(), 1);
            EXPECT_EQ(markers.first().text, QStringLiteral("from the backup"));
        }
        // The backup has the same tables at the same pages: replayed, the
        // recorder's block pages would sit in it under no series.
        EXPECT_EQ(samplesInFile(database), 0) << "the killed recorder's pages were replayed";
    }
}

// A WAL some process still has open is never moved, even when the file
// changed since its record (here its mtime, set to now): the open is
// refused instead. The recorder that has it open stops at its next flush
// (the file reads as written outside), without writing its WAL into it.
TEST(RecordCommand, AWalInUseIsNeverSetAside)
{
    test::SimProcess engine;
    ASSERT_TRUE(engine.start(test::simArgs(QStringLiteral("engine"))))
        << engine.errorText().toStdString();
    QTemporaryDir dir;
    const QString inventory = engineIn(dir, engine.url());
    const QString data = dir.filePath(QStringLiteral("data"));
    const QString database = HistoryStore::pathIn(data);
    QProcess recorder;
    QByteArray said;
    ASSERT_TRUE(startRecording(recorder,
                               {QStringLiteral("record"), QStringLiteral("--inventory"), inventory,
                                QStringLiteral("--data-dir"), data, QStringLiteral("--interval-ms"),
                                QStringLiteral("200")},
                               said, [&] { return QFile::exists(database); }))
        << said.toStdString();
    {
        Snapshot snapshot(database);
        ASSERT_TRUE(snapshot.isOpen());
        ASSERT_TRUE(waitUntil([&] { return walSize(database) > 0; }, std::chrono::seconds(15)));
        ASSERT_EQ(::utimensat(AT_FDCWD, QFile::encodeName(database).constData(), nullptr, 0), 0);
        HistoryStore reader(database);
        EXPECT_FALSE(reader.open());
        EXPECT_TRUE(reader.lastError().contains(QStringLiteral("still open in another process")))
            << reader.lastError().toStdString();
        EXPECT_TRUE(walsSetAside(database).isEmpty());
        EXPECT_GT(walSize(database), 0);
    }
    recorder.terminate();
    ASSERT_TRUE(recorder.waitForFinished(15000));
    said += recorder.readAllStandardError();
    EXPECT_EQ(recorder.exitCode(), 1) << said.toStdString();
    EXPECT_TRUE(said.contains("was written by another program while open")) << said.toStdString();
    EXPECT_GT(walSize(database), 0) << "its pages stay in the WAL";
}

// A link planted where the pid file (or its temporary file) goes is replaced,
// never written through: the file it points at keeps its bytes.
// `--pid-file` naming the data dir's audit log once wrote this pid over it
// and removed it at exit: a file that holds no pid, or is named as one of
// OpsDeck's own, is refused before anything starts.
TEST(RecordCommand, APidFileThatIsNotOneIsRefusedAndKept)
{
    QTemporaryDir dir;
    const QString inventory = unreachableEngineIn(dir);
    const QString notes = writeFile(dir.filePath(QStringLiteral("notes.txt")), "my notes\n");
    const QString own = dir.filePath(QStringLiteral("elsewhere/audit.jsonl"));
    for (const QString &pidFile : {notes, own}) {
        const auto run =
            runCli({QStringLiteral("record"), QStringLiteral("--inventory"), inventory,
                    QStringLiteral("--data-dir"), dir.filePath(QStringLiteral("data")),
                    QStringLiteral("--pid-file"), pidFile, QStringLiteral("--no-watch")});
        EXPECT_EQ(run.exitCode, 2) << run.standardError.toStdString();
        EXPECT_TRUE(run.standardError.contains("nothing written"))
            << run.standardError.toStdString();
    }
    EXPECT_EQ(test::readFile(notes), "my notes\n");
    EXPECT_FALSE(QFile::exists(own));
}

// Another service's pid file (its identity names it), or one naming a live
// process that is not a recorder: not taken over, so not removed at exit
// (the service could no longer be stopped).
TEST(RecordCommand, AnotherProcesssPidFileIsRefusedAndKept)
{
    QTemporaryDir dir;
    const QString inventory = unreachableEngineIn(dir);
    QProcess proxy;
    proxy.start(QStringLiteral("sleep"), {QStringLiteral("60")});
    ASSERT_TRUE(proxy.waitForStarted());
    const QByteArray pid = QByteArray::number(proxy.processId()) + '\n';
    const QString live = writeFile(dir.filePath(QStringLiteral("live.pid")), pid);
    const QString named = writeFile(dir.filePath(QStringLiteral("proxy.pid")), "1234567\n");
    const QByteArray identity =
        "pid=1234567\nstart=1\npidfile=" + QFile::encodeName(named) + "\nname=proxy\n";
    writeFile(named + QStringLiteral(".identity"), identity);
    for (const QString &pidFile : {live, named}) {
        const auto run =
            runCli({QStringLiteral("record"), QStringLiteral("--inventory"), inventory,
                    QStringLiteral("--data-dir"), dir.filePath(QStringLiteral("data")),
                    QStringLiteral("--pid-file"), pidFile, QStringLiteral("--no-watch")});
        EXPECT_EQ(run.exitCode, 2) << run.standardError.toStdString();
        EXPECT_TRUE(run.standardError.contains("not a recorder"))
            << run.standardError.toStdString();
    }
    EXPECT_EQ(test::readFile(live), pid);
    EXPECT_EQ(test::readFile(named), "1234567\n");
    EXPECT_EQ(test::readFile(named + QStringLiteral(".identity")), identity);
    proxy.kill();
    proxy.waitForFinished();
}

// A pid file that is not one (a link, an empty file, more than 64 bytes),
// or a file of the person's under a name written beside it (the identity,
// the temporary files): refused, never written over nor removed at exit.
TEST(RecordCommand, APidFileOrAFileBesideItThatIsNotOpsDecksIsNeverWrittenNorRemoved)
{
    QTemporaryDir dir;
    const QString inventory = unreachableEngineIn(dir);
    const QString victim = writeFile(dir.filePath(QStringLiteral("victim")), "VICTIM\n");
    struct Case
    {
        QString pidFile;
        QString kept; ///< the person's file, expected as it was
        QByteArray was;
    };
    QVector<Case> cases;
    const auto at = [&](const char *name) { return dir.filePath(QString::fromLatin1(name)); };
    ASSERT_TRUE(QFile::link(victim, at("link.pid")));
    cases.append({at("link.pid"), at("link.pid"), "VICTIM\n"});
    const QByteArray big = "4242" + QByteArray(60, ' ') + QByteArray(1750, 'd');
    cases.append({writeFile(at("big.dat"), big), at("big.dat"), big});
    cases.append({writeFile(at("empty.marker"), ""), at("empty.marker"), ""});
    writeFile(at("a.pid.identity"), "user identity doc\n");
    cases.append({at("a.pid"), at("a.pid.identity"), "user identity doc\n"});
    writeFile(at("b.pid.tmp"), "mine\n");
    cases.append({at("b.pid"), at("b.pid.tmp"), "mine\n"});
    writeFile(at("c.pid.identity.tmp"), "mine too\n");
    cases.append({at("c.pid"), at("c.pid.identity.tmp"), "mine too\n"});
    for (const Case &c : cases) {
        const auto run =
            runCli({QStringLiteral("record"), QStringLiteral("--inventory"), inventory,
                    QStringLiteral("--data-dir"), dir.filePath(QStringLiteral("data")),
                    QStringLiteral("--pid-file"), c.pidFile, QStringLiteral("--no-watch")});
        EXPECT_EQ(run.exitCode, 2)
            << c.pidFile.toStdString() << ": " << run.standardError.toStdString();
        EXPECT_TRUE(run.standardError.contains("nothing written"))
            << run.standardError.toStdString();
        EXPECT_EQ(test::readFile(c.kept), c.was) << c.kept.toStdString();
    }
    EXPECT_TRUE(QFileInfo(at("link.pid")).isSymLink());
    EXPECT_EQ(test::readFile(victim), "VICTIM\n");
}

// The pid file is checked again once the history is open: opening a large
// file takes seconds (here: a reader held off by another's exclusive lock),
// and a file of the person's that came there meanwhile is not written over.
TEST(RecordCommand, AFileThatComesAtThePidFileWhileTheHistoryOpensIsKept)
{
    QTemporaryDir dir;
    const QString inventory = unreachableEngineIn(dir);
    const QString dataDir = dir.filePath(QStringLiteral("data"));
    const QString database = HistoryStore::pathIn(dataDir);
    ExclusivelyHeld held(database);
    const QString pidFile = dir.filePath(QStringLiteral("record.pid"));
    QProcess recorder;
    recorder.setStandardInputFile(QProcess::nullDevice());
    recorder.start(test::binPath(QStringLiteral("opsdeck-cli")),
                   {QStringLiteral("record"), QStringLiteral("--inventory"), inventory,
                    QStringLiteral("--data-dir"), dataDir, QStringLiteral("--pid-file"), pidFile,
                    QStringLiteral("--no-watch")});
    ASSERT_TRUE(recorder.waitForStarted());
    // Its checks passed once it has the database open (held off in its first read).
    ASSERT_TRUE(holdsOpen(recorder, database));
    ASSERT_TRUE(test::writeFile(pidFile, "my notes\n"));
    held.release();
    const bool ended = waitUntil([&] { return recorder.state() == QProcess::NotRunning; },
                                 std::chrono::seconds(20));
    if (!ended)
        test::stopProcess(recorder, std::chrono::seconds(10));
    const QByteArray said = recorder.readAllStandardError();
    EXPECT_TRUE(ended) << said.toStdString();
    EXPECT_EQ(recorder.exitCode(), 2) << said.toStdString();
    EXPECT_TRUE(said.contains("nothing written")) << said.toStdString();
    EXPECT_EQ(test::readFile(pidFile), "my notes\n");
}

// Two recorders given one pid file (and each its own data dir) once both
// passed the check and wrote it: the second's pid was written over and it
// recorded on with no pid file naming it, out of `demo down`'s reach. The
// check and the write are done under the pid file's start lock (the one a
// start through ProcessControl holds): here both wait at it, held by the
// test, then the second to take it finds the first.
TEST(RecordCommand, TwoRecordersGivenOnePidFileAtOnceStartOne)
{
    QTemporaryDir dir;
    const QString inventory = unreachableEngineIn(dir);
    const QString pidFile = dir.filePath(QStringLiteral("record.pid"));
    const QString startLock = pidFile + QStringLiteral(".start-lock");
    const int held =
        ::open(QFile::encodeName(startLock).constData(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    ASSERT_GE(held, 0);
    ASSERT_EQ(::flock(held, LOCK_EX), 0);
    QProcess recorders[2];
    for (int i = 0; i < 2; ++i) {
        recorders[i].setStandardInputFile(QProcess::nullDevice());
        recorders[i].start(test::binPath(QStringLiteral("opsdeck-cli")),
                           {QStringLiteral("record"), QStringLiteral("--inventory"), inventory,
                            QStringLiteral("--data-dir"),
                            dir.filePath(QStringLiteral("data%1").arg(i)),
                            QStringLiteral("--pid-file"), pidFile, QStringLiteral("--no-watch")});
        ASSERT_TRUE(recorders[i].waitForStarted());
    }
    for (QProcess &recorder : recorders)
        EXPECT_TRUE(holdsOpen(recorder, startLock)) << "waits at the start lock";
    EXPECT_FALSE(QFileInfo::exists(pidFile)) << "written while another start held its lock";
    ::close(held);
    int refused = -1;
    EXPECT_TRUE(waitUntil(
        [&] {
            for (int i = 0; i < 2; ++i)
                if (recorders[i].state() == QProcess::NotRunning)
                    refused = i;
            return refused >= 0;
        },
        std::chrono::seconds(20)));
    const QByteArray said = refused >= 0 ? recorders[refused].readAllStandardError() : "";
    EXPECT_EQ(refused >= 0 ? recorders[refused].exitCode() : -1, 1) << said.toStdString();
    EXPECT_TRUE(said.contains("a recorder is already running")) << said.toStdString();
    const QProcess &running = recorders[refused == 0 ? 1 : 0];
    EXPECT_EQ(running.state(), QProcess::Running);
    EXPECT_EQ(pidIn(pidFile), running.processId());
    for (QProcess &recorder : recorders)
        test::stopProcess(recorder, std::chrono::seconds(10));
}

// `demo up` starts the recorder through the inventory's start, which holds
// the pid file's start lock while it writes the identity beside it (through
// `<pid file>.identity.tmp`): the recorder's first check once met that
// temporary file and refused, and the demo had no recorder. It waits for the
// lock, then records.
TEST(RecordCommand, APidFileWhoseIdentityIsBeingWrittenIsWaitedFor)
{
    QTemporaryDir dir;
    const QString inventory = unreachableEngineIn(dir);
    const QString pidFile = dir.filePath(QStringLiteral("recorder.pid"));
    const QString startLock = pidFile + QStringLiteral(".start-lock");
    const QString writing = pidFile + QStringLiteral(".identity.tmp");
    const int held =
        ::open(QFile::encodeName(startLock).constData(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    ASSERT_GE(held, 0);
    ASSERT_EQ(::flock(held, LOCK_EX), 0);
    ASSERT_TRUE(test::writeFile(writing, "pid=1\n"));
    QProcess recorder;
    QByteArray said;
    recorder.setStandardInputFile(QProcess::nullDevice());
    recorder.start(test::binPath(QStringLiteral("opsdeck-cli")),
                   {QStringLiteral("record"), QStringLiteral("--inventory"), inventory,
                    QStringLiteral("--data-dir"), dir.filePath(QStringLiteral("data")),
                    QStringLiteral("--pid-file"), pidFile, QStringLiteral("--no-watch")});
    ASSERT_TRUE(recorder.waitForStarted());
    EXPECT_TRUE(holdsOpen(recorder, startLock)) << "waits at the start lock";
    ASSERT_TRUE(QFile::remove(writing)); // the start's identity is in place
    ::close(held);
    EXPECT_TRUE(waitUntil(
        [&] {
            said += recorder.readAllStandardError();
            return said.contains("recording 1 services") ||
                   recorder.state() == QProcess::NotRunning;
        },
        std::chrono::seconds(20)))
        << said.toStdString();
    EXPECT_EQ(recorder.state(), QProcess::Running) << said.toStdString();
    EXPECT_EQ(pidIn(pidFile), recorder.processId());
    EXPECT_EQ(test::stopProcess(recorder, std::chrono::seconds(10)), 0);
}

TEST(RecordCommand, AnUnusableDataDirIsBadInputSaidInWords)
{
    QTemporaryDir dir;
    const QString inventory = writeFile(dir.filePath(QStringLiteral("inv.yaml")),
                                        "hosts:\n  - {name: local, kind: local}\nservices:\n"
                                        "  - name: engine\n    role: engine\n    host: local\n"
                                        "    url: http://127.0.0.1:1\n");
    // A regular file where the data directory should be, and one below it.
    const QString file = writeFile(dir.filePath(QStringLiteral("not-a-dir")), "x");
    for (const QString &dataDir : QStringList{file, file + QStringLiteral("/sub")}) {
        const auto run = runCli({QStringLiteral("record"), QStringLiteral("--inventory"), inventory,
                                 QStringLiteral("--data-dir"), dataDir});
        EXPECT_EQ(run.exitCode, 2) << run.standardError.toStdString();
        const QString error = QString::fromUtf8(run.standardError);
        EXPECT_TRUE(error.contains(QStringLiteral("%1 is not a directory").arg(file)))
            << error.toStdString();
        EXPECT_TRUE(error.contains(dataDir)) << error.toStdString();
        EXPECT_FALSE(error.contains(QStringLiteral("(error "))) << error.toStdString();
    }
}

// A page in the middle of history.sqlite corrupted: recording never starts on
// it (SQLite's quick_check), the file is left byte for byte, and --recover
// moves it aside and records into a new one.
TEST(RecordCommand, ACorruptDatabaseStopsRecordingAtOnceAndRecoverStartsANewOne)
{
    QTemporaryDir dir;
    const QString data = dir.filePath(QStringLiteral("data"));
    const QString database = HistoryStore::pathIn(data);
    const QByteArray corrupted = test::writeCorruptHistory(database);
    ASSERT_FALSE(corrupted.isEmpty());
    QFile file(database);

    // Nothing listens on the port: every poll still gives an "up" = 0 sample.
    const QString inventory =
        writeFile(dir.filePath(QStringLiteral("inv.yaml")),
                  QStringLiteral("hosts:\n  - {name: local, kind: local}\nservices:\n"
                                 "  - name: engine\n    role: engine\n    host: local\n"
                                 "    url: http://127.0.0.1:%1\n")
                      .arg(test::freeTcpPort())
                      .toUtf8());
    const QStringList record{QStringLiteral("record"),
                             QStringLiteral("--inventory"),
                             inventory,
                             QStringLiteral("--data-dir"),
                             data,
                             QStringLiteral("--interval-ms"),
                             QStringLiteral("200")};
    QElapsedTimer timer;
    timer.start();
    const auto run = runCli(record, {}, std::chrono::seconds(60));
    const QString error = QString::fromUtf8(run.standardError);
    EXPECT_EQ(run.exitCode, 1) << error.toStdString();
    EXPECT_LT(timer.elapsed(), 10000) << "stopped at once, not after failed flushes";
    EXPECT_TRUE(error.contains(QStringLiteral("corrupt"))) << error.toStdString();
    EXPECT_TRUE(error.contains(QStringLiteral("--recover"))) << error.toStdString();
    ASSERT_TRUE(file.open(QIODevice::ReadOnly));
    EXPECT_EQ(file.readAll(), corrupted) << "the corrupt file must be left as it was";
    file.close();

    QProcess recorder;
    QByteArray said;
    ASSERT_TRUE(startRecording(recorder, QStringList(record) << QStringLiteral("--recover"), said,
                               {}, std::chrono::seconds(20)))
        << said.toStdString();
    EXPECT_TRUE(said.contains("moved the corrupt")) << said.toStdString();
    recorder.terminate();
    ASSERT_TRUE(recorder.waitForFinished(15000));
    EXPECT_EQ(recorder.exitCode(), 0) << recorder.readAllStandardError().toStdString();
    const QStringList aside = QDir(data).entryList({QStringLiteral("history.sqlite.corrupt-*")});
    ASSERT_EQ(aside.size(), 1) << aside.join(u' ').toStdString();
    QFile moved(QDir(data).filePath(aside.first()));
    ASSERT_TRUE(moved.open(QIODevice::ReadOnly));
    EXPECT_EQ(moved.readAll(), corrupted);
    HistoryStore store(database);
    ASSERT_TRUE(store.open()) << store.lastError().toStdString();
    EXPECT_TRUE(store.quickCheck().isEmpty());
    EXPECT_FALSE(valuesOf(store, QStringLiteral("engine"), QStringLiteral("up")).isEmpty());
}
