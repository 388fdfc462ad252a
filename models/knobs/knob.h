#pragma once

#include <QString>
#include <QStringList>

namespace opsdeck::knobs {

/// One knob as a serve script sets it: an environment variable or a launch
/// flag of the server the script starts (DESIGN.md, glossary).
struct Knob
{
    /// How the script sets it; kindName() gives the contract's spelling
    /// (`opsdeck-cli knobs read --json`, key `kind`).
    enum class Kind
    {
        Export,     ///< `export K=V` (also `declare -x K=V`)
        Assignment, ///< `K=V`, a shell variable (exported when `export K` or `set -a` says so)
        Flag,       ///< `--flag value` or `--flag=value` of the launch command
        EnvPrefix,  ///< `K=V cmd` or `env K=V cmd`: for that command only
    };

    /// The variable's name, or the flag as spelled (`--max-running-requests`).
    QString name;
    /// The value as bash assigns it: quotes removed, escapes resolved;
    /// `$VAR`, `${...}`, `$(...)` are kept as written (see references). A
    /// CRLF line's trailing `\r` is not part of it (a warning says bash
    /// reads it). Empty for a flag given without a value.
    QString value;
    int line = 0; ///< 1-based line of the script where it is set
    Kind kind = Kind::Export;
    /// `none` (bare or empty), `single`, `double`, `ansi-c` (`$'...'`) or
    /// `mixed`: how the value is written.
    QString quoted;
    /// Variables and command substitutions the value expands (shown
    /// unexpanded): `${HOME}/x` names `HOME`.
    QStringList references;
    /// In the environment of the server: always for Export and EnvPrefix,
    /// for an Assignment when `export K` or `set -a` applies; never for a Flag.
    bool exported = false;
    /// A flag without a value (`--enable-metrics`); true for every variable.
    bool hasValue = true;
    /// Inside if/while/case/a function: bash may not run it.
    bool conditional = false;

    /// Where it is written, as byte offsets in the script: the word(s)
    /// [wordStart, wordEnd) (a flag with its value word), the value's bytes
    /// [valueStart, valueEnd) (empty at valueStart for an empty value).
    qsizetype wordStart = 0;
    qsizetype wordEnd = 0;
    qsizetype valueStart = 0;
    qsizetype valueEnd = 0;
    int command = 0; ///< index of its command (ServeScript::commands())
    int word = 0;    ///< index of its (first) word in that command

    bool isFlag() const { return kind == Kind::Flag; }
    static QString kindName(Kind kind);
};

} // namespace opsdeck::knobs
