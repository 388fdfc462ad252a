#include "walbase.h"

#include "privatefiles.h"

#include <QDateTime>
#include <QDeadlineTimer>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSet>
#include <QThread>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <utility>

namespace opsdeck::history {

namespace {

// The record's descriptor, flock'ed for as long as it lives; -1 when the
// record could not be opened or locked within 5 s.
class LockedRecord
{
public:
    explicit LockedRecord(const QString &path)
    {
        QString why;
        m_fd = settings::PrivateFiles::open(path, O_RDWR | O_CREAT, &why);
        if (m_fd < 0) {
            spdlog::warn("history: {}", why.toStdString());
            return;
        }
        // A checkpoint never waits (busy_timeout 0), so a holder lets go in
        // milliseconds; 5 s is the store's own busy timeout.
        const QDeadlineTimer deadline(5000);
        while (::flock(m_fd, LOCK_EX | LOCK_NB) != 0) {
            if (errno != EWOULDBLOCK || deadline.hasExpired()) {
                spdlog::warn("history: cannot lock {}: {}", path.toStdString(),
                             errno == EWOULDBLOCK ? "held past 5 s" : std::strerror(errno));
                ::close(m_fd);
                m_fd = -1;
                return;
            }
            QThread::msleep(5);
        }
    }
    ~LockedRecord()
    {
        if (m_fd >= 0)
            ::close(m_fd); // releases the flock
    }
    LockedRecord(const LockedRecord &) = delete;
    LockedRecord &operator=(const LockedRecord &) = delete;

    bool isLocked() const { return m_fd >= 0; }

    QByteArray read() const
    {
        char buffer[256];
        const ssize_t n = ::pread(m_fd, buffer, sizeof buffer, 0);
        return n > 0 ? QByteArray(buffer, int(n)) : QByteArray();
    }

    // In place and synced: a torn record reads as unknown, never as another file.
    void write(const QByteArray &record) const
    {
        if (::pwrite(m_fd, record.constData(), size_t(record.size()), 0) != record.size() ||
            ::ftruncate(m_fd, record.size()) != 0 || ::fdatasync(m_fd) != 0)
            spdlog::warn("history: cannot write the WAL's record: {}", std::strerror(errno));
    }

private:
    int m_fd = -1;
};

// How long after it began a checkpoint that died may have written the file.
constexpr qint64 kCheckpointWritesNs = 10LL * 1000 * 1000 * 1000;

// "v2 size mtime_s mtime_ns\n" of the file now; empty when it is missing.
// The file changes only at a checkpoint (automatic ones are off), and every
// write sets its mtime: the same size and mtime to the nanosecond is the
// same file, copied with its WAL (`cp -a` of the data folder) or not.
QByteArray recordOf(const QString &path)
{
    struct stat st = {};
    if (::stat(QFile::encodeName(path).constData(), &st) != 0)
        return {};
    return QStringLiteral("v2 %1 %2 %3\n")
        .arg(qint64(st.st_size))
        .arg(qint64(st.st_mtim.tv_sec))
        .arg(qint64(st.st_mtim.tv_nsec))
        .toLatin1();
}

// The pids holding a POSIX lock on `path`'s inode ("1: POSIX  ADVISORY  READ
// 4242 fe:00:10953097 128 128"): every SQLite connection in WAL mode holds
// one on `-shm` while it is open. Read from /proc/locks, never by opening the
// file (closing a descriptor would drop the locks SQLite holds in this
// process). Nothing when there is no such file; `unsure` when unreadable.
QSet<QByteArray> lockHolders(const QString &path, bool *unsure)
{
    *unsure = false;
    struct stat st = {};
    if (::stat(QFile::encodeName(path).constData(), &st) != 0)
        return {};
    QFile locks(QStringLiteral("/proc/locks"));
    if (!locks.open(QIODevice::ReadOnly)) {
        *unsure = true;
        return {};
    }
    const QByteArray inode = QStringLiteral("%1:%2:%3")
                                 .arg(major(st.st_dev), 2, 16, QLatin1Char('0'))
                                 .arg(minor(st.st_dev), 2, 16, QLatin1Char('0'))
                                 .arg(quint64(st.st_ino))
                                 .toLatin1();
    QSet<QByteArray> holders;
    for (const QByteArray &line : locks.readAll().split('\n')) {
        const QList<QByteArray> fields = line.simplified().split(' ');
        if (fields.size() >= 6 && fields.at(1) == "POSIX" && fields.at(5) == inode)
            holders.insert(fields.at(4));
    }
    return holders;
}

// True when any process (this one too) has a connection on the database
// whose `-shm` is `shm`; true when unsure.
bool anyoneHasItOpen(const QString &shm)
{
    bool unsure = false;
    return !lockHolders(shm, &unsure).isEmpty() || unsure;
}

// True when a process with a connection on `shm` has `database`'s very inode
// open: a connection of this file, not of one moved away under it (each
// holder's descriptors, from /proc); true when unsure.
bool aConnectionHoldsThisFile(const QString &database, const QString &shm)
{
    struct stat file = {};
    if (::stat(QFile::encodeName(database).constData(), &file) != 0)
        return false;
    bool unsure = false;
    const QSet<QByteArray> holders = lockHolders(shm, &unsure);
    if (unsure)
        return true;
    for (const QByteArray &pid : holders) {
        const QString fds = QStringLiteral("/proc/%1/fd").arg(QString::fromLatin1(pid));
        const QStringList entries = QDir(fds).entryList(QDir::Files | QDir::System);
        if (entries.isEmpty())
            return true; // not readable here: unsure
        for (const QString &fd : entries) {
            struct stat open = {};
            if (::stat(QFile::encodeName(fds + u'/' + fd).constData(), &open) == 0 &&
                open.st_dev == file.st_dev && open.st_ino == file.st_ino)
                return true;
        }
    }
    return false;
}

// A copy that keeps mtimes to the second only (tar's default format): the
// same size and second, the copy's nanoseconds 0.
bool sameToTheSecond(const QByteArray &record, const QByteArray &now)
{
    const QList<QByteArray> was = record.trimmed().split(' ');
    const QList<QByteArray> is = now.trimmed().split(' ');
    return was.size() == 4 && is.size() == 4 && is.at(3) == "0" && was.at(1) == is.at(1) &&
           was.at(2) == is.at(2);
}

// The file named by `record` is the one there now: the same size and mtime
// as after the last checkpoint; or, during a checkpoint that died midway
// ("checkpointing" with the file as it was before and when it began), the
// file as it was or one written since the checkpoint began (the checkpoint
// itself wrote it; its WAL must be replayed to finish it). A record that is
// not one (unknown, torn, older) leaves the WAL to SQLite.
bool isOwnFile(const QByteArray &record, const QString &database)
{
    const QByteArray now = recordOf(database);
    if (!record.startsWith("v2 ") && !record.startsWith("checkpointing v2 "))
        return true;
    if (record.startsWith("v2 "))
        return record == now || sameToTheSecond(record, now);
    // "checkpointing v2 size mtime_s mtime_ns\n<begun_s> <begun_ns>\n"
    const QList<QByteArray> lines = record.split('\n');
    if (lines.size() < 2 || lines.at(0).mid(int(std::strlen("checkpointing "))) + '\n' == now)
        return true;
    const QList<QByteArray> begun = lines.at(1).split(' ');
    const QList<QByteArray> fields = now.trimmed().split(' ');
    if (begun.size() != 2 || fields.size() != 4)
        return true;
    // Written since the checkpoint began, and within kCheckpointWrites of
    // it: a checkpoint writes one flush's pages; a file written later is a
    // copy put over it.
    const qint64 mtime = fields.at(2).toLongLong() * 1000000000 + fields.at(3).toLongLong();
    const qint64 start = begun.at(0).toLongLong() * 1000000000 + begun.at(1).toLongLong();
    return mtime >= start && mtime - start <= kCheckpointWritesNs;
}

// The file is not the one a settled record ("v2 size mtime_s mtime_ns", or
// with " closed") names: what it is now, else empty.
QByteArray writtenSince(const QByteArray &record, const QString &database)
{
    if (!record.startsWith("v2 "))
        return {};
    QByteArray settled = record.trimmed();
    if (settled.endsWith(" closed"))
        settled.chop(int(std::strlen(" closed")));
    const QByteArray now = recordOf(database);
    return now.isEmpty() || now.trimmed() == settled ? QByteArray() : now.trimmed();
}

QString writtenOutsideText(const QString &database, const QByteArray &record, const QByteArray &now)
{
    return QStringLiteral("%1 was written by another program while open (a backup copied over "
                          "it?): it is not the file its WAL's pages were written for (size and "
                          "mtime %2, recorded after the last checkpoint as %3), so they are not "
                          "written into it")
        .arg(database, QString::fromLatin1(now.mid(3)),
             QString::fromLatin1(record.trimmed().mid(3)));
}

} // namespace

WalBase::WalBase(QString databasePath) : m_database(std::move(databasePath)) {}

WalBase::Check WalBase::setAsideForeignWal()
{
    const QString wal = m_database + QStringLiteral("-wal");
    struct stat st = {};
    if (::lstat(QFile::encodeName(wal).constData(), &st) != 0 || !S_ISREG(st.st_mode) ||
        st.st_size == 0) {
        // No frames: a record naming another file is an earlier file's
        // (removed, moved aside), adopted by the open's checkpoint; unless a
        // connection still has the file open (its pages are of the old one).
        const QString outside = writtenOutside();
        if (!outside.isEmpty() &&
            aConnectionHoldsThisFile(m_database, m_database + QStringLiteral("-shm")))
            return {true, outside + QStringLiteral(" while another process has it open: not "
                                                   "opened. Close every program that has it "
                                                   "open (the window, a recorder), then open it")};
        return {};
    }
    const LockedRecord record(m_database + QStringLiteral("-walbase"));
    if (!record.isLocked())
        return {};
    if (isOwnFile(record.read(), m_database))
        return {};
    // Still open elsewhere: moving it would split those processes from
    // their own WAL, and opening would replay it. Neither; said.
    if (anyoneHasItOpen(m_database + QStringLiteral("-shm")))
        return {true, QStringLiteral("%1 was replaced or changed (restored by hand?) while its "
                                     "WAL, still open in another process, holds pages written "
                                     "for the file it was: not opened, so that they are not "
                                     "replayed into it. Close every program that has it open "
                                     "(the window, a recorder), then put the backup in place "
                                     "again: its WAL is then set aside")
                          .arg(m_database)};
    const QString aside =
        QStringLiteral(".not-replayed-%1")
            .arg(QDateTime::currentDateTimeUtc().toString(u"yyyyMMdd'T'HHmmss'Z'"));
    for (const QString &suffix : {QStringLiteral("-wal"), QStringLiteral("-shm")}) {
        const QString from = m_database + suffix;
        if (QFileInfo::exists(from) && ::rename(QFile::encodeName(from).constData(),
                                                QFile::encodeName(from + aside).constData()) != 0)
            return {true, QStringLiteral("%1 was replaced or changed since its WAL was written, "
                                         "but the WAL could not be moved aside (%2): %3; not "
                                         "opened, so that it is not replayed into it")
                              .arg(m_database, QString::fromLocal8Bit(std::strerror(errno)), from)};
    }
    return {false, QStringLiteral("%1 was replaced or changed since its WAL was written "
                                  "(restored by hand?): the WAL was not replayed into it and is "
                                  "kept as %2")
                       .arg(m_database, wal + aside)};
}

void WalBase::closed()
{
    const LockedRecord record(m_database + QStringLiteral("-walbase"));
    struct stat st = {};
    // A WAL still there is another connection's: the record stays theirs.
    if (!record.isLocked() ||
        ::lstat(QFile::encodeName(m_database + QStringLiteral("-wal")).constData(), &st) == 0)
        return;
    const QByteArray now = recordOf(m_database);
    if (!now.isEmpty())
        record.write(now.chopped(1) + " closed\n");
}

QString WalBase::writtenOutside() const
{
    const LockedRecord record(m_database + QStringLiteral("-walbase"));
    if (!record.isLocked())
        return {};
    const QByteArray was = record.read();
    const QByteArray now = writtenSince(was, m_database);
    return now.isEmpty() ? QString() : writtenOutsideText(m_database, was, now);
}

bool WalBase::checkpointed(const std::function<void()> &checkpoint, bool adopt)
{
    const LockedRecord record(m_database + QStringLiteral("-walbase"));
    if (!record.isLocked())
        return true;
    if (!adopt && !writtenSince(record.read(), m_database).isEmpty())
        return false;
    // The clock file times are taken from (coarse), so that a write by the
    // checkpoint is never dated before it began.
    struct timespec begun = {};
    ::clock_gettime(CLOCK_REALTIME_COARSE, &begun);
    record.write("checkpointing " + recordOf(m_database) +
                 QByteArray::number(qint64(begun.tv_sec)) + ' ' +
                 QByteArray::number(qint64(begun.tv_nsec)) + '\n');
    checkpoint();
    record.write(recordOf(m_database));
    return true;
}

} // namespace opsdeck::history
