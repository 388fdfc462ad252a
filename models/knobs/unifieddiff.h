#pragma once

#include <QByteArray>
#include <QString>

namespace opsdeck::knobs {

/// `diff -u` of two texts, line by line (hunks `@@ -a,b +c,d @@` with three
/// lines of context; "\ No newline at end of file" as diff writes it; a
/// CRLF line shows its `\r` as `^M`). The middle part that differs is
/// aligned by a longest common subsequence when it is at most 2,000 lines a
/// side, else shown as replaced whole. Empty when the texts are equal.
/// Pure; any thread.
QString unifiedDiff(const QByteArray &before, const QByteArray &after, const QString &beforeName,
                    const QString &afterName);

} // namespace opsdeck::knobs
