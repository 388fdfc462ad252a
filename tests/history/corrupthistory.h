#pragma once

#include <QByteArray>
#include <QString>

namespace opsdeck::test {

/// Writes a valid history database of a few pages at `path` (as the recorder
/// writes), then overwrites its fourth page with garbage: SQLite's
/// quick_check and reads of that page then report it corrupt ("database disk
/// image is malformed"). Returns the file's bytes after the damage (empty on
/// failure, with a GoogleTest failure said).
QByteArray writeCorruptHistory(const QString &path);

} // namespace opsdeck::test
