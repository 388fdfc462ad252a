#pragma once

#include "bashword.h"
#include "knob.h"
#include "scriptwarning.h"

#include <QByteArray>
#include <QVector>
#include <optional>

namespace opsdeck::knobs {

/// A serve script read as bash would assign its knobs (BashLexer for the
/// words): `export K=V`, `K=V` then `export K`, `set -a`, `declare -x`,
/// `env K=V cmd` and `K=V cmd` prefixes, `unset K`, and the long flags of
/// the launch command — the last command with `--` flags, preferring one
/// that names sglang, vllm or a `launch_server`; its flags are the words after
/// the program (`python -m MODULE`, a `*.py`, `vllm serve MODEL`).
/// `--flag=value` and `--flag value` are both read; a flag followed by
/// another flag, or last, has no value.
///
/// Warnings: CRLF line endings (bash reads `30000\r`), a knob set again
/// (the last wins), a knob after `exec` (never reached), a knob inside a
/// compound command, what the lexer does not follow. Whether bash itself can
/// parse the file is `bash -n`'s answer, asked on the host (KnobFiles).
/// Pure value type; any thread; O(size).
class ServeScript
{
public:
    static ServeScript parse(const QByteArray &bytes);

    const QByteArray &bytes() const { return m_bytes; }
    /// Every setting in file order, those overridden later included.
    const QVector<Knob> &settings() const { return m_settings; }
    /// What bash ends with: the last setting of each name, without those
    /// `unset` later and environment-prefix knobs of other commands than the
    /// launch command. File order. Shell variables that are not exported are
    /// in it (Knob::exported false): the server does not see them, the
    /// script's own `$VAR`s do.
    QVector<Knob> knobs() const;
    /// The effective knob of that name (variable or `--flag`).
    std::optional<Knob> knob(const QString &name) const;
    /// Every setting of that name (a knob set twice has two).
    QVector<Knob> settingsOf(const QString &name) const;
    const QVector<ScriptWarning> &warnings() const { return m_warnings; }
    const QVector<BashCommand> &commands() const { return m_commands; }

    /// True when lines end in CRLF (bash keeps the `\r` in every value).
    bool crlf() const { return m_crlf; }
    /// "\r\n" for a CRLF script, else "\n": what a new line gets.
    QByteArray lineEnding() const { return m_crlf ? QByteArrayLiteral("\r\n") : "\n"; }
    /// Index of the launch command in commands(); -1 when there is none.
    int launchCommand() const { return m_launch; }
    /// Where a launch command's flags begin in its words (argv, argv[0]
    /// first): after `-m MODULE`, a `*.py` or `serve` (vllm serve MODEL),
    /// else after the program. The one rule for scripts and for /proc.
    static int flagsStart(const QStringList &words);
    /// True when `word`, right after a `--flag`, is its value: not another
    /// option (a negative number is a value, as argparse takes it).
    static bool isFlagValue(const QString &word);

    /// True when `name` can be a variable's name.
    static bool isVariableName(const QString &name);
    /// True when `name` is a long flag's spelling (`--max-running-requests`).
    static bool isFlagName(const QString &name);

private:
    void readCommand(int index);
    void readLaunchFlags();
    void addSetting(Knob knob, const BashWord &word);
    void chooseLaunchCommand();

    QByteArray m_bytes;
    QVector<BashCommand> m_commands;
    QVector<Knob> m_settings;
    QVector<ScriptWarning> m_warnings;
    /// Per setting: the line of a later `unset` of it (0: none).
    QVector<int> m_unsetOn;
    bool m_crlf = false;
    bool m_allExport = false;
    int m_execLine = 0;
    int m_launch = -1;
};

} // namespace opsdeck::knobs
