#pragma once

#include "commandresult.h"

#include <QString>

namespace opsdeck::remote {

/// The prompt a finished command seems to have shown while waiting for an
/// answer, or empty (case B16 C: a script printed "Overwrite? [y/N] ", its
/// `read` got EOF, and the operator must be told it asked, not just shown
/// exit 1). Commands get no terminal and stdin at EOF, so a prompt is never
/// answered.
///
/// A heuristic on the kept output, stdout and stderr alike:
/// - a yes/no marker anywhere: `[y/N]`, `[Y/n]`, `[yes/no]`, `(yes/no)`,
///   `(y/n)`: the prompt is that line up to and including the marker;
/// - a last line with no newline that ends in `?`, `:` or `>` (a prompt
///   waits on the same line), when nothing was dropped past the output cap.
/// At most 160 characters, whitespace trimmed. Pure; any thread.
QString inputPromptIn(const CommandResult &result);

/// What both transports read from a finished command's output: the script
/// bash refused (markScriptNotRun(), bashscript.h) and the prompt it waited
/// on (inputPrompt, unless it failed to start).
void readOutcomeFromOutput(CommandResult &result);

} // namespace opsdeck::remote
