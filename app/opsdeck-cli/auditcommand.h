#pragma once

#include <QStringList>

namespace opsdeck::cli {

/// `opsdeck-cli audit [--json] [--data-dir DIR]`: the audit log of the data
/// dir, oldest first. Text: one line per entry (id, time, user, program,
/// kind, host, action, detail). `--json`: one array; each entry an object
/// with `id` (its line number), `time`, `user`, `program`, `kind`, `host`,
/// `action` and `detail` (later issues add keys, never change these).
/// Unreadable lines are named on stderr (FILE:LINE) and skipped; exit 0.
///
/// `opsdeck-cli audit --verify [--json] [--data-dir DIR]`: follows the chain
/// and compares it with the head file: "intact", "broken at line N: why" or
/// "truncated: the head says N entries, the file has M", and beside it
/// whether the chain is keyed (checked with the key in the secret store) or
/// unkeyed. Exit 0 intact (keyed or not), 1 broken or truncated (or the log
/// cannot be read, or is not a regular file), 3 not verified (the chain is
/// keyed and its key is not available here), 2 usage.
/// `--json`: `{"file","status":"intact|broken|truncated","line","entries",
/// "head_entries","keyed","reason","key"}`.
int runAudit(const QStringList &arguments);

} // namespace opsdeck::cli
