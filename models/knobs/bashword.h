#pragma once

#include <QByteArray>
#include <QStringList>
#include <QVector>

namespace opsdeck::knobs {

/// How the bytes of a word (or of an assignment's value) are written.
/// Bits: a word written `a"b"` has Bare and Double.
enum class Quoting : unsigned char
{
    None = 0,   ///< nothing written (an empty value)
    Bare = 1,   ///< bare characters, backslash escapes included
    Single = 2, ///< '...'
    Double = 4, ///< "..."
    AnsiC = 8,  ///< $'...'
};

/// One shell word as bash splits a command line, before expansion.
struct BashWord
{
    qsizetype start = 0; ///< byte offset of its first byte in the script
    qsizetype end = 0;   ///< one past its last byte
    int line = 0;        ///< 1-based line of its first byte
    int lastLine = 0;    ///< 1-based line of its last byte (continued lines)
    /// The word after quote removal, as bash assigns it; `$VAR`, `${...}`,
    /// `$(...)` and backquotes are kept as written (never expanded here).
    QByteArray value;
    /// Names of the variables it expands and the command substitutions it runs.
    QStringList references;
    /// Offset in the script of its first unquoted `=` when everything before
    /// it is bare text (an assignment or `--flag=value`); -1 otherwise.
    qsizetype equals = -1;
    /// Index in `value` where the part after that `=` begins.
    qsizetype valueIndex = -1;
    /// Quoting bits (Quoting) of the part after `=`, or of the whole word.
    unsigned quotingAfterEquals = 0;
    unsigned quoting = 0;
};

/// One simple command: its words in order, redirections left out.
struct BashCommand
{
    QVector<BashWord> words;
    /// Compound commands (if, while, for, case, functions, subshells) it is
    /// inside of: a value set at depth > 0 depends on a condition.
    int depth = 0;
    /// In a pipeline or run in the background (`|`, `&`): a subshell, whose
    /// assignments the script never keeps.
    bool subshell = false;
    /// After `&&` or `||`: runs only as the command before it turns out.
    bool conditional = false;
};

} // namespace opsdeck::knobs
