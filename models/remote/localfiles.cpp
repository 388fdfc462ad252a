#include "localfiles.h"

#include "remotepath.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace opsdeck::remote {

namespace {

// "host local: read /x: No such file or directory"
RemoteFileResult failure(const QString &host, const char *operation, const QByteArray &path,
                         int error)
{
    RemoteFileResult result;
    result.errorText = QStringLiteral("host %1: %2 %3: %4")
                           .arg(host, QLatin1String(operation), QString::fromUtf8(path),
                                QString::fromLocal8Bit(std::strerror(error)));
    return result;
}

RemoteFileInfo infoOf(const QByteArray &name, const struct stat &st)
{
    RemoteFileInfo info;
    info.name = name;
    info.type = S_ISREG(st.st_mode)   ? RemoteFileInfo::Type::File
                : S_ISDIR(st.st_mode) ? RemoteFileInfo::Type::Directory
                : S_ISLNK(st.st_mode) ? RemoteFileInfo::Type::Symlink
                                      : RemoteFileInfo::Type::Other;
    info.size = st.st_size;
    info.permissions = st.st_mode & 07777;
    info.uid = st.st_uid;
    info.gid = st.st_gid;
    info.modifiedMsecs = qint64(st.st_mtim.tv_sec) * 1000 + st.st_mtim.tv_nsec / 1000000;
    info.links = uint(st.st_nlink);
    return info;
}

RemoteFileResult readFile(const QString &host, const QByteArray &path, qint64 cap)
{
    // Non-blocking until it is known to be a regular file: a FIFO in its
    // place must not hang the read (and everyone waiting on it).
    const int fd = ::open(path.constData(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return failure(host, "read", path, errno);
    struct stat st = {};
    RemoteFileResult result;
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        const int error = S_ISDIR(st.st_mode) ? EISDIR : errno ? errno : EINVAL;
        ::close(fd);
        return failure(host, "read", path, error);
    }
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    result.info = infoOf(pathBaseName(path), st);
    // One byte past the cap tells a file of exactly `cap` bytes from a longer
    // one. Read in chunks: a small file must not cost a cap-sized buffer.
    const qint64 want = cap + 1;
    char chunk[64 * 1024];
    while (result.data.size() < want) {
        const ssize_t n = ::read(fd, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            const int error = errno;
            ::close(fd);
            return failure(host, "read", path, error);
        }
        if (n == 0)
            break;
        result.data.append(chunk, std::min<qint64>(n, want - result.data.size()));
    }
    ::close(fd);
    result.truncated = result.data.size() > cap;
    result.data.truncate(cap);
    result.ok = true;
    return result;
}

RemoteFileResult statFile(const QString &host, const QByteArray &path)
{
    struct stat st = {};
    if (::stat(path.constData(), &st) != 0)
        return failure(host, "stat", path, errno);
    RemoteFileResult result;
    result.info = infoOf(pathBaseName(path), st);
    result.ok = true;
    return result;
}

RemoteFileResult listDirectory(const QString &host, const QByteArray &path)
{
    struct stat self = {};
    if (::stat(path.constData(), &self) != 0)
        return failure(host, "list", path, errno);
    RemoteFileResult result;
    result.info = infoOf(pathBaseName(path), self);
    result.ok = true;
    DIR *dir = ::opendir(path.constData());
    if (!dir)
        return failure(host, "list", path, errno);
    while (const dirent *entry = ::readdir(dir)) {
        const QByteArray name(entry->d_name);
        if (name == "." || name == "..")
            continue;
        struct stat st = {};
        if (::fstatat(::dirfd(dir), entry->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0)
            result.entries << infoOf(name, st);
    }
    ::closedir(dir);
    std::sort(result.entries.begin(), result.entries.end(),
              [](const RemoteFileInfo &a, const RemoteFileInfo &b) { return a.name < b.name; });
    return result;
}

bool writeAll(int fd, const QByteArray &data)
{
    qint64 done = 0;
    while (done < data.size()) {
        const ssize_t n = ::write(fd, data.constData() + done, size_t(data.size() - done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        done += n;
    }
    return true;
}

RemoteFileResult writeFile(const QString &host, const QByteArray &path, const QByteArray &data,
                           uint newFileMode)
{
    struct stat old = {};
    const bool existed = ::lstat(path.constData(), &old) == 0;
    if (!existed && errno != ENOENT)
        return failure(host, "write", path, errno);
    if (existed && !S_ISREG(old.st_mode))
        return failure(host, "write", path, S_ISLNK(old.st_mode) ? ELOOP : EISDIR);

    const QByteArray dir = pathDirName(path);
    const QByteArray temp = atomicTempPath(path);
    const int fd = ::open(temp.constData(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0)
        return failure(host, "write", path, errno);
    const auto abandon = [&](int error) {
        ::close(fd);
        ::unlink(temp.constData());
        return failure(host, "write", path, error);
    };
    if (!writeAll(fd, data) || ::fsync(fd) != 0)
        return abandon(errno);
    // Owner first: chown clears set-id bits, which the chmod then restores.
    struct stat fresh = {};
    if (::fstat(fd, &fresh) != 0)
        return abandon(errno);
    if (existed && (old.st_uid != fresh.st_uid || old.st_gid != fresh.st_gid) &&
        ::fchown(fd, old.st_uid, old.st_gid) != 0)
        return abandon(errno);
    if (::fchmod(fd, existed ? (old.st_mode & 07777) : newFileMode) != 0)
        return abandon(errno);
    if (::close(fd) != 0) {
        const int error = errno;
        ::unlink(temp.constData());
        return failure(host, "write", path, error);
    }
    if (::rename(temp.constData(), path.constData()) != 0) {
        const int error = errno;
        ::unlink(temp.constData());
        return failure(host, "write", path, error);
    }
    // The rename itself is durable only once the directory is synced.
    const int dirFd = ::open(dir.constData(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dirFd >= 0) {
        ::fsync(dirFd);
        ::close(dirFd);
    }
    return statFile(host, path);
}

} // namespace

LocalFiles::LocalFiles(QString hostName, QObject *parent)
    : RemoteFiles(parent), m_hostName(std::move(hostName))
{
    qRegisterMetaType<RemoteFileResult>();
    m_pool.setMaxThreadCount(1); // one at a time, in order, as over SSH
}

LocalFiles::~LocalFiles()
{
    m_pool.clear();
    m_pool.waitForDone();
}

quint64 LocalFiles::start(std::function<RemoteFileResult()> operation)
{
    const quint64 id = m_nextId++;
    m_pool.start([this, id, operation = std::move(operation)] {
        const RemoteFileResult result = operation();
        QMetaObject::invokeMethod(
            this, [this, id, result] { Q_EMIT fileFinished(id, result); }, Qt::QueuedConnection);
    });
    return id;
}

quint64 LocalFiles::read(const QByteArray &path, qint64 cap)
{
    return start([host = m_hostName, path, cap] { return readFile(host, path, cap); });
}

quint64 LocalFiles::stat(const QByteArray &path)
{
    return start([host = m_hostName, path] { return statFile(host, path); });
}

quint64 LocalFiles::list(const QByteArray &path)
{
    return start([host = m_hostName, path] { return listDirectory(host, path); });
}

quint64 LocalFiles::write(const QByteArray &path, const QByteArray &data, uint newFileMode)
{
    return start([host = m_hostName, path, data, newFileMode] {
        return writeFile(host, path, data, newFileMode);
    });
}

} // namespace opsdeck::remote
