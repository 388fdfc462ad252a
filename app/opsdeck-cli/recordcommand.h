#pragma once

#include <QStringList>

namespace opsdeck::cli {

/// `opsdeck-cli record --inventory FILE [--data-dir DIR] [--pid-file FILE]
/// [--interval-ms N]`: records every service of the inventory into the
/// history database (`<data dir>/history.sqlite`) without a window, until
/// SIGTERM or SIGINT, then flushes, removes its pid file and exits 0.
/// Stays in the foreground; stdin is not read; logs go to stderr.
/// Exit 2: bad usage or inventory (file:line:column errors). Exit 1: a live
/// recorder holds the pid file, another writer records into the database,
/// or the database or pid file cannot be written.
/// `arguments` starts with "record".
int runRecord(const QStringList &arguments);

} // namespace opsdeck::cli
