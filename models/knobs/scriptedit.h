#pragma once

#include "servescript.h"

#include <QByteArray>
#include <QString>

namespace opsdeck::knobs {

/// One change to one knob of a serve script, made on its bytes: exactly that
/// knob changes, every other byte stays (line endings, comments, order, the
/// final newline, the quoting a person chose where it can hold the new
/// value). Pure; any thread.
///
/// - Set: the last setting's value is replaced (ServeScript::knob); a missing
///   variable is added as `export K=V` after the script's last variable (never
///   after the launch command); a missing flag goes at the end of the launch
///   command. Values are quoted by shell::bashWord: `;`, `$( )`, backquotes,
///   quotes, newlines and globs stay data. A flag value that starts with `-`
///   (not a number) is written `--flag=value`.
/// - Unset: every setting of it is removed: a line that holds only it goes,
///   else only its word (a flag with its value).
/// - Comment: back to the server's default, kept visible: a line that holds
///   only it is commented out (`# `), else the word is removed and a comment
///   line above its command keeps it (`# commented out by OpsDeck: --x 1`).
/// The result is read again and refused when another knob would differ or
/// this one would not read as asked.
class ScriptEdit
{
public:
    enum class Operation
    {
        Set,
        Unset,
        Comment
    };
    Operation operation = Operation::Set;
    QString name;  ///< a variable's name or a long flag (`--max-running-requests`)
    QString value; ///< Set: the new value (empty: a flag without value, a variable set empty)

    struct Result
    {
        bool ok = false;
        QByteArray bytes; ///< the edited script
        QString
            error; ///< why nothing was changed (names the knob, and the line when one is at fault)
        int line = 0; ///< the first line that changes
    };
    Result apply(const ServeScript &script) const;

    /// `set`, `unset`, `comment`.
    static QString operationName(Operation operation);

private:
    struct Splice
    {
        qsizetype start;
        qsizetype end;
        QByteArray text;
    };
    bool set(const ServeScript &script, QVector<Splice> &splices, QString *error) const;
    bool remove(const ServeScript &script, bool keepAsComment, QVector<Splice> &splices,
                QString *error) const;
};

} // namespace opsdeck::knobs
