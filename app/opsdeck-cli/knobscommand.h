#pragma once

#include <QStringList>

namespace opsdeck::cli {

/// `opsdeck-cli knobs ACTION ...`: serve scripts read and changed as bash
/// reads them (models/knobs). SCRIPT is a path on the host: this machine's
/// without `--inventory`, else `--host HOST`'s (a service's `serve_script`
/// names its host when `--host` is left out).
///
/// - `read SCRIPT [--json]`: every knob (line, kind, value), then warnings.
///   `--json`: `{"knobs":[{"name","value","line","kind":"export|assignment|
///   flag|env-prefix","quoted","references":[...],"exported","has_value",
///   "conditional"}],"warnings":[{"line","reason"}]}`. Values are printed
///   verbatim (the file is the user's). Exit 1 when `bash -n` cannot parse
///   the file (its message is a warning), else 0.
/// - `set|unset|comment SCRIPT KEY [VALUE] [--confirm NAME] [--dry-run]
///   [--json]`: prints the unified diff; without `--dry-run` applies it at
///   once (KnobFiles: hash check, verified backup, audit entry, atomic write,
///   read back) and leaves a `knob` marker in history. A flag is named after
///   `--` or with `--knob=--flag`. With `--inventory` the inventory must be
///   armed and a service tagged production needs `--confirm <its name>` (exit
///   2 otherwise). Exit 0 done, 1 it failed (the script as the message
///   says), 2 bad input or refused.
///   `--json`: `{"host","script","what","diff","changes":[...],"applied",
///   "backup","backup_sha256","error"}`.
/// - `backups SCRIPT [--json]`: OpsDeck's and hand-made backups beside it,
///   newest first, each with its time, size, SHA-256 and knob changes to now.
/// - `restore SCRIPT BACKUP [--confirm NAME] [--dry-run] [--json]`: as set.
/// - `drift --inventory FILE --service NAME [--json]`: the service's serve
///   script against its running process (/proc/PID/environ and cmdline; the
///   pid file's pid, else the process on the service's port): per knob "in
///   sync" or "script says X, process runs with Y — restart needed to take
///   effect". Exit 0 in sync, 1 drift, 3 the process or its environment
///   could not be read. `--json`: `{"service","host","pid","script",
///   "in_sync","knobs":[{"name","kind","script","process","state","says"}],
///   "problem"}`.
/// - `diff A B [--json]`: knob by knob, `{"changes":[{"name","kind","before",
///   "after","change":"added|removed|changed"}]}`; exit 0 same, 1 different.
int runKnobs(const QStringList &arguments);

} // namespace opsdeck::cli
