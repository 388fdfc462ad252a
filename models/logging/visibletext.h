#pragma once

#include <QString>

namespace opsdeck::logging {

/// `text` as one line a terminal shows as it is: control characters (NUL,
/// ESC, BEL, CR, newline, tab, DEL) become `\xNN`, and Unicode format
/// characters that reorder or hide text (bidi overrides such as U+202E,
/// zero-width spaces) become `\uNNNN`. For messages that quote what a user
/// or a file gave (an inventory value, a flag): nothing is lost, nothing is
/// cut at a NUL, and nothing can move the cursor or recolour the terminal.
/// Pure; any thread.
QString visibleText(const QString &text);

} // namespace opsdeck::logging
