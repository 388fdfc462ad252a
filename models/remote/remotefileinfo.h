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
};

} // namespace opsdeck::remote
