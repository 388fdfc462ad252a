#pragma once

#include <QByteArray>
#include <QtGlobal>

namespace opsdeck::remote {

/// One file as stat(2) (or SFTP's attributes, the same fields) describes it.
struct RemoteFileInfo
{
    enum class Type
    {
        File,
        Directory,
        Symlink, ///< only from list(), which does not follow links (lstat)
        Other    ///< device, socket, fifo
    };

    /// The last path component, raw bytes: file names are bytes on POSIX
    /// hosts and need not be UTF-8; never re-encoded.
    QByteArray name;
    Type type = Type::Other;
    qint64 size = 0;          ///< bytes
    uint permissions = 0;     ///< mode bits 07777 (e.g. 0640)
    uint uid = 0;             ///< numeric owner
    uint gid = 0;             ///< numeric group
    qint64 modifiedMsecs = 0; ///< last modification, ms since the Unix epoch
    /// Names the file has (hard links, st_nlink); 0 when the host did not
    /// say: over SFTP v3 only list() knows it, from each entry's `ls -l`
    /// style long name (draft-ietf-secsh-filexfer-02, section 7).
    uint links = 0;
};

} // namespace opsdeck::remote
