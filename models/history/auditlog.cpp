#include "auditlog.h"

#include <QCoreApplication>
#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLockFile>
#include <fcntl.h>
#include <pwd.h>
#include <unistd.h>

namespace opsdeck::history {

namespace {

const QByteArray firstPrev(64, '0');

QByteArray hashOf(const QByteArray &line)
{
    return QCryptographicHash::hash(line, QCryptographicHash::Sha256).toHex();
}

QString userName()
{
    if (const passwd *pw = ::getpwuid(::getuid()))
        return QString::fromLocal8Bit(pw->pw_name);
    return QString::number(::getuid());
}

// The end of the file as append() needs it: the last line's bytes (without
// its newline; empty when the file is empty) and whether it ends with one.
// A line cut off (a writer that died, a full disk, a hand edit) is still the
// line before ours: the next entry goes on a line of its own after it and
// chains to it, so verify() names that one line and read() keeps ours.
struct LastLine
{
    QByteArray bytes;
    bool complete = true;
};

LastLine lastLine(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    const qint64 size = file.size();
    // An entry is far below 64 KiB, so one tail read keeps append O(1); a
    // longer line (a huge detail) widens the read until its start is found,
    // else its hash would be of its tail only and break the chain.
    for (qint64 tail = 64 * 1024;; tail *= 4) {
        const qint64 from = std::max<qint64>(0, size - tail);
        file.seek(from);
        const QByteArray bytes = file.readAll();
        LastLine last;
        last.complete = bytes.isEmpty() || bytes.endsWith('\n');
        const qsizetype end = last.complete ? bytes.size() - 1 : bytes.size();
        const qsizetype start = end > 0 ? bytes.lastIndexOf('\n', end - 1) : -1;
        if (start < 0 && from > 0)
            continue;
        last.bytes = bytes.mid(start + 1, std::max<qsizetype>(0, end - start - 1));
        return last;
    }
}

} // namespace

AuditLog::AuditLog(QString path) : m_path(std::move(path)) {}

QString AuditLog::pathIn(const QString &dataDir)
{
    return QDir(dataDir).filePath(QStringLiteral("audit.jsonl"));
}

bool AuditLog::append(const AuditEntry &entry, QString *error)
{
    const std::lock_guard lock(m_mutex);
    auto fail = [&](const QString &why) {
        if (error)
            *error = QStringLiteral("audit log %1: %2").arg(m_path, why);
        return false;
    };
    if (!QDir().mkpath(QFileInfo(m_path).absolutePath()))
        return fail(QStringLiteral("cannot create its folder"));
    // Beside the file a symbolic link names: writers through two names meet at one lock.
    const QString canonical = QFileInfo(m_path).canonicalFilePath();
    const QString lockPath = (canonical.isEmpty() ? m_path : canonical) + QStringLiteral(".lock");
    // QLockFile would take something else under that name for a lock it
    // cannot read and retry until the timeout, then blame another process.
    const QFileInfo lockInfo(lockPath);
    if (lockInfo.exists() && !lockInfo.isFile())
        return fail(QStringLiteral("its lock file %1 is not a file").arg(lockPath));
    QLockFile fileLock(lockPath);
    // Another process holds it only for one write + fsync.
    if (!fileLock.tryLock(10000)) {
        if (fileLock.error() == QLockFile::LockFailedError)
            return fail(
                QStringLiteral("locked by another process for over 10 s (%1)").arg(lockPath));
        return fail(QStringLiteral("cannot create its lock file %1 (%2)")
                        .arg(lockPath, fileLock.error() == QLockFile::PermissionError
                                           ? QStringLiteral("permission denied")
                                           : QStringLiteral("unknown error")));
    }

    const LastLine last = lastLine(m_path);
    QJsonObject object;
    const QDateTime time = entry.time.isValid() ? entry.time : QDateTime::currentDateTimeUtc();
    object[QStringLiteral("time")] = time.toUTC().toString(Qt::ISODateWithMs);
    object[QStringLiteral("user")] = userName();
    object[QStringLiteral("program")] = QCoreApplication::instance()
                                            ? QCoreApplication::applicationName()
                                            : QStringLiteral("opsdeck");
    object[QStringLiteral("pid")] = qint64(::getpid());
    object[QStringLiteral("kind")] = entry.kind;
    object[QStringLiteral("host")] = entry.host;
    object[QStringLiteral("action")] = entry.action;
    object[QStringLiteral("detail")] = entry.detail;
    object[QStringLiteral("prev")] =
        QString::fromLatin1(last.bytes.isEmpty() ? firstPrev : hashOf(last.bytes));
    const QByteArray line = (last.complete ? QByteArray() : QByteArrayLiteral("\n")) +
                            QJsonDocument(object).toJson(QJsonDocument::Compact) + '\n';

    const QByteArray native = QFile::encodeName(m_path);
    const int fd = ::open(native.constData(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0)
        return fail(QString::fromLocal8Bit(std::strerror(errno)));
    const off_t before = ::lseek(fd, 0, SEEK_END);
    // QFile on our O_APPEND descriptor: it writes the line whole (retrying
    // short writes); the descriptor stays ours for fsync and close.
    QFile out;
    bool written =
        out.open(fd, QIODevice::WriteOnly | QIODevice::Append, QFileDevice::DontCloseHandle) &&
        out.write(line) == line.size() && out.flush();
    const QString writeError = out.errorString();
    out.close();
    written = written && ::fsync(fd) == 0;
    if (!written) {
        const QString why = writeError.isEmpty() || writeError == QLatin1String("Unknown error")
                                ? QString::fromLocal8Bit(std::strerror(errno))
                                : writeError;
        // Never leave half a line: it would break the chain for every later entry.
        if (before >= 0 && ::ftruncate(fd, before) == 0)
            ::fsync(fd);
        ::close(fd);
        return fail(why);
    }
    ::close(fd);
    return true;
}

QVector<AuditEntry> AuditLog::read(QStringList *problems) const
{
    QVector<AuditEntry> entries;
    QFile file(m_path);
    if (!file.open(QIODevice::ReadOnly))
        return entries;
    int number = 0;
    while (!file.atEnd()) {
        const QByteArray line = file.readLine();
        ++number;
        QJsonParseError parseError;
        const QJsonDocument doc = QJsonDocument::fromJson(line, &parseError);
        if (!doc.isObject()) {
            if (problems)
                *problems << QStringLiteral("%1:%2: not a JSON object (%3)")
                                 .arg(m_path)
                                 .arg(number)
                                 .arg(parseError.errorString());
            continue;
        }
        const QJsonObject o = doc.object();
        AuditEntry entry;
        entry.time = QDateTime::fromString(o[QStringLiteral("time")].toString(), Qt::ISODateWithMs);
        entry.kind = o[QStringLiteral("kind")].toString();
        entry.host = o[QStringLiteral("host")].toString();
        entry.action = o[QStringLiteral("action")].toString();
        entry.detail = o[QStringLiteral("detail")].toString();
        entries.append(entry);
    }
    return entries;
}

QString AuditLog::verify() const
{
    QFile file(m_path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    QByteArray expected = firstPrev;
    int number = 0;
    while (!file.atEnd()) {
        QByteArray line = file.readLine();
        ++number;
        if (!line.endsWith('\n'))
            return QStringLiteral("%1:%2: incomplete last line").arg(m_path).arg(number);
        line.chop(1);
        const QJsonDocument doc = QJsonDocument::fromJson(line);
        if (!doc.isObject())
            return QStringLiteral("%1:%2: not a JSON object").arg(m_path).arg(number);
        const QByteArray prev = doc.object()[QStringLiteral("prev")].toString().toLatin1();
        if (prev != expected)
            return QStringLiteral("%1:%2: hash chain broken: `prev` is not the SHA-256 of the "
                                  "line before (a line was removed, added or edited)")
                .arg(m_path)
                .arg(number);
        expected = hashOf(line);
    }
    return {};
}

} // namespace opsdeck::history
