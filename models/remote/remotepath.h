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
/// True when `name` (a name in the directory of `path`) is exactly what
/// atomicTempPath() makes for `path`: "." + the base name + ".opsdeck-" +
/// 1 to 13 of [0-9a-z] (a 64-bit number in base 36). Nothing else matches,
/// so a cleanup that uses it never touches a file that is not such a temp.
bool isAtomicTempName(const QByteArray &name, const QByteArray &path);

} // namespace opsdeck::remote
