#include "servescript.h"

#include "bashlexer.h"

#include <QHash>
#include <QRegularExpression>
#include <QSet>

namespace opsdeck::knobs {

namespace {

QString quotingName(unsigned bits)
{
    switch (bits) {
    case 0:
    case unsigned(Quoting::Bare):
        return QStringLiteral("none");
    case unsigned(Quoting::Single):
        return QStringLiteral("single");
    case unsigned(Quoting::Double):
        return QStringLiteral("double");
    case unsigned(Quoting::AnsiC):
        return QStringLiteral("ansi-c");
    default:
        return QStringLiteral("mixed");
    }
}

bool isBare(const BashWord &word, const char *text)
{
    return word.quoting == unsigned(Quoting::Bare) && word.value == text;
}

// `NAME=...` (or `NAME+=...`, appended: read as the new part).
bool isAssignmentWord(const BashWord &word)
{
    if (word.equals < 0)
        return false;
    QByteArray name = word.value.left(word.valueIndex - 1);
    if (name.endsWith('+'))
        name.chop(1);
    return ServeScript::isVariableName(QString::fromLatin1(name));
}

QString assignedName(const BashWord &word)
{
    QByteArray name = word.value.left(word.valueIndex - 1);
    if (name.endsWith('+'))
        name.chop(1);
    return QString::fromLatin1(name);
}

// Commands that never start a server, whatever flags they carry.
bool isNeverLaunch(const QByteArray &program)
{
    static const QSet<QByteArray> names{
        "echo", "printf", "test",    "[",     "[[",    "cd",   "mkdir", "source", ".",
        "set",  "export", "declare", "local", "unset", "read", "trap",  "wait",   "sleep",
        "curl", "wget",   "cat",     "tee",   "rm",    "cp",   "mv",    "ln",     "touch"};
    return names.contains(program);
}

} // namespace

QString Knob::kindName(Kind kind)
{
    switch (kind) {
    case Kind::Export:
        return QStringLiteral("export");
    case Kind::Assignment:
        return QStringLiteral("assignment");
    case Kind::Flag:
        return QStringLiteral("flag");
    case Kind::EnvPrefix:
        return QStringLiteral("env-prefix");
    }
    return {};
}

bool ServeScript::isVariableName(const QString &name)
{
    static const QRegularExpression pattern(QStringLiteral("^[A-Za-z_][A-Za-z0-9_]*$"));
    return pattern.match(name).hasMatch();
}

bool ServeScript::isFlagName(const QString &name)
{
    static const QRegularExpression pattern(QStringLiteral("^--[A-Za-z0-9][A-Za-z0-9_.-]*$"));
    return pattern.match(name).hasMatch();
}

ServeScript ServeScript::parse(const QByteArray &bytes)
{
    ServeScript script;
    script.m_bytes = bytes;
    const BashLexer lexer(bytes);
    script.m_commands = lexer.commands();
    script.m_warnings = lexer.warnings();
    const qsizetype crlfLines = bytes.count("\r\n");
    script.m_crlf = crlfLines > 0 && crlfLines * 2 >= bytes.count('\n');
    if (crlfLines > 0)
        script.m_warnings.append(
            {0, QStringLiteral("the file has CRLF line endings (%1 of %2 lines): bash reads every "
                               "value with a trailing \\r, and `#!/usr/bin/env bash\\r` fails")
                    .arg(crlfLines)
                    .arg(bytes.count('\n'))});
    script.chooseLaunchCommand();
    for (int i = 0; i < script.m_commands.size(); ++i)
        script.readCommand(i);
    script.readLaunchFlags();
    return script;
}

void ServeScript::chooseLaunchCommand()
{
    int preferred = -1;
    int any = -1;
    for (int i = 0; i < m_commands.size(); ++i) {
        const QVector<BashWord> &words = m_commands.at(i).words;
        int k = 0;
        while (k < words.size() && isAssignmentWord(words.at(k)))
            ++k;
        if (k >= words.size() || isNeverLaunch(words.at(k).value))
            continue;
        bool hasFlag = false;
        bool named = false;
        for (int j = k; j < words.size(); ++j) {
            const QByteArray &value = words.at(j).value;
            hasFlag = hasFlag || (value.startsWith("--") && value.size() > 2);
            named = named || value.contains("sglang") || value.contains("vllm") ||
                    value.contains("launch_server");
        }
        if (!hasFlag)
            continue;
        any = i;
        if (named)
            preferred = i;
    }
    m_launch = preferred >= 0 ? preferred : any;
}

void ServeScript::addSetting(Knob knob, const BashWord &word)
{
    knob.line = word.line;
    knob.references = word.references;
    knob.quoted =
        quotingName(knob.isFlag() && word.equals < 0 ? word.quoting : word.quotingAfterEquals);
    // A CRLF line: bash reads the `\r` into the value; shown without it, said once per line.
    if (knob.valueEnd > knob.valueStart && knob.valueEnd < m_bytes.size() &&
        m_bytes.at(knob.valueEnd - 1) == '\r' && m_bytes.at(knob.valueEnd) == '\n') {
        --knob.valueEnd;
        if (knob.value.endsWith(QLatin1Char('\r')))
            knob.value.chop(1);
        m_warnings.append({knob.line, QStringLiteral("CRLF line ending: bash reads %1 as \"%2\\r\"")
                                          .arg(knob.name, knob.value)});
    }
    if (m_execLine > 0 && knob.kind != Knob::Kind::Flag)
        m_warnings.append({knob.line, QStringLiteral("%1 is set after `exec` on line %2: bash "
                                                     "never gets here")
                                          .arg(knob.name)
                                          .arg(m_execLine)});
    if (knob.conditional)
        m_warnings.append(
            {knob.line, QStringLiteral("%1 is set inside if/while/case or a function: bash may "
                                       "not run it")
                            .arg(knob.name)});
    if (knob.kind != Knob::Kind::EnvPrefix) {
        for (int i = m_settings.size() - 1; i >= 0; --i) {
            const Knob &earlier = m_settings.at(i);
            if (earlier.name == knob.name && earlier.kind != Knob::Kind::EnvPrefix &&
                m_unsetOn.at(i) == 0) {
                m_warnings.append({knob.line, QStringLiteral("%1 is set again (also on line %2): "
                                                             "the last value wins")
                                                  .arg(knob.name)
                                                  .arg(earlier.line)});
                break;
            }
        }
    }
    m_settings.append(knob);
    m_unsetOn.append(0);
}

void ServeScript::readCommand(int index)
{
    const BashCommand &command = m_commands.at(index);
    const QVector<BashWord> &words = command.words;
    const bool conditional = command.depth > 0 || command.conditional;
    auto variable = [&](int w, Knob::Kind kind, bool exported) {
        const BashWord &word = words.at(w);
        if (command.subshell && kind != Knob::Kind::EnvPrefix) {
            m_warnings.append({word.line, QStringLiteral("%1 is set in a pipeline or in the "
                                                         "background: a subshell, bash does not "
                                                         "keep it")
                                              .arg(assignedName(word))});
            return;
        }
        Knob knob;
        knob.name = assignedName(word);
        knob.value = QString::fromUtf8(word.value.mid(word.valueIndex));
        knob.kind = kind;
        knob.exported = exported;
        knob.conditional = conditional;
        knob.wordStart = word.start;
        knob.wordEnd = word.end;
        knob.valueStart = word.equals + 1;
        knob.valueEnd = word.end;
        knob.command = index;
        knob.word = w;
        if (word.value.at(word.valueIndex - 2) == '+')
            m_warnings.append({word.line, QStringLiteral("%1+= appends to an earlier value: "
                                                         "shown is the appended part")
                                              .arg(knob.name)});
        addSetting(knob, word);
    };
    int k = 0;
    while (k < words.size() && isAssignmentWord(words.at(k)))
        ++k;
    if (k == words.size()) { // only assignments: shell variables
        for (int w = 0; w < k; ++w)
            variable(w, Knob::Kind::Assignment, m_allExport);
        return;
    }
    // `builtin export K=V` and `command export K=V` are the same builtin.
    while (k + 1 < words.size() &&
           (isBare(words.at(k), "builtin") || isBare(words.at(k), "command")))
        ++k;
    const BashWord &program = words.at(k);
    const bool declares = isBare(program, "declare") || isBare(program, "typeset") ||
                          isBare(program, "local") || isBare(program, "readonly");
    if (isBare(program, "export") || declares) {
        bool exports = !declares || m_allExport;
        bool unexports = false; // `export -n K`
        for (int w = k + 1; w < words.size(); ++w) {
            const BashWord &word = words.at(w);
            if (word.value.startsWith('-') && word.equals < 0) {
                exports = exports || word.value.contains('x');
                unexports = unexports || (!declares && word.value.contains('n'));
                continue;
            }
            if (unexports) {
                const QString name = QString::fromUtf8(
                    word.value.left(word.equals >= 0 ? word.valueIndex - 1 : word.value.size()));
                for (int i = m_settings.size() - 1; i >= 0; --i)
                    if (m_settings.at(i).name == name && m_unsetOn.at(i) == 0) {
                        m_settings[i].exported = false;
                        if (m_settings.at(i).kind == Knob::Kind::Export)
                            m_settings[i].kind = Knob::Kind::Assignment;
                        break;
                    }
                if (word.equals < 0)
                    continue;
                variable(w, Knob::Kind::Assignment, false);
                continue;
            }
            if (isAssignmentWord(word)) {
                variable(w, exports ? Knob::Kind::Export : Knob::Kind::Assignment, exports);
            } else if (exports) { // `export K`: an earlier K=V goes into the environment
                const QString name = QString::fromUtf8(word.value);
                for (int i = m_settings.size() - 1; i >= 0; --i)
                    if (m_settings.at(i).name == name && m_unsetOn.at(i) == 0) {
                        m_settings[i].exported = true;
                        break;
                    }
            }
        }
        return;
    }
    if (isBare(program, "unset")) {
        for (int w = k + 1; w < words.size(); ++w) {
            const QString name = QString::fromUtf8(words.at(w).value);
            for (int i = 0; i < m_settings.size(); ++i)
                if (m_settings.at(i).name == name && m_unsetOn.at(i) == 0)
                    m_unsetOn[i] = words.at(w).line;
        }
        return;
    }
    if (isBare(program, "set")) {
        for (int w = k + 1; w < words.size(); ++w) {
            const QByteArray &option = words.at(w).value;
            if (option.startsWith('-') && option.contains('a'))
                m_allExport = true;
            else if (option.startsWith('+') && option.contains('a'))
                m_allExport = false;
            else if (option == "allexport" && w > 0)
                m_allExport = words.at(w - 1).value == "-o";
        }
        return;
    }
    // A command: leading assignments, and those after `env`, are for it alone.
    for (int w = 0; w < k; ++w)
        variable(w, Knob::Kind::EnvPrefix, true);
    for (int w = k; w < words.size(); ++w) {
        const BashWord &word = words.at(w);
        if (isBare(word, "exec")) {
            if (command.depth == 0 && m_execLine == 0)
                m_execLine = word.line;
            continue;
        }
        const bool wrapper = isBare(word, "env") || isBare(word, "nohup") ||
                             isBare(word, "setsid") || isBare(word, "command");
        if (wrapper || (w > k && word.value.startsWith('-')))
            continue;
        if (w > k && isAssignmentWord(word)) {
            variable(w, Knob::Kind::EnvPrefix, true);
            continue;
        }
        break; // the program
    }
}

int ServeScript::flagsStart(const QStringList &words)
{
    for (int i = 0; i < words.size(); ++i) {
        if (words.at(i) == u"-m" && i + 1 < words.size())
            return i + 2;
        if (words.at(i).endsWith(u".py") || (words.at(i) == u"serve" && i > 0))
            return i + 1;
    }
    return 1;
}

bool ServeScript::isFlagValue(const QString &word)
{
    static const QRegularExpression negativeNumber(QStringLiteral("^-[0-9.]"));
    return !word.startsWith(u'-') || negativeNumber.match(word).hasMatch();
}

void ServeScript::readLaunchFlags()
{
    if (m_launch < 0)
        return;
    const QVector<BashWord> &words = m_commands.at(m_launch).words;
    QStringList values;
    for (const BashWord &word : words)
        values.append(QString::fromUtf8(word.value));
    const int from = flagsStart(values);
    for (int j = from; j < words.size(); ++j) {
        const BashWord &word = words.at(j);
        if (word.value == "--")
            break;
        if (!word.value.startsWith("--") || word.value.size() <= 2)
            continue;
        Knob knob;
        knob.kind = Knob::Kind::Flag;
        knob.command = m_launch;
        knob.word = j;
        knob.wordStart = word.start;
        knob.conditional = m_commands.at(m_launch).depth > 0;
        const BashWord *valueWord = &word;
        if (word.equals >= 0) {
            knob.name = QString::fromUtf8(word.value.left(word.valueIndex - 1));
            knob.value = QString::fromUtf8(word.value.mid(word.valueIndex));
            knob.valueStart = word.equals + 1;
            knob.valueEnd = word.end;
            knob.wordEnd = word.end;
            addSetting(knob, word);
            continue;
        }
        knob.name = QString::fromUtf8(word.value);
        const BashWord *next = j + 1 < words.size() ? &words.at(j + 1) : nullptr;
        if (next && isFlagValue(QString::fromUtf8(next->value))) {
            valueWord = next;
            knob.value = QString::fromUtf8(next->value);
            knob.valueStart = next->start;
            knob.valueEnd = next->end;
            knob.wordEnd = next->end;
            ++j;
        } else {
            knob.hasValue = false;
            knob.valueStart = knob.valueEnd = knob.wordEnd = word.end;
        }
        Knob placed = knob;
        addSetting(placed, *valueWord);
        m_settings.last().line = word.line;
    }
}

QVector<Knob> ServeScript::knobs() const
{
    QHash<QString, int> last;
    for (int i = 0; i < m_settings.size(); ++i) {
        const Knob &knob = m_settings.at(i);
        if (m_unsetOn.at(i) != 0)
            continue;
        if (knob.kind == Knob::Kind::EnvPrefix && knob.command != m_launch)
            continue;
        last.insert(knob.name, i);
    }
    QVector<Knob> effective;
    for (int i = 0; i < m_settings.size(); ++i) {
        const Knob &knob = m_settings.at(i);
        if (last.value(knob.name, -1) == i)
            effective.append(knob);
    }
    return effective;
}

std::optional<Knob> ServeScript::knob(const QString &name) const
{
    for (const Knob &knob : knobs())
        if (knob.name == name)
            return knob;
    return std::nullopt;
}

QVector<Knob> ServeScript::settingsOf(const QString &name) const
{
    QVector<Knob> found;
    for (int i = 0; i < m_settings.size(); ++i)
        if (m_settings.at(i).name == name && m_unsetOn.at(i) == 0)
            found.append(m_settings.at(i));
    return found;
}

} // namespace opsdeck::knobs
