#pragma once

#include <QByteArray>
#include <QString>

namespace opsdeck::shell {

/// `text` as one POSIX shell word in single quotes: every byte is data, never
/// code (`;`, `$( )`, backticks, globs, newlines included); a `'` becomes
/// `'\''`. The one quoting function of OpsDeck: commands sent to hosts, the
/// demo's scripts, "copy as curl". Pure; any thread.
QString singleQuoted(const QString &text);
/// The same, byte for byte, for names that may not be UTF-8 (file names over SFTP).
QByteArray singleQuoted(const QByteArray &bytes);

} // namespace opsdeck::shell
