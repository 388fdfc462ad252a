#include "privatefiles.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

namespace opsdeck::settings {

namespace {

QString osError(int code)
{
    return QString::fromLocal8Bit(std::strerror(code));
}

bool setError(QString *error, const QString &text)
{
    if (error)
        *error = text;
    return false;
}

// A descriptor's file must be ours and regular; a looser mode is tightened.
// Ours alone: this user's, and no other name (a hard link) reaches it.
bool checkOwn(const struct stat &st, const QString &path, QString *error)
{
    if (st.st_uid != ::geteuid())
        return setError(error, QStringLiteral("%1 belongs to uid %2, not to this user (uid %3): "
                                              "refused")
                                   .arg(path)
                                   .arg(st.st_uid)
                                   .arg(::geteuid()));
    // Another name for the same file (a hard link) makes it that name's too:
    // written here, it would be written there.
    if (st.st_nlink > 1)
        return setError(error, QStringLiteral("%1 has %2 hard links (another name reaches the same "
                                              "file): refused, OpsDeck writes its own files only")
                                   .arg(path)
                                   .arg(st.st_nlink));
    return true;
}

bool checkOwnRegular(int fd, const QString &path, QString *error)
{
    struct stat st
    {
    };
    if (::fstat(fd, &st) != 0)
        return setError(error, QStringLiteral("%1: %2").arg(path, osError(errno)));
    if (!S_ISREG(st.st_mode))
        return setError(error, QStringLiteral("%1 is not a regular file: refused").arg(path));
    if (!checkOwn(st, path, error))
        return false;
    if ((st.st_mode & 077) != 0) {
        if (::fchmod(fd, 0600) != 0)
            return setError(error, QStringLiteral("%1 has mode %2 and cannot be made 0600: %3")
                                       .arg(path)
                                       .arg(st.st_mode & 0777, 4, 8, QLatin1Char('0'))
                                       .arg(osError(errno)));
        spdlog::warn("{} had mode {:04o}, readable by others: tightened to 0600",
                     path.toStdString(), st.st_mode & 0777);
    }
    return true;
}

} // namespace

bool PrivateFiles::makeDir(const QString &dir, QString *error)
{
    const QString absolute = QDir(dir).absolutePath();
    QStringList missing;
    for (QString at = absolute; !QFileInfo::exists(at) && at != QDir::rootPath();
         at = QFileInfo(at).absolutePath())
        missing.prepend(at);
    for (const QString &path : std::as_const(missing)) {
        // 0700 whatever the umask: umask only ever removes bits from it.
        if (::mkdir(QFile::encodeName(path).constData(), 0700) != 0 && errno != EEXIST)
            return setError(
                error, QStringLiteral("cannot create the folder %1: %2").arg(path, osError(errno)));
    }
    if (!QFileInfo(absolute).isDir())
        return setError(error, QStringLiteral("%1 is not a folder").arg(absolute));
    return true;
}

bool PrivateFiles::refuseLink(const QString &path, QString *error)
{
    struct stat st
    {
    };
    if (::lstat(QFile::encodeName(path).constData(), &st) == 0 && S_ISLNK(st.st_mode))
        return setError(error, QStringLiteral("%1 is a symbolic link: refused (OpsDeck does not "
                                              "follow links for its own files)")
                                   .arg(path));
    return true;
}

int PrivateFiles::open(const QString &path, int flags, QString *error)
{
    // O_NONBLOCK: a FIFO planted in the file's place must not block the open.
    const int fd = ::open(QFile::encodeName(path).constData(),
                          flags | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0600);
    if (fd < 0) {
        const int code = errno;
        if (code == ELOOP)
            refuseLink(path, error);
        else
            setError(error, QStringLiteral("%1: %2").arg(path, osError(code)));
        return -1;
    }
    if (!checkOwnRegular(fd, path, error)) {
        ::close(fd);
        return -1;
    }
    return fd;
}

bool PrivateFiles::ownOrAbsent(const QString &path, QString *error)
{
    if (!regularOrAbsent(path, error))
        return false;
    struct stat st
    {
    };
    return ::lstat(QFile::encodeName(path).constData(), &st) != 0 || checkOwn(st, path, error);
}

bool PrivateFiles::regularOrAbsent(const QString &path, QString *error)
{
    struct stat st
    {
    };
    if (::lstat(QFile::encodeName(path).constData(), &st) != 0) {
        if (errno == ENOENT)
            return true;
        return setError(error, QStringLiteral("%1: %2").arg(path, osError(errno)));
    }
    if (S_ISREG(st.st_mode))
        return true;
    return setError(error,
                    QStringLiteral("%1 is not a regular file (%2): refused")
                        .arg(path, S_ISLNK(st.st_mode)    ? QStringLiteral("a symbolic link")
                                   : S_ISDIR(st.st_mode)  ? QStringLiteral("a folder")
                                   : S_ISFIFO(st.st_mode) ? QStringLiteral("a FIFO")
                                                          : QStringLiteral("a device or socket")));
}

bool PrivateFiles::tighten(const QString &path, QString *error)
{
    if (!refuseLink(path, error))
        return false;
    if (!QFileInfo::exists(path))
        return true;
    const int fd = open(path, O_RDONLY, error);
    if (fd < 0)
        return false;
    ::close(fd);
    return true;
}

bool PrivateFiles::replace(const QString &path, const QByteArray &bytes, QString *error)
{
    const QString temporary = path + QStringLiteral(".tmp");
    ::unlink(QFile::encodeName(temporary).constData());
    const int fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL, error);
    if (fd < 0)
        return false;
    const bool written =
        ::write(fd, bytes.constData(), size_t(bytes.size())) == bytes.size() && ::fsync(fd) == 0;
    ::close(fd);
    if (!written || ::rename(QFile::encodeName(temporary).constData(),
                             QFile::encodeName(path).constData()) != 0) {
        if (error)
            *error = QStringLiteral("cannot write %1: %2")
                         .arg(path, QString::fromLocal8Bit(std::strerror(errno)));
        ::unlink(QFile::encodeName(temporary).constData());
        return false;
    }
    return true;
}

} // namespace opsdeck::settings
