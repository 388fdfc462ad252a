#include "sftpoperations.h"

#include "remotepath.h"
#include "shellquote.h"

#include <algorithm>
#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>

namespace opsdeck::remote {

namespace {

// Under OpenSSH's 256 KiB message limit, and the size libssh 0.10 reads in one request.
constexpr qint64 chunkBytes = 32 * 1024;

struct AttributesDeleter
{
    void operator()(sftp_attributes a) const { sftp_attributes_free(a); }
};
using Attributes = std::unique_ptr<sftp_attributes_struct, AttributesDeleter>;

// The link count of a readdir entry's long name, "-rwxr-xr-x   2 user group
// 348 Mar 25 14:29 serve.sh" (SFTP v3 has no attribute for it); 0 when the
// long name is missing or not of that shape.
uint linksOf(const char *longName)
{
    if (!longName)
        return 0;
    const QList<QByteArray> fields = QByteArray(longName).simplified().split(' ');
    bool number = false;
    const uint links =
        fields.size() > 2 && fields.at(0).size() >= 10 ? fields.at(1).toUInt(&number) : 0;
    return number ? links : 0;
}

RemoteFileInfo infoOf(const QByteArray &name, const sftp_attributes_struct &a)
{
    RemoteFileInfo info;
    info.name = name;
    // OpenSSH sends the whole st_mode; the type byte is libssh's reading of it.
    const uint mode = a.permissions;
    info.type = S_ISREG(mode)   ? RemoteFileInfo::Type::File
                : S_ISDIR(mode) ? RemoteFileInfo::Type::Directory
                : S_ISLNK(mode) ? RemoteFileInfo::Type::Symlink
                                : RemoteFileInfo::Type::Other;
    info.size = qint64(a.size);
    info.permissions = mode & 07777;
    info.uid = a.uid;
    info.gid = a.gid;
    info.modifiedMsecs = qint64(a.mtime) * 1000; // SFTP v3 carries whole seconds
    info.links = linksOf(a.longname);
    return info;
}

} // namespace

SftpOperations::SftpOperations(ssh_session session, QString hostName)
    : m_session(session), m_hostName(std::move(hostName))
{
}

SftpOperations::~SftpOperations()
{
    if (m_sftp)
        sftp_free(m_sftp);
}

bool SftpOperations::sessionLost() const
{
    return !ssh_is_connected(m_session);
}

bool SftpOperations::open()
{
    m_sftp = sftp_new(m_session);
    if (!m_sftp || sftp_init(m_sftp) != SSH_OK) {
        m_error = QStringLiteral("host %1: cannot start SFTP (is the sftp subsystem enabled in "
                                 "sshd_config?): %2")
                      .arg(m_hostName, QString::fromUtf8(ssh_get_error(m_session)));
        return false;
    }
    return true;
}

QString SftpOperations::cause() const
{
    if (sessionLost())
        return QStringLiteral("connection lost (%1)")
            .arg(QString::fromUtf8(ssh_get_error(m_session)));
    switch (sftp_get_error(m_sftp)) {
    case SSH_FX_NO_SUCH_FILE:
    case SSH_FX_NO_SUCH_PATH:
        return QStringLiteral("No such file or directory");
    case SSH_FX_PERMISSION_DENIED:
        return QStringLiteral("Permission denied");
    case SSH_FX_FILE_ALREADY_EXISTS:
        return QStringLiteral("File exists");
    case SSH_FX_OP_UNSUPPORTED:
        return QStringLiteral("operation not supported by the server");
    case SSH_FX_WRITE_PROTECT:
        return QStringLiteral("Read-only file system");
    default:
        return QStringLiteral("SFTP failure (%1)").arg(QString::fromUtf8(ssh_get_error(m_session)));
    }
}

RemoteFileResult SftpOperations::failure(const char *operation, const QByteArray &path,
                                         const QString &why) const
{
    RemoteFileResult result;
    result.errorText = QStringLiteral("host %1: %2 %3: %4")
                           .arg(m_hostName, QLatin1String(operation), QString::fromUtf8(path),
                                why.isEmpty() ? cause() : why);
    return result;
}

RemoteFileResult SftpOperations::read(const QByteArray &path, qint64 cap)
{
    sftp_file file = sftp_open(m_sftp, path.constData(), O_RDONLY, 0);
    if (!file)
        return failure("read", path);
    const Attributes attributes(sftp_fstat(file));
    if (!attributes || !S_ISREG(attributes->permissions)) {
        const QString why = attributes ? QStringLiteral("not a regular file") : cause();
        sftp_close(file);
        return failure("read", path, why);
    }
    RemoteFileResult result;
    result.info = infoOf(pathBaseName(path), *attributes);
    // One byte past the cap tells a file of exactly `cap` bytes from a longer
    // one. Read in chunks: a small file must not cost a cap-sized buffer.
    const qint64 want = cap + 1;
    char chunk[chunkBytes];
    while (result.data.size() < want) {
        const ssize_t n = sftp_read(file, chunk, sizeof chunk);
        if (n < 0) {
            const QString why = cause();
            sftp_close(file);
            return failure("read", path, why);
        }
        if (n == 0)
            break;
        result.data.append(chunk, std::min<qint64>(n, want - result.data.size()));
    }
    sftp_close(file);
    result.truncated = result.data.size() > cap;
    result.data.truncate(cap);
    result.ok = true;
    return result;
}

RemoteFileResult SftpOperations::stat(const QByteArray &path)
{
    const Attributes attributes(sftp_stat(m_sftp, path.constData()));
    if (!attributes)
        return failure("stat", path);
    RemoteFileResult result;
    result.info = infoOf(pathBaseName(path), *attributes);
    result.ok = true;
    return result;
}

RemoteFileResult SftpOperations::list(const QByteArray &path)
{
    RemoteFileResult result = stat(path);
    if (!result.ok)
        return failure("list", path);
    sftp_dir dir = sftp_opendir(m_sftp, path.constData());
    if (!dir)
        return failure("list", path);
    // sftp-server reads each entry with lstat: links are reported as links.
    while (const Attributes entry{sftp_readdir(m_sftp, dir)}) {
        const QByteArray name(entry->name);
        if (name != "." && name != "..")
            result.entries << infoOf(name, *entry);
    }
    const bool complete = sftp_dir_eof(dir);
    const QString why = complete ? QString() : cause();
    sftp_closedir(dir);
    if (!complete)
        return failure("list", path, why);
    std::sort(result.entries.begin(), result.entries.end(),
              [](const RemoteFileInfo &a, const RemoteFileInfo &b) { return a.name < b.name; });
    return result;
}

RemoteFileResult SftpOperations::write(const QByteArray &path, const QByteArray &data,
                                       uint newFileMode, QSet<QByteArray> *leftovers)
{
    const Attributes old(sftp_lstat(m_sftp, path.constData()));
    const bool existed = old != nullptr;
    if (!existed && sftp_get_error(m_sftp) != SSH_FX_NO_SUCH_FILE)
        return failure("write", path);
    if (existed && !S_ISREG(old->permissions))
        return failure("write", path,
                       S_ISLNK(old->permissions) ? QStringLiteral("is a symlink (write its target)")
                                                 : QStringLiteral("not a regular file"));
    // Without fsync a crash after the rename could leave an empty file under
    // the name: worse than no write at all.
    if (!sftp_extension_supported(m_sftp, "fsync@openssh.com", "1"))
        return failure("write", path,
                       QStringLiteral("the SFTP server has no fsync@openssh.com; refusing a "
                                      "write that a crash could lose"));

    const QByteArray temp = atomicTempPath(path);
    sftp_file file = sftp_open(m_sftp, temp.constData(), O_WRONLY | O_CREAT | O_EXCL, 0600);
    if (!file)
        return failure("write", path);
    const auto abandon = [&](const QString &why) {
        if (file)
            sftp_close(file);
        // Gone already counts as removed: a lost `mv` may have renamed it.
        const bool removed = !sessionLost() && (sftp_unlink(m_sftp, temp.constData()) == 0 ||
                                                sftp_get_error(m_sftp) == SSH_FX_NO_SUCH_FILE);
        if (!removed && leftovers)
            leftovers->insert(temp);
        return failure("write", path, why);
    };
    for (qint64 done = 0; done < data.size();) {
        const ssize_t n = sftp_write(file, data.constData() + done,
                                     size_t(std::min(chunkBytes, data.size() - done)));
        if (n <= 0)
            return abandon(cause());
        done += n;
    }
    if (sftp_fsync(file) != 0)
        return abandon(cause());
    const Attributes fresh(sftp_fstat(file));
    if (!fresh)
        return abandon(cause());
    const int closed = sftp_close(file);
    file = nullptr;
    if (closed != 0)
        return abandon(cause());
    // Owner first: chown clears set-id bits, which the chmod then restores.
    if (existed && (old->uid != fresh->uid || old->gid != fresh->gid) &&
        sftp_chown(m_sftp, temp.constData(), old->uid, old->gid) != 0)
        return abandon(QStringLiteral("cannot keep the owner %1:%2 (%3)")
                           .arg(old->uid)
                           .arg(old->gid)
                           .arg(cause()));
    if (sftp_chmod(m_sftp, temp.constData(), existed ? (old->permissions & 07777) : newFileMode) !=
        0)
        return abandon(cause());
    QString error;
    if (!(existed ? renameOver(temp, path, error)
                  : (sftp_rename(m_sftp, temp.constData(), path.constData()) == 0 ||
                     (error = cause(), false))))
        return abandon(error);
    removeStaleTemps(path, *fresh, leftovers);
    RemoteFileResult result = stat(path);
    if (!result.ok)
        return failure("write", path);
    return result;
}

void SftpOperations::removeStaleTemps(const QByteArray &path, const sftp_attributes_struct &fresh,
                                      QSet<QByteArray> *leftovers)
{
    const auto unlink = [this](const QByteArray &temp) {
        if (sftp_unlink(m_sftp, temp.constData()) == 0) {
            spdlog::info("sftp: {}: removed the temp file {} an interrupted write left",
                         m_hostName.toStdString(), temp.toStdString());
            return true;
        }
        if (sftp_get_error(m_sftp) == SSH_FX_NO_SUCH_FILE)
            return true;
        spdlog::warn("sftp: {}: cannot remove the temp file {}: {}", m_hostName.toStdString(),
                     temp.toStdString(), cause().toStdString());
        return false;
    };
    // Ours by exact name, whatever their age or target.
    if (leftovers) {
        for (auto it = leftovers->begin(); it != leftovers->end();)
            it = unlink(*it) ? leftovers->erase(it) : std::next(it);
    }
    // An earlier process's, of this path only.
    const QByteArray dirPath = pathDirName(path);
    sftp_dir dir = sftp_opendir(m_sftp, dirPath.constData());
    if (!dir)
        return;
    QList<QByteArray> stale;
    while (const Attributes entry{sftp_readdir(m_sftp, dir)}) {
        const QByteArray name(entry->name);
        if (isAtomicTempName(name, path) && S_ISREG(entry->permissions) &&
            entry->uid == fresh.uid &&
            qint64(fresh.mtime) - qint64(entry->mtime) >= qint64(staleTempAge.count()))
            stale << dirPath + '/' + name;
    }
    sftp_closedir(dir);
    for (const QByteArray &temp : std::as_const(stale))
        unlink(temp);
}

bool SftpOperations::renameOver(const QByteArray &from, const QByteArray &to, QString &error)
{
    ssh_channel channel = ssh_channel_new(m_session);
    if (!channel || ssh_channel_open_session(channel) != SSH_OK) {
        error = QStringLiteral("cannot open a channel for the rename: %1")
                    .arg(QString::fromUtf8(ssh_get_error(m_session)));
        if (channel)
            ssh_channel_free(channel);
        return false;
    }
    const QByteArray command =
        "mv -f -T -- " + shell::singleQuoted(from) + ' ' + shell::singleQuoted(to);
    QByteArray stderrText;
    int status = -1;
    if (ssh_channel_request_exec(channel, command.constData()) == SSH_OK) {
        ssh_channel_send_eof(channel);
        char buffer[1024];
        // Bounded: 15 reads of at most 1 s each; mv prints at most one line.
        for (int i = 0; i < 15 && !ssh_channel_is_eof(channel); ++i) {
            const int n = ssh_channel_read_timeout(channel, buffer, sizeof buffer, 1, 1000);
            if (n < 0)
                break;
            stderrText.append(buffer, n);
        }
        status = ssh_channel_get_exit_status(channel);
    }
    if (ssh_is_connected(m_session))
        ssh_channel_close(channel);
    ssh_channel_free(channel);
    if (status == 0)
        return true;
    error = stderrText.trimmed().isEmpty()
                ? QStringLiteral("the rename over the old file did not finish (%1)")
                      .arg(sessionLost() ? QStringLiteral("connection lost")
                                         : QStringLiteral("mv exit %1").arg(status))
                : QString::fromUtf8(stderrText.trimmed());
    return false;
}

} // namespace opsdeck::remote
