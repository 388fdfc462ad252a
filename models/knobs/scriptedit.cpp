#include "scriptedit.h"

#include "knobdiff.h"
#include "shellquote.h"

#include <algorithm>

namespace opsdeck::knobs {

namespace {

qsizetype lineStart(const QByteArray &bytes, qsizetype offset)
{
    // (lastIndexOf(c, -1) would search from the end.)
    return offset <= 0 ? 0 : bytes.lastIndexOf('\n', offset - 1) + 1;
}

qsizetype nextLineStart(const QByteArray &bytes, qsizetype offset)
{
    const qsizetype newline = bytes.indexOf('\n', offset);
    return newline < 0 ? bytes.size() : newline + 1;
}

shell::QuoteStyle styleOf(const Knob &knob)
{
    if (knob.quoted == u"double")
        return shell::QuoteStyle::Double;
    if (knob.quoted == u"none") // bare, or empty: a new value goes bare when it can
        return shell::QuoteStyle::Bare;
    return shell::QuoteStyle::Single;
}

// A flag value that argparse would take for an option must be joined by `=`.
bool needsEquals(const QString &value)
{
    return !ServeScript::isFlagValue(value);
}

// The command holds only this setting (after `export`/`declare`), and no other
// command shares its lines: the lines can go or be commented out whole.
bool aloneOnItsLines(const ServeScript &script, const Knob &knob)
{
    const QVector<BashWord> &words = script.commands().at(knob.command).words;
    const bool single = words.size() == 1 ||
                        (words.size() == 2 && knob.word == 1 &&
                         (words.first().value == "export" || words.first().value == "declare" ||
                          words.first().value == "typeset" || words.first().value == "readonly"));
    if (!single || knob.isFlag())
        return false;
    const int first = words.first().line;
    const int last = words.last().lastLine;
    for (int i = 0; i < script.commands().size(); ++i) {
        if (i == knob.command)
            continue;
        for (const BashWord &word : script.commands().at(i).words)
            if (word.lastLine >= first && word.line <= last)
                return false;
    }
    return true;
}

} // namespace

QString ScriptEdit::operationName(Operation operation)
{
    switch (operation) {
    case Operation::Set:
        return QStringLiteral("set");
    case Operation::Unset:
        return QStringLiteral("unset");
    case Operation::Comment:
        return QStringLiteral("comment");
    }
    return {};
}

bool ScriptEdit::set(const ServeScript &script, QVector<Splice> &splices, QString *error) const
{
    const QByteArray &bytes = script.bytes();
    const bool flag = name.startsWith(u"--");
    const std::optional<Knob> knob = script.knob(name);
    if (!flag) {
        if (knob && bytes.mid(knob->wordStart, knob->valueStart - knob->wordStart).endsWith("+=")) {
            *error = QStringLiteral("%1 is appended to (+=) on line %2: its value depends on the "
                                    "lines before; edit that line by hand, or unset it")
                         .arg(name)
                         .arg(knob->line);
            return false;
        }
        if (knob) {
            splices.append({knob->valueStart, knob->valueEnd,
                            shell::bashWord(value, styleOf(*knob)).toUtf8()});
            return true;
        }
        // After the last variable set before the launch command, else before it.
        const int launch = script.launchCommand();
        qsizetype at = -1;
        for (const Knob &setting : script.settings())
            if (setting.kind != Knob::Kind::Flag && setting.kind != Knob::Kind::EnvPrefix &&
                (launch < 0 || setting.command < launch) &&
                script.commands().at(setting.command).depth == 0) {
                const BashWord &lastWord = script.commands().at(setting.command).words.last();
                at = nextLineStart(bytes, lastWord.end);
            }
        if (launch >= 0) {
            const qsizetype launchLine =
                lineStart(bytes, script.commands().at(launch).words.first().start);
            at = at < 0 ? launchLine : std::min(at, launchLine);
        }
        QByteArray line = "export " + name.toUtf8() + '=' +
                          shell::bashWord(value, shell::QuoteStyle::Bare).toUtf8() +
                          script.lineEnding();
        if (at < 0 || at > bytes.size()) {
            at = bytes.size();
            if (!bytes.isEmpty() && !bytes.endsWith('\n'))
                line.prepend(script.lineEnding());
        }
        splices.append({at, at, line});
        return true;
    }
    if (!knob) {
        const int launch = script.launchCommand();
        if (launch < 0) {
            *error = QStringLiteral("cannot add %1: the script has no launch command (a command "
                                    "with --flags)")
                         .arg(name);
            return false;
        }
        const qsizetype at = script.commands().at(launch).words.last().end;
        QByteArray text = ' ' + name.toUtf8();
        if (!value.isEmpty())
            text += (needsEquals(value) ? '=' : ' ') +
                    shell::bashWord(value, shell::QuoteStyle::Bare).toUtf8();
        splices.append({at, at, text});
        return true;
    }
    const BashWord &flagWord = script.commands().at(knob->command).words.at(knob->word);
    const bool joined = flagWord.equals >= 0;
    const QByteArray word = shell::bashWord(value, styleOf(*knob)).toUtf8();
    if (value.isEmpty()) {
        if (!knob->hasValue) {
            *error = QStringLiteral("%1 is already given without a value (line %2)")
                         .arg(name)
                         .arg(knob->line);
            return false;
        }
        splices.append({joined ? knob->valueStart - 1 : flagWord.end, knob->valueEnd, {}});
    } else if (!knob->hasValue || (needsEquals(value) && !joined)) {
        splices.append({knob->wordStart, knob->wordEnd,
                        name.toUtf8() + (needsEquals(value) ? '=' : ' ') + word});
    } else {
        splices.append({knob->valueStart, knob->valueEnd, word});
    }
    return true;
}

bool ScriptEdit::remove(const ServeScript &script, bool keepAsComment, QVector<Splice> &splices,
                        QString *error) const
{
    const QByteArray &bytes = script.bytes();
    QVector<Knob> settings = script.settingsOf(name);
    if (settings.isEmpty()) {
        *error =
            QStringLiteral("%1 is not set in the script: nothing to %2")
                .arg(name, keepAsComment ? QStringLiteral("comment out") : QStringLiteral("unset"));
        return false;
    }
    for (const Knob &knob : std::as_const(settings)) {
        const QVector<BashWord> &words = script.commands().at(knob.command).words;
        const qsizetype first = lineStart(bytes, words.first().start);
        if (aloneOnItsLines(script, knob)) {
            const qsizetype end = nextLineStart(bytes, words.last().end);
            if (!keepAsComment) {
                splices.append({first, end, {}});
                continue;
            }
            for (qsizetype at = first; at < end; at = nextLineStart(bytes, at))
                splices.append({at, at, "# "});
            continue;
        }
        // Only its words: from the end of the word before (a continued line's
        // `\` and indentation go with it), else up to the next word.
        const qsizetype start = knob.word > 0 ? words.at(knob.word - 1).end : knob.wordStart;
        qsizetype end = knob.wordEnd;
        if (knob.word == 0)
            end = words.size() > 1 ? words.at(1).start : knob.wordEnd;
        splices.append({start, end, {}});
        if (keepAsComment)
            splices.append(
                {first, first,
                 "# commented out by OpsDeck: " +
                     bytes.mid(knob.wordStart, knob.wordEnd - knob.wordStart).replace('\n', ' ') +
                     script.lineEnding()});
    }
    return true;
}

ScriptEdit::Result ScriptEdit::apply(const ServeScript &script) const
{
    Result result;
    const bool flag = name.startsWith(u"--");
    if (flag ? !ServeScript::isFlagName(name) : !ServeScript::isVariableName(name)) {
        result.error = QStringLiteral("\"%1\" is not a knob's name: a variable is "
                                      "[A-Za-z_][A-Za-z0-9_]*, a flag --[A-Za-z0-9][A-Za-z0-9_.-]*")
                           .arg(name);
        return result;
    }
    QVector<Splice> splices;
    const bool made = operation == Operation::Set
                          ? set(script, splices, &result.error)
                          : remove(script, operation == Operation::Comment, splices, &result.error);
    if (!made)
        return result;
    std::sort(splices.begin(), splices.end(), [](const Splice &a, const Splice &b) {
        return a.start != b.start ? a.start > b.start : a.end > b.end;
    });
    QByteArray bytes = script.bytes();
    for (const Splice &splice : std::as_const(splices))
        bytes.replace(splice.start, splice.end - splice.start, splice.text);
    if (bytes == script.bytes()) {
        result.error = QStringLiteral("%1 is already %2: nothing to change").arg(name, value);
        return result;
    }
    const qsizetype firstChange = splices.isEmpty() ? 0 : splices.last().start;
    result.line = int(script.bytes().left(firstChange).count('\n')) + 1;

    // Read again: this knob as asked, every other knob as it was.
    const ServeScript edited = ServeScript::parse(bytes);
    const std::optional<Knob> now = edited.knob(name);
    const bool asAsked =
        operation == Operation::Set ? (now && now->value == value) : !now.has_value();
    QStringList others;
    for (const KnobChange &change : knobDiff(script, edited))
        if (change.name != name)
            others.append(change.text());
    if (!asAsked || !others.isEmpty()) {
        result.error = QStringLiteral("%1 %2 would not read back as asked%3: nothing changed")
                           .arg(operationName(operation), name,
                                others.isEmpty() ? QString()
                                                 : QStringLiteral(" (it would also change %1)")
                                                       .arg(others.join(QStringLiteral(", "))));
        return result;
    }
    result.ok = true;
    result.bytes = bytes;
    return result;
}

} // namespace opsdeck::knobs
