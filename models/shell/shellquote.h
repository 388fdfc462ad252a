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

/// How a value is written in a file a person edits (a serve script).
enum class QuoteStyle
{
    Bare,   ///< `30000`
    Single, ///< `'v w'`
    Double, ///< `"v w"`
};
/// `text` as one bash word, in the `preferred` style when that style keeps
/// every byte data: bare only for [A-Za-z0-9_./:,@%+=-] (no `~`, `#`, braces
/// or globs), double quotes only without `$`, backquote, `"`, `\`, `!` and
/// control characters; otherwise singleQuoted(). An empty text is `''` (or
/// `""`). For knob edits, which keep the quoting a person chose.
QString bashWord(const QString &text, QuoteStyle preferred);

} // namespace opsdeck::shell
