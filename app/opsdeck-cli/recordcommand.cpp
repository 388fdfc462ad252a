#include "recordcommand.h"

#include "apppaths.h"
#include "cancelonsignal.h"
#include "cliinventory.h"
#include "clioutput.h"
#include "consolesession.h"
#include "historystore.h"
#include "historywriter.h"
#include "inventory.h"
#include "localtransport.h"
#include "managedprocess.h"
#include "numberoption.h"
#include "privatefiles.h"
#include "shellquote.h"
#include "synchronousrun.h"

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QFile>
#include <QFileInfo>
#include <QThread>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <functional>
#include <optional>
#include <spdlog/spdlog.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace opsdeck::cli {

namespace {

// Flushes failed in a row (one every 5 s) after which recording stops with exit 1.
constexpr int kMaxFailedFlushes = 3;

qint64 pidIn(const QString &pidFile)
{
    QFile file(pidFile);
    if (!file.open(QIODevice::ReadOnly))
        return 0;
    return file.read(64).trimmed().toLongLong();
}

// Why `pidFile` is no pid file to write, or "": a file that is not one is
// never written over with this pid (and removed at exit).
QString pidFileProblem(const QString &pidFile)
{
    if (inventory::isOwnFileName(pidFile))
        return QStringLiteral("--pid-file %1 is named as one of OpsDeck's own files, not a pid "
                              "file: nothing written")
            .arg(pidFile);
    // The hosts' one rule of what a pid file is (ManagedProcess): a link, a
    // folder, more than 64 bytes, anything but digits and blanks is not one.
    remote::LocalTransport local;
    remote::CommandRequest check;
    check.script = processes::ManagedProcess::portFunctions() +
                   QStringLiteral("opsdeck_not_pid_file %1\n").arg(shell::singleQuoted(pidFile));
    const remote::CommandResult checked = remote::runAndWait(local, check);
    const QString notOne = QString::fromUtf8(checked.standardOutput).trimmed();
    if (!checked.succeeded() || !notOne.isEmpty())
        return QStringLiteral("--pid-file %1: nothing written")
            .arg(notOne.isEmpty() ? pidFile + QStringLiteral(" could not be checked") : notOne);
    const QFileInfo info(pidFile);
    if (info.exists() && pidIn(pidFile) <= 0)
        return QStringLiteral("--pid-file %1 holds no pid (is it a pid file?): nothing written")
            .arg(pidFile);
    // The names written beside it (the identity, and the temporary files of
    // both) must be free or OpsDeck's: a file of the person's there would be
    // written over, then removed at exit.
    const QString identity = processes::ManagedProcess::identityFileOf(pidFile);
    const QStringList besides{pidFile + QStringLiteral(".tmp"), identity + QStringLiteral(".tmp")};
    for (const QString &beside : besides)
        if (QFileInfo(beside).exists() || QFileInfo(beside).isSymLink())
            return QStringLiteral("--pid-file %1: %2 exists, a name OpsDeck writes its temporary "
                                  "file under (remove it): nothing written")
                .arg(pidFile, beside);
    QFile written(identity);
    if ((QFileInfo(identity).exists() || QFileInfo(identity).isSymLink()) &&
        !(written.open(QIODevice::ReadOnly) &&
          written.read(4096).contains(
              QByteArray("\npidfile=" + QFile::encodeName(pidFile) + '\n'))))
        return QStringLiteral("--pid-file %1: %2 is not an identity OpsDeck wrote for it: nothing "
                              "written")
            .arg(pidFile, identity);
    return {};
}

// Why `pidFile` is another process's, or "": a pid file whose identity
// names another service, or naming a live process that is not a recorder
// (checked after liveRecorderIn()), is not taken over, nor removed at exit
// (a service's pid file and identity lost: it could no longer be stopped).
QString takenBy(const QString &pidFile)
{
    QFile identity(processes::ManagedProcess::identityFileOf(pidFile));
    if (identity.open(QIODevice::ReadOnly))
        for (const QByteArray &line : identity.read(4096).split('\n'))
            if (line.startsWith("name=") && line != "name=recorder")
                return QStringLiteral("--pid-file %1 is the %2's (its identity %3 says so), not a "
                                      "recorder's: nothing written")
                    .arg(pidFile, QString::fromUtf8(line.mid(5)), identity.fileName());
    const qint64 pid = pidIn(pidFile);
    QFile cmdline(QStringLiteral("/proc/%1/cmdline").arg(pid));
    if (pid <= 1 || pid == QCoreApplication::applicationPid() || !cmdline.open(QIODevice::ReadOnly))
        return {};
    const QByteArray runs = cmdline.read(4096).replace('\0', ' ').trimmed();
    if (runs.isEmpty()) // a zombie: gone
        return {};
    return QStringLiteral("--pid-file %1 names pid %2, which runs %3, not a recorder: nothing "
                          "written (a stale pid file whose pid was reused? remove it)")
        .arg(pidFile)
        .arg(pid)
        .arg(QString::fromLocal8Bit(runs.left(120)));
}

// The recorder as ProcessControl sees it: its pid file, its identity beside
// it, and the one check of both (ManagedProcess::verify).
processes::ManagedProcess recorderAt(const QString &pidFile)
{
    processes::ManagedProcess recorder;
    recorder.name = QStringLiteral("recorder");
    recorder.pidFile = pidFile;
    recorder.program = QStringLiteral("opsdeck-cli");
    recorder.deriveMissingCommands();
    return recorder;
}

// A pid file names a live recorder only when its process is the one that
// wrote it (identity) or, without one, runs opsdeck-cli: a stale file whose
// pid was reused by another process must not block us.
std::optional<qint64> liveRecorderIn(const QString &pidFile)
{
    const qint64 pid = pidIn(pidFile);
    if (pid <= 0 || pid == QCoreApplication::applicationPid())
        return std::nullopt;
    remote::LocalTransport local;
    remote::CommandRequest status;
    status.script = recorderAt(pidFile).status;
    return remote::runAndWait(local, status).succeeded() ? std::optional<qint64>(pid)
                                                         : std::nullopt;
}

// Says why `pidFile` may not be written and returns the exit code, or
// returns ExitOk: not a pid file (2), a live recorder's (1), another's (2).
int refusedPidFile(const QString &pidFile)
{
    if (const QString problem = pidFileProblem(pidFile); !problem.isEmpty()) {
        printError(problem);
        return ExitBadInput;
    }
    if (const auto pid = liveRecorderIn(pidFile)) {
        printError(QStringLiteral("a recorder is already running: pid %1 (pid file %2)")
                       .arg(*pid)
                       .arg(pidFile));
        return ExitFailed;
    }
    if (const QString other = takenBy(pidFile); !other.isEmpty()) {
        printError(other);
        return ExitBadInput;
    }
    return ExitOk;
}

// The start lock ProcessControl takes for the same pid file (`<pid
// file>.start-lock`, flock), held while the pid file is checked and written:
// two recorders given one pid file do both one after the other, and the
// second finds the first. The descriptor, or -1 with `error` and `code`:
// ExitBadInput for a link or another file there, ExitFailed when it is held
// past 10 s.
int takeStartLock(const QString &pidFile, QString *error, int *code)
{
    *code = ExitBadInput;
    const QString path = pidFile + QStringLiteral(".start-lock");
    const int fd =
        ::open(QFile::encodeName(path).constData(),
               O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
    struct stat st = {};
    if (fd < 0 || ::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        *error = QStringLiteral("--pid-file %1: its start lock %2 is %3: nothing written")
                     .arg(pidFile, path,
                          fd < 0 ? QString::fromLocal8Bit(std::strerror(errno))
                                 : QStringLiteral("not a regular file"));
        if (fd >= 0)
            ::close(fd);
        return -1;
    }
    const QDeadlineTimer deadline(10000);
    while (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
        if (errno != EWOULDBLOCK || deadline.hasExpired()) {
            *code = ExitFailed;
            *error = QStringLiteral("--pid-file %1: its start lock %2 is held past 10 s (another "
                                    "start of a recorder?): nothing written")
                         .arg(pidFile, path);
            ::close(fd);
            return -1;
        }
        QThread::msleep(20);
    }
    return fd;
}

// `work` (its exit code) while holding the pid file's start lock; the
// lock's own failure (said) when it cannot be taken.
int underStartLock(const QString &pidFile, const std::function<int()> &work)
{
    QString error;
    int refused = ExitOk;
    const int startLock = takeStartLock(pidFile, &error, &refused);
    if (startLock < 0) {
        printError(error);
        return refused;
    }
    const int result = work();
    ::close(startLock); // releases the flock
    return result;
}

bool writePidFile(const QString &pidFile, QString *error)
{
    // Not through a link planted at the pid file or its temporary file.
    QString why;
    if (!settings::PrivateFiles::replace(
            pidFile, QByteArray::number(QCoreApplication::applicationPid()) + '\n', &why)) {
        *error = QStringLiteral("cannot write the pid file: %1").arg(why);
        return false;
    }
    // Beside it, who wrote it: `demo down` stops only this process.
    remote::LocalTransport local;
    remote::CommandRequest identity;
    identity.script = recorderAt(pidFile).recordIdentity;
    if (!remote::runAndWait(local, identity).succeeded()) {
        *error = QStringLiteral("cannot write the identity beside the pid file %1").arg(pidFile);
        return false;
    }
    return true;
}

// --recover: a corrupt database is moved aside before recording starts.
bool recoverIfCorrupt(const QString &database)
{
    history::HistoryWriter check(database);
    QString error;
    if (check.start(&error)) {
        check.stop();
        std::fprintf(stderr, "opsdeck-cli: %s is sound: nothing moved\n",
                     database.toLocal8Bit().constData());
        return true;
    }
    if (check.startFailure() != history::HistoryWriter::StartFailure::Corrupt)
        return true; // locked or unusable: the start below says why
    QString movedTo;
    if (!history::HistoryWriter::moveAside(database, &movedTo, &error)) {
        printError(error);
        return false;
    }
    std::fprintf(stderr,
                 "opsdeck-cli: moved the corrupt %s aside to %s; recording into a new one\n",
                 database.toLocal8Bit().constData(), movedTo.toLocal8Bit().constData());
    return true;
}

} // namespace

int runRecord(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Record the health, latency and decode batch of every service of an inventory into the "
        "history database, without a window, until SIGTERM, SIGINT or SIGHUP."));
    parser.addOption({QStringLiteral("inventory"), QStringLiteral("Inventory file (YAML)."),
                      QStringLiteral("file")});
    parser.addOption(
        {QStringLiteral("pid-file"),
         QStringLiteral("Write this process's pid here; refuse to start while a live recorder "
                        "holds it; removed on exit."),
         QStringLiteral("file")});
    parser.addOption(
        {QStringLiteral("interval-ms"),
         QStringLiteral("Polling interval per service, 100 to 3600000 (default 1000)."),
         QStringLiteral("ms")});
    parser.addOption(
        {QStringLiteral("no-watch"),
         QStringLiteral(
             "Do not run the keep-alive watch (fresh and reused probes of every path "
             "into each cluster, one round a minute; the inventory's watch: section).")});
    parser.addOption(
        {QStringLiteral("recover"),
         QStringLiteral("When SQLite finds the history database corrupt, move it aside as "
                        "history.sqlite.corrupt-<UTC time> and start a new one (a sound one is "
                        "left as it is).")});
    parser.addOption(dataDirOption());
    addTunnelOptions(parser);
    if (!parseArguments(parser, arguments))
        return ExitBadInput;
    if (!parser.isSet(QStringLiteral("inventory"))) {
        printError(QStringLiteral("record needs --inventory FILE"));
        return ExitBadInput;
    }
    const auto intervalMs = wholeNumberOption(parser, QStringLiteral("interval-ms"), 100, 3600000,
                                              1000, QStringLiteral("milliseconds"));
    if (!intervalMs) {
        return ExitBadInput;
    }
    const QString inventoryPath = parser.value(QStringLiteral("inventory"));
    const auto loaded = loadServedInventory(parser, inventoryPath);
    if (!loaded)
        return ExitBadInput;
    const QString pidFile =
        parser.isSet(QStringLiteral("pid-file"))
            ? QFileInfo(parser.value(QStringLiteral("pid-file"))).absoluteFilePath()
            : QString();
    // Before anything starts: a refused pid file costs nothing. Under its
    // start lock: a start through the inventory (`demo up`'s) holds it while
    // it writes this process's identity beside the pid file.
    if (!pidFile.isEmpty())
        if (const int refused = underStartLock(pidFile, [&] { return refusedPidFile(pidFile); });
            refused != ExitOk)
            return refused;

    // The window's session, without its views: no hot window, no alerts.
    session::ConsoleSession::Options options;
    options.dataDir = parser.value(QStringLiteral("data-dir"));
    options.alerts = false;
    options.hotWindow = false;
    options.watch = !parser.isSet(QStringLiteral("no-watch"));
    options.pollIntervalMs = *intervalMs;
    const QString database =
        history::HistoryStore::pathIn(settings::AppPaths::dataDir(options.dataDir));
    // Before anything that takes the lock or writes the pid file: a stop
    // request from then on ends in the clean exit that removes them.
    // Stops like every other command on SIGTERM, SIGINT or SIGHUP: quit the
    // event loop (from the signal watcher's thread, so queued), then flush.
    // A stop that arrives while a short local command runs its own event loop
    // (the pid file's identity) would be a quit() before exec(), which Qt
    // ignores: the flag makes it count.
    static std::atomic<bool> stopRequested{false};
    stopRequested = false;
    const threads::CancelOnSignal onSignal([] {
        stopRequested = true;
        QMetaObject::invokeMethod(
            QCoreApplication::instance(), [] { QCoreApplication::quit(); }, Qt::QueuedConnection);
    });
    if (parser.isSet(QStringLiteral("recover")) && !recoverIfCorrupt(database))
        return ExitFailed;
    session::ConsoleSession session(options);
    session.watchRouted(loaded->inventory);
    history::HistoryWriter *writer = session.historyWriter();
    if (!session.isRecordingHistory()) {
        // Without the writer lock this process would record nothing.
        printError(session.historyDetail());
        return writer->startFailure() == history::HistoryWriter::StartFailure::UnusableDirectory
                   ? ExitBadInput
                   : ExitFailed;
    }
    // Checked again just before the write, under the start lock: opening a
    // large history file takes seconds, in which a file of someone else's,
    // or another recorder's pid, may have come there.
    QString error;
    if (!pidFile.isEmpty()) {
        const int refused = underStartLock(pidFile, [&] {
            const int problem = refusedPidFile(pidFile);
            if (problem == ExitOk && !writePidFile(pidFile, &error)) {
                printError(error);
                return int(ExitFailed);
            }
            return problem;
        });
        if (refused != ExitOk)
            return refused;
    }
    int exitCode = ExitOk;
    bool tooManyFailures = false;
    QString lastWriteError;
    // A corrupt file stops recording at once: every later flush would fail
    // alike and lose more; the file is left for --recover.
    QObject::connect(writer, &history::HistoryWriter::corrupted, writer,
                     [&](const QString &reason) {
                         printError(reason);
                         lastWriteError = reason;
                         exitCode = ExitFailed;
                         QCoreApplication::quit();
                     });
    QObject::connect(writer, &history::HistoryWriter::writeFailed, writer,
                     [&](const QString &reason, int failedFlushes, qint64) {
                         // A corrupted or full file fails every flush alike: say each new
                         // error once, and stop rather than record nothing for hours.
                         if (reason != lastWriteError)
                             printError(QStringLiteral("history write failed: %1").arg(reason));
                         lastWriteError = reason;
                         if (failedFlushes >= kMaxFailedFlushes && exitCode == ExitOk) {
                             exitCode = ExitFailed;
                             tooManyFailures = true;
                             QCoreApplication::quit();
                         }
                     });
    std::fprintf(stderr, "opsdeck-cli: recording %lld services of %s into %s (pid %lld)\n",
                 static_cast<long long>(loaded->inventory.services.size()),
                 inventoryPath.toLocal8Bit().constData(), database.toLocal8Bit().constData(),
                 static_cast<long long>(QCoreApplication::applicationPid()));
    std::fflush(stderr);
    if (!stopRequested)
        QCoreApplication::exec();
    // The poller stops first; results already queued to the recorder are
    // delivered before the final flush.
    session.stop();
    spdlog::info("record: stopping, {} samples passed on", session.samplesRecorded());
    // The last flush may have failed too (then corrupted() said why, above):
    // samples that never reached the file make the exit 1, whatever the signal.
    if (exitCode == ExitOk && (writer->isCorrupt() || writer->samplesNotWritten() > 0))
        exitCode = ExitFailed;
    if (writer->isCorrupt())
        printError(QStringLiteral("stopped: recording into %1 ended (see above); %2 samples were "
                                  "not written")
                       .arg(database)
                       .arg(writer->samplesNotWritten()));
    else if (tooManyFailures)
        printError(QStringLiteral("stopped: %1 flushes in a row failed to write into %2 (%3); "
                                  "%4 samples were not written")
                       .arg(kMaxFailedFlushes)
                       .arg(database, lastWriteError)
                       .arg(writer->samplesNotWritten()));
    else if (exitCode == ExitFailed)
        printError(QStringLiteral("stopped: %1 samples were not written into %2 (see above)")
                       .arg(writer->samplesNotWritten())
                       .arg(database));
    // Another recorder may have taken the pid file over: remove only ours,
    // and the identity beside it only while it names this process.
    if (!pidFile.isEmpty() && pidIn(pidFile) == QCoreApplication::applicationPid()) {
        QFile identity(processes::ManagedProcess::identityFileOf(pidFile));
        if (identity.open(QIODevice::ReadOnly) &&
            identity.read(4096).startsWith(QByteArray(
                "pid=" + QByteArray::number(QCoreApplication::applicationPid()) + '\n'))) {
            identity.close();
            identity.remove();
        }
        QFile::remove(pidFile);
    }
    return exitCode;
}

} // namespace opsdeck::cli
