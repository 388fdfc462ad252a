#pragma once

#include <QStringList>

namespace opsdeck::cli {

/// `opsdeck-cli changed-since --inventory FILE --host HOST [--since TIME]
/// [--json]`: what changed on a host since a time, as an engineer finds it by
/// hand (`find -newermt`), with each serve script's knob diff.
///
/// - TIME: ISO 8601, `HH:MM` (today, the host's local time), `2h` / `30m` /
///   `1d` ago, `@EPOCH`. Default: the newest marker in `--data-dir`'s
///   history, else today 12:00 on the host.
/// - Folders: the host's `watch_paths`, else the folders of its services'
///   serve scripts. At most 10,000 files are listed, newest first, with the
///   count of the rest; a changed `*.sh` with a backup from then (the first
///   50 of them) gets its knob diff (`then`, `changes`).
/// - Per service on the host: the knobs that differ between its serve script
///   as it was then — the first OpsDeck backup made after TIME (it holds the
///   script from before that edit), else the newest backup older than TIME —
///   and now; no backup: said so.
/// - Git: HEAD and dirty files of every watched folder inside a work tree.
///
/// Exit 0 (nothing changed or something did: this is a report), 2 bad
/// input, 3 the host could not be asked. `--json`: `{"host","since",
/// "watched":[...],"files":[{"path","time","size","then","changes"}],"total","listed",
/// "services":[{"service","script","then","changes":[{"name","kind",
/// "before","after","change"}],"note"}],"git":[{"folder","top","head",
/// "dirty":[...]}]}`.
int runChangedSince(const QStringList &arguments);

} // namespace opsdeck::cli
