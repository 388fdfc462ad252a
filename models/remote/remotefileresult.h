#pragma once

#include "remotefileinfo.h"

#include <QMetaType>
#include <QString>
#include <QVector>

namespace opsdeck::remote {

/// What a RemoteFiles operation gave. `ok` false: nothing else is
/// meaningful and errorText names the host, the operation, the path and the
/// cause ("host web-1: read /etc/x: No such file or directory").
struct RemoteFileResult
{
    bool ok = false;
    QString errorText;
    /// read(): the first bytes of the file, at most the read's cap.
    QByteArray data;
    /// read(): true when the file has more bytes than data holds (the cap
    /// was reached). Never edit and write back a truncated read.
    bool truncated = false;
    /// read() and stat(): the file (stat follows symlinks); list(): the directory.
    RemoteFileInfo info;
    /// list(): the directory's entries without "." and "..", sorted by name
    /// bytes, each as lstat sees it (a symlink is Type::Symlink).
    QVector<RemoteFileInfo> entries;
};

} // namespace opsdeck::remote

Q_DECLARE_METATYPE(opsdeck::remote::RemoteFileResult)
