#pragma once

#include <QByteArray>

namespace opsdeck::remote {

/// Path pieces shared by the local and the SFTP file operations. Paths are
/// raw bytes (a file name need not be UTF-8), '/'-separated as on the host.

/// The last component: "c" of "/a/b/c"; the path itself without a '/'.
QByteArray pathBaseName(const QByteArray &path);
/// Everything before the last '/': "/a/b" of "/a/b/c", "/" of "/c", "." of "c".
QByteArray pathDirName(const QByteArray &path);
/// A temp file beside `path` for an atomic write: "<dir>/.<name>.opsdeck-<random>",
/// in the same directory so that the final rename never crosses filesystems.
QByteArray atomicTempPath(const QByteArray &path);

} // namespace opsdeck::remote
