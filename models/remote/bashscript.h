#pragma once

#include "commandresult.h"

#include <QByteArray>
#include <QString>

namespace opsdeck::remote {

/// How a script reaches `bash -s` on either transport, and how its refusal is
/// read back.
///
/// stdin carries, then EOF:
///
///     IFS= read -r -d '' __opsdeck_script <<'OPSDECK_SCRIPT_<16 random hex>'
///     <script>
///     OPSDECK_SCRIPT_<...>
///     if ! "$BASH" -n /dev/stdin <<<"$__opsdeck_script"; then echo '<notRunLine>' >&2; exit 2; fi
///     eval "$__opsdeck_script"
///
/// Why this shape:
/// - bash has read the whole script before any of it runs, so a command in it
///   that reads stdin (`cat`, `read`) gets EOF at once instead of the script's
///   next lines (case B16);
/// - `bash -n` checks the whole text first: a syntax error anywhere (an
///   unclosed quote, a CRLF `then\r`, a stray `}`) runs nothing, and bash's
///   message names the script's own line ("/dev/stdin: line 3: ...");
/// - the text is data in a quoted here-document: no expansion, no length
///   limit of a command line, not in the host's `ps`; each top-level command
///   is parsed on its own, so a script of 30,000 lines runs (bash 5.2
///   crashes on a `{ ... }` group that long).
/// The delimiter is drawn again while the script holds it.
QByteArray bashScriptStandardInput(const QString &script);

/// The line the wrapper writes to stderr when bash refused the script's syntax.
inline constexpr char bashScriptNotRunLine[] =
    "opsdeck: bash found a syntax error in the script; nothing of it was run";

/// When `result` is the wrapper's refusal (exit 2 with bashScriptNotRunLine
/// on stderr), makes it FailedToStart with errorText quoting bash's message
/// and removes the line from standardError. Other results are left alone.
/// Both transports call it for scripts.
void markScriptNotRun(CommandResult &result);

} // namespace opsdeck::remote
