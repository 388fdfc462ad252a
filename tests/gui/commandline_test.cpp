// The window's command line without a display: --help and --version answer
// (a newcomer or a packaging script asks before any X server exists). And
// the window as a process: a supervisor's SIGTERM closes it as its button does.
#include "testsupport.h"

#include <QDateTime>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QProcess>
#include <QProcessEnvironment>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <csignal>
#include <gtest/gtest.h>

namespace {

struct Ran
{
    int exitCode = -1;
    QString out;
    QString err;
};

Ran runWithoutDisplay(const QStringList &arguments)
{
    QProcess process;
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.remove(QStringLiteral("DISPLAY"));
    environment.remove(QStringLiteral("WAYLAND_DISPLAY"));
    environment.remove(QStringLiteral("QT_QPA_PLATFORM"));
    process.setProcessEnvironment(environment);
    process.start(opsdeck::test::binPath(QStringLiteral("opsdeck")), arguments);
    Ran ran;
    if (!process.waitForFinished(20'000)) {
        process.kill();
        process.waitForFinished();
        return ran;
    }
    ran.exitCode = process.exitCode();
    ran.out = QString::fromUtf8(process.readAllStandardOutput());
    ran.err = QString::fromUtf8(process.readAllStandardError());
    return ran;
}

} // namespace

TEST(WindowCommandLine, HelpAndVersionNeedNoDisplay)
{
    const Ran help = runWithoutDisplay({QStringLiteral("--help")});
    EXPECT_EQ(help.exitCode, 0) << help.out.toStdString();
    for (const char *flag : {"--demo", "--inventory", "--screenshot", "--tab", "--version"})
        EXPECT_TRUE(help.out.contains(QLatin1String(flag))) << flag << "\n"
                                                            << help.out.toStdString();

    const Ran version = runWithoutDisplay({QStringLiteral("--version")});
    EXPECT_EQ(version.exitCode, 0);
    EXPECT_TRUE(version.out.startsWith(QStringLiteral("opsdeck "))) << version.out.toStdString();

    // Bad arguments are usage errors (exit 2) before any display is needed.
    for (const QStringList &bad :
         {QStringList{QStringLiteral("--bogus")}, QStringList{QStringLiteral("--inventory")},
          QStringList{QStringLiteral("extra")}}) {
        const Ran refused = runWithoutDisplay(bad);
        EXPECT_EQ(refused.exitCode, 2) << bad.join(u' ').toStdString() << refused.err.toStdString();
        EXPECT_TRUE(refused.err.startsWith(QStringLiteral("opsdeck: ")))
            << refused.err.toStdString();
        EXPECT_FALSE(refused.err.contains(QStringLiteral("platform plugin")))
            << refused.err.toStdString();
    }
}

namespace {

// The newest sample's time in `path` (ms since the epoch), read-only; -1 if none.
qint64 newestSampleMs(const QString &path)
{
    qint64 newest = -1;
    {
        QSqlDatabase db =
            QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("newest-sample"));
        db.setDatabaseName(path);
        db.setConnectOptions(QStringLiteral("QSQLITE_OPEN_READONLY"));
        if (db.open()) {
            QSqlQuery query(db);
            if (query.exec(QStringLiteral("SELECT max(end_ms) FROM blocks")) && query.next() &&
                !query.value(0).isNull())
                newest = query.value(0).toLongLong();
        }
        db.close();
    }
    QSqlDatabase::removeDatabase(QStringLiteral("newest-sample"));
    return newest;
}

} // namespace

// SIGTERM (a supervisor, a logout) closes the window the way its close
// button does: every process of its demo cluster stopped, and the samples
// polled up to the signal written to history (killed, they were lost unsaid
// and the cluster kept running).
TEST(WindowCommandLine, ASigtermClosesTheWindowAsItsCloseButtonDoes)
{
    QTemporaryDir home;
    ASSERT_TRUE(home.isValid());
    const QString demoDir = home.filePath(QStringLiteral("demo"));
    const QString dataDir = home.filePath(QStringLiteral("data"));
    QProcess window;
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    environment.insert(QStringLiteral("HOME"), home.path());
    environment.insert(QStringLiteral("XDG_CONFIG_HOME"), home.filePath(QStringLiteral("config")));
    environment.insert(QStringLiteral("XDG_DATA_HOME"), home.filePath(QStringLiteral("share")));
    window.setProcessEnvironment(environment);
    window.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    window.start(opsdeck::test::binPath(QStringLiteral("opsdeck")),
                 {QStringLiteral("--demo"), QStringLiteral("--dir"), demoDir,
                  QStringLiteral("--data-dir"), dataDir, QStringLiteral("--traffic"),
                  QStringLiteral("1")});
    ASSERT_TRUE(window.waitForStarted(10'000));
    // Running: every demo process has its pid file, and samples are on disk.
    QString history;
    const auto pids = [&] {
        QList<pid_t> found;
        for (const QString &name :
             QDir(demoDir + QStringLiteral("/run")).entryList({QStringLiteral("*.pid")}))
            found << pid_t(opsdeck::test::readFile(demoDir + QStringLiteral("/run/") + name)
                               .trimmed()
                               .toLongLong());
        return found;
    };
    const bool recording = opsdeck::test::waitUntil(
        [&] {
            QDirIterator files(home.path(), {QStringLiteral("history.sqlite")}, QDir::Files,
                               QDirIterator::Subdirectories);
            history = files.hasNext() ? files.next() : QString();
            return pids().size() >= 4 && !history.isEmpty() && newestSampleMs(history) > 0;
        },
        std::chrono::seconds(60));
    if (!recording)
        window.kill();
    ASSERT_TRUE(recording) << "the demo did not start recording within 60 s";
    const QList<pid_t> demoProcesses = pids();
    // Past at least one flush, so samples are queued but not yet written.
    const qint64 firstSeen = newestSampleMs(history);
    ASSERT_TRUE(opsdeck::test::waitUntil([&] { return newestSampleMs(history) > firstSeen; },
                                         std::chrono::seconds(30)));
    const qint64 signalledMs = QDateTime::currentMSecsSinceEpoch();
    ASSERT_EQ(::kill(pid_t(window.processId()), SIGTERM), 0);
    const bool closed = window.waitForFinished(60'000);
    if (!closed)
        window.kill();
    ASSERT_TRUE(closed) << "the window did not close within 60 s of SIGTERM";
    EXPECT_EQ(window.exitStatus(), QProcess::NormalExit) << "killed by the signal";
    EXPECT_EQ(window.exitCode(), 0);
    for (const pid_t pid : demoProcesses)
        EXPECT_FALSE(opsdeck::test::processAlive(pid)) << "demo process " << pid << " still runs";
    // Polled every second: the samples of the last second before the signal were written.
    EXPECT_GE(newestSampleMs(history), signalledMs - 2000)
        << "newest sample " << (signalledMs - newestSampleMs(history)) << " ms before SIGTERM";
}
