#include "historywriter.h"

#include "privatefiles.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

namespace opsdeck::history {

HistoryWriter::HistoryWriter(const QString &databasePath, const Settings &settings, QObject *parent)
    : QObject(parent), m_path(QFileInfo(databasePath).absoluteFilePath()), m_settings(settings),
      m_lock(lockPath(databasePath)), m_queue(std::make_shared<PendingQueue>())
{
    // Only a dead owner's lock is stale; a live recorder keeps it however old.
    m_lock.setStaleLockTime(0);
}

HistoryWriter::~HistoryWriter()
{
    stop();
}

namespace {

// Why a lock file cannot be made at `path`, in the OS's words: a regular file
// where a directory should be ("... is not a directory"), else the errno of
// creating it (EACCES on a read-only directory, EROFS...). QLockFile only
// says "permission error" or "unknown error".
QString unusableReason(const QString &path)
{
    QString existing = QFileInfo(path).absolutePath();
    QString missingChild;
    while (!QFileInfo::exists(existing) && existing != QDir::rootPath()) {
        missingChild = existing;
        existing = QFileInfo(existing).absolutePath();
    }
    if (!QFileInfo(existing).isDir())
        return QStringLiteral("%1 is not a directory").arg(existing);
    errno = 0;
    if (!missingChild.isEmpty()) {
        if (::mkdir(QFile::encodeName(missingChild).constData(), 0700) == 0) {
            ::rmdir(QFile::encodeName(missingChild).constData());
            return QStringLiteral("cannot create %1").arg(missingChild);
        }
    } else {
        const int fd = ::open(QFile::encodeName(path).constData(),
                              O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (fd >= 0) {
            // Made by this probe only: not a lock anyone holds.
            ::close(fd);
            ::unlink(QFile::encodeName(path).constData());
            return QStringLiteral("unknown error");
        }
    }
    return QString::fromLocal8Bit(std::strerror(errno));
}

} // namespace

bool HistoryWriter::removeEmptyStaleLock()
{
    // QLockFile writes its pid, host and program as it creates the file, so
    // an empty or unreadable lock is left by a writer killed in between;
    // with a stale time of 0 QLockFile would refuse it forever. A young one
    // may still be a writer mid-creation: only one older than a few seconds
    // is removed.
    qint64 pid = 0;
    QString host;
    QString program;
    if (m_lock.getLockInfo(&pid, &host, &program))
        return false;
    const QFileInfo info(lockPath(m_path));
    if (!info.exists() ||
        info.fileTime(QFileDevice::FileModificationTime).msecsTo(QDateTime::currentDateTime()) <
            kEmptyLockStaleMs)
        return false;
    spdlog::warn("history: removing the empty lock {} left by a writer that died",
                 info.absoluteFilePath().toStdString());
    return m_lock.removeStaleLockFile();
}

QString HistoryWriter::lockPath(const QString &databasePath)
{
    // Beside the file itself: two data dirs whose history.sqlite links to
    // one database must meet at one lock, made before and after the file is.
    const QFileInfo info(databasePath);
    QString file = info.canonicalFilePath(); // links resolved; empty while there is no file
    if (file.isEmpty()) {
        const QString dir = QFileInfo(info.absolutePath()).canonicalFilePath();
        file = dir.isEmpty() ? info.absoluteFilePath() : dir + u'/' + info.fileName();
    }
    return file + QStringLiteral(".lock");
}

bool HistoryWriter::start(QString *error)
{
    if (m_worker)
        return true;
    m_startFailure = StartFailure::None;
    m_corrupt = false;
    const QString dir = QFileInfo(m_path).absolutePath();
    if (!settings::PrivateFiles::makeDir(dir)) {
        *error = QStringLiteral("cannot create the history directory %1: %2")
                     .arg(dir, unusableReason(lockPath(m_path)));
        m_startFailure = StartFailure::UnusableDirectory;
        return false;
    }
    // The database, its WAL files and the lock are never followed through a
    // link another user planted (a data dir reached through a link is fine).
    for (const QString &file :
         QStringList{m_path, m_path + QStringLiteral("-wal"), m_path + QStringLiteral("-shm"),
                     m_path + QStringLiteral("-walbase"), lockPath(m_path)}) {
        if (!settings::PrivateFiles::refuseLink(file, error)) {
            m_startFailure = StartFailure::Database;
            return false;
        }
    }
    bool locked = m_lock.tryLock(0);
    if (!locked && m_lock.error() == QLockFile::LockFailedError && removeEmptyStaleLock())
        locked = m_lock.tryLock(0);
    if (!locked) {
        qint64 pid = 0;
        QString host;
        QString program;
        if (m_lock.error() == QLockFile::LockFailedError &&
            m_lock.getLockInfo(&pid, &host, &program)) {
            *error = QStringLiteral("history is being recorded by pid %1 (%2 on %3) into %4; "
                                    "this process only reads it")
                         .arg(pid)
                         .arg(program, host, m_path);
            m_startFailure = StartFailure::Locked;
        } else if (m_lock.error() == QLockFile::LockFailedError) {
            *error = QStringLiteral("the history lock %1 is held by a writer that has not "
                                    "written its pid yet; try again in a few seconds")
                         .arg(lockPath(m_path));
            m_startFailure = StartFailure::Locked;
        } else {
            *error = QStringLiteral("cannot create the history lock %1: %2")
                         .arg(lockPath(m_path), unusableReason(lockPath(m_path)));
            m_startFailure = StartFailure::UnusableDirectory;
        }
        return false;
    }
    // QLockFile makes the lock 0666 less the umask; SQLite gives the WAL
    // files the database's mode: both 0600 from here.
    ::chmod(QFile::encodeName(lockPath(m_path)).constData(), 0600);
    if (const int fd = settings::PrivateFiles::open(m_path, O_RDWR | O_CREAT, error); fd >= 0) {
        ::close(fd);
    } else {
        m_startFailure = StartFailure::Database;
        m_lock.unlock();
        return false;
    }
    m_thread = std::make_unique<threads::WorkerThread>(QStringLiteral("history-writer"));
    auto *worker = m_thread->adopt(new HistoryWriterWorker(m_path, m_settings, m_queue));
    connect(worker, &HistoryWriterWorker::writeFailed, this, &HistoryWriter::writeFailed);
    connect(worker, &HistoryWriterWorker::corrupted, this, [this](const QString &why) {
        if (m_corrupt)
            return; // said already, by stop()
        m_recording = false;
        m_corrupt = true;
        Q_EMIT corrupted(why);
    });
    bool opened = false;
    QMetaObject::invokeMethod(
        worker, [worker, &opened, error] { opened = worker->open(error); },
        Qt::BlockingQueuedConnection);
    if (!opened) {
        m_corrupt = worker->isCorrupt();
        m_startFailure = m_corrupt ? StartFailure::Corrupt : StartFailure::Database;
        m_thread.reset();
        m_lock.unlock();
        return false;
    }
    m_worker = worker;
    m_recording = true;
    return true;
}

void HistoryWriter::stop()
{
    if (!m_worker)
        return;
    m_recording = false;
    HistoryWriterWorker *worker = m_worker;
    // The last flush may find the file corrupt: its signal, queued to this
    // thread, would come after the caller's event loop has ended. Said here.
    QString corruption;
    QMetaObject::invokeMethod(
        worker,
        [worker, &corruption] {
            worker->flush(true);
            if (worker->isCorrupt())
                corruption = worker->corruption();
        },
        Qt::BlockingQueuedConnection);
    if (!corruption.isEmpty() && !m_corrupt) {
        m_corrupt = true;
        Q_EMIT corrupted(corruption);
    }
    m_worker = nullptr;
    m_thread.reset();
    m_lock.unlock();
    // What the last flush could not write is lost now: counted, never silent.
    qsizetype unwritten = 0;
    {
        QMutexLocker lock(&m_queue->mutex);
        unwritten = m_queue->samples.size();
        m_queue->samples.clear();
    }
    if (unwritten > 0)
        m_queue->samplesNotWritten.fetch_add(unwritten);
}

qsizetype HistoryWriter::samplesQueued() const
{
    QMutexLocker lock(&m_queue->mutex);
    return m_queue->samples.size();
}

bool HistoryWriter::moveAside(const QString &databasePath, QString *movedTo, QString *error)
{
    QLockFile lock(lockPath(databasePath));
    if (!lock.tryLock(0)) {
        *error =
            QStringLiteral("%1 is being recorded by another process: not moved").arg(databasePath);
        return false;
    }
    const QString stamp =
        databasePath + QStringLiteral(".corrupt-") +
        QDateTime::currentDateTimeUtc().toString(QStringLiteral("yyyyMMdd'T'HHmmss'Z'"));
    const QStringList suffixes{QStringLiteral("-wal"), QStringLiteral("-shm"), QString()};
    // A file moved aside earlier in the same second keeps its name: this one
    // takes the next free "-N" (and RENAME_NOREPLACE below never replaces one).
    QString target = stamp;
    for (int n = 2; n < 1000; ++n) {
        if (std::none_of(suffixes.begin(), suffixes.end(), [&](const QString &suffix) {
                return QFileInfo::exists(target + suffix) || QFileInfo(target + suffix).isSymLink();
            }))
            break;
        target = stamp + QStringLiteral("-%1").arg(n);
    }
    // The WAL first: a database renamed without its WAL would lose its last pages.
    for (const QString &suffix : suffixes) {
        const QString from = databasePath + suffix;
        if (!QFileInfo::exists(from))
            continue;
        if (::renameat2(AT_FDCWD, QFile::encodeName(from).constData(), AT_FDCWD,
                        QFile::encodeName(target + suffix).constData(), RENAME_NOREPLACE) != 0) {
            *error = QStringLiteral("cannot move %1 to %2: %3")
                         .arg(from, target + suffix, QString::fromLocal8Bit(std::strerror(errno)));
            return false;
        }
    }
    *movedTo = target;
    return true;
}

void HistoryWriter::append(const QString &service, const QString &key, const QString &unit,
                           qint64 timeMs, double value)
{
    if (!m_recording)
        return;
    QMutexLocker lock(&m_queue->mutex);
    m_queue->samples.append({{service, key}, unit, {timeMs, value}});
}

bool HistoryWriter::flush()
{
    if (!m_worker)
        return false;
    bool ok = false;
    HistoryWriterWorker *worker = m_worker;
    QMetaObject::invokeMethod(
        worker, [worker, &ok] { ok = worker->flush(false); }, Qt::BlockingQueuedConnection);
    return ok;
}

} // namespace opsdeck::history
