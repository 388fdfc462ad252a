#include "bashlexer.h"

#include <QRegularExpression>

namespace opsdeck::knobs {

namespace {

bool isNameStart(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

bool isNameChar(char c)
{
    return isNameStart(c) || (c >= '0' && c <= '9');
}

bool isDigits(const QByteArray &text)
{
    if (text.isEmpty())
        return false;
    for (char c : text)
        if (c < '0' || c > '9')
            return false;
    return true;
}

// The escapes of $'...' (bash(1), QUOTING); \c, \u and \U are kept as written.
qsizetype ansiCEscape(const QByteArray &s, qsizetype i, QByteArray &out)
{
    const char c = s.at(i);
    switch (c) {
    case 'a':
        out += '\a';
        return i + 1;
    case 'b':
        out += '\b';
        return i + 1;
    case 'e':
    case 'E':
        out += '\x1b';
        return i + 1;
    case 'f':
        out += '\f';
        return i + 1;
    case 'n':
        out += '\n';
        return i + 1;
    case 'r':
        out += '\r';
        return i + 1;
    case 't':
        out += '\t';
        return i + 1;
    case 'v':
        out += '\v';
        return i + 1;
    case '\\':
    case '\'':
    case '"':
    case '?':
        out += c;
        return i + 1;
    case 'x': {
        int value = 0;
        qsizetype j = i + 1;
        for (; j < s.size() && j < i + 3 && std::isxdigit(static_cast<unsigned char>(s.at(j))); ++j)
            value = value * 16 + QByteArray(1, s.at(j)).toInt(nullptr, 16);
        if (j == i + 1) {
            out += "\\x";
            return j;
        }
        out += char(value);
        return j;
    }
    default:
        if (c >= '0' && c <= '7') {
            int value = 0;
            qsizetype j = i;
            for (; j < s.size() && j < i + 3 && s.at(j) >= '0' && s.at(j) <= '7'; ++j)
                value = value * 8 + (s.at(j) - '0');
            out += char(value & 0xff);
            return j;
        }
        out += '\\';
        out += c;
        return i + 1;
    }
}

} // namespace

BashLexer::BashLexer(const QByteArray &script) : m_script(script)
{
    run();
}

void BashLexer::countLines(qsizetype from, qsizetype to)
{
    for (qsizetype i = from; i < to && i < m_script.size(); ++i)
        if (m_script.at(i) == '\n')
            ++m_line;
}

bool BashLexer::startWord(qsizetype at)
{
    if (m_inWord)
        return false;
    m_inWord = true;
    m_word = BashWord{};
    m_word.start = at;
    m_word.line = m_line;
    m_afterEquals = false;
    m_bareSoFar = true;
    return true;
}

void BashLexer::mark(Quoting quoting)
{
    m_word.quoting |= unsigned(quoting);
    if (m_afterEquals)
        m_word.quotingAfterEquals |= unsigned(quoting);
    if (quoting != Quoting::Bare)
        m_bareSoFar = false;
}

void BashLexer::endWord()
{
    if (!m_inWord)
        return;
    m_inWord = false;
    m_word.lastLine = m_line;
    if (m_word.equals < 0)
        m_word.quotingAfterEquals = m_word.quoting;
    if (m_hereDocumentWord) {
        m_hereDocuments.last().delimiter = m_word.value;
        m_hereDocumentWord = false;
        return;
    }
    if (m_dropWord) {
        m_dropWord = false;
        return;
    }
    m_command.words.append(m_word);
}

void BashLexer::endCommand()
{
    endWord();
    QVector<BashWord> &words = m_command.words;
    // Reserved words open and close compound commands; the rest of a `for`,
    // `case` or `select` header is not a command.
    while (!words.isEmpty()) {
        const QByteArray first = words.first().value;
        const bool bare = words.first().quoting == unsigned(Quoting::Bare);
        if (!bare)
            break;
        if (first == "if" || first == "while" || first == "until" || first == "{") {
            ++m_depth;
            words.removeFirst();
        } else if (first == "then" || first == "else" || first == "elif" || first == "do" ||
                   first == "!" || first == "time") {
            words.removeFirst();
        } else if (first == "fi" || first == "done" || first == "esac" || first == "}") {
            m_depth = std::max(0, m_depth - 1);
            words.removeFirst();
        } else if (first == "for" || first == "case" || first == "select") {
            ++m_depth;
            words.clear();
        } else {
            break;
        }
    }
    if (!words.isEmpty()) {
        m_command.depth = m_depth + m_subshells;
        m_commands.append(m_command);
    }
    m_command = BashCommand{};
    m_command.subshell = m_nextInPipeline;
    m_nextInPipeline = false;
}

qsizetype BashLexer::matchingClose(qsizetype from, char open, char close) const
{
    // From just after an opening `open`: the offset of its `close`, skipping
    // quoted text and nested pairs; -1 when the script ends first.
    int depth = 1;
    for (qsizetype i = from; i < m_script.size(); ++i) {
        const char c = m_script.at(i);
        if (c == '\\') {
            ++i;
        } else if (c == '\'' && open != '{') {
            const qsizetype end = m_script.indexOf('\'', i + 1);
            if (end < 0)
                return -1;
            i = end;
        } else if (c == open) {
            ++depth;
        } else if (c == close && --depth == 0) {
            return i;
        }
    }
    return -1;
}

void BashLexer::readSingleQuoted(qsizetype &i)
{
    qsizetype end = m_script.indexOf('\'', i + 1);
    if (end < 0) {
        m_warnings.append({m_line, QStringLiteral("unterminated single quote: bash -n fails")});
        end = m_script.size();
    }
    m_word.value += m_script.mid(i + 1, end - i - 1);
    mark(Quoting::Single);
    countLines(i, end);
    i = end + 1;
}

void BashLexer::readAnsiC(qsizetype &i)
{
    qsizetype j = i + 2;
    const qsizetype first = j;
    while (j < m_script.size() && m_script.at(j) != '\'') {
        if (m_script.at(j) == '\\' && j + 1 < m_script.size())
            j = ansiCEscape(m_script, j + 1, m_word.value);
        else
            m_word.value += m_script.at(j++);
    }
    if (j >= m_script.size())
        m_warnings.append({m_line, QStringLiteral("unterminated $'...': bash -n fails")});
    mark(Quoting::AnsiC);
    countLines(first, j);
    i = j + 1;
}

void BashLexer::readExpansion(qsizetype &i)
{
    // `$` at i: kept as written, and named in the word's references.
    const qsizetype n = m_script.size();
    qsizetype end = i + 1;
    QString reference;
    bool unterminated = false;
    if (i + 1 < n && m_script.at(i + 1) == '{') {
        const qsizetype close = matchingClose(i + 2, '{', '}');
        unterminated = close < 0;
        end = close < 0 ? n : close + 1;
        qsizetype k = i + 2;
        while (k < end && isNameChar(m_script.at(k)))
            ++k;
        reference = QString::fromUtf8(m_script.mid(i + 2, k - i - 2));
        if (reference.isEmpty())
            reference = QString::fromUtf8(m_script.mid(i, end - i));
    } else if (i + 1 < n && m_script.at(i + 1) == '(') {
        const qsizetype close = matchingClose(i + 2, '(', ')');
        unterminated = close < 0;
        end = close < 0 ? n : close + 1;
        reference = QString::fromUtf8(m_script.mid(i, end - i));
    } else if (i + 1 < n && isNameStart(m_script.at(i + 1))) {
        end = i + 2;
        while (end < n && isNameChar(m_script.at(end)))
            ++end;
        reference = QString::fromUtf8(m_script.mid(i + 1, end - i - 1));
    } else if (i + 1 < n && QByteArray("0123456789@*#?$!-").contains(m_script.at(i + 1))) {
        end = i + 2;
        reference = QString::fromUtf8(m_script.mid(i, 2));
    } else {
        m_word.value += '$'; // a lone `$` is a character
        ++i;
        return;
    }
    if (unterminated)
        m_warnings.append({m_line, QStringLiteral("unterminated expansion: bash -n fails")});
    m_word.value += m_script.mid(i, end - i);
    if (!m_word.references.contains(reference))
        m_word.references.append(reference);
    countLines(i, end);
    m_bareSoFar = false;
    i = end;
}

void BashLexer::readBackquoted(qsizetype &i)
{
    qsizetype end = i + 1;
    while (end < m_script.size() && m_script.at(end) != '`')
        end += m_script.at(end) == '\\' ? 2 : 1;
    end = std::min(end, m_script.size() - 1);
    m_word.value += m_script.mid(i, end - i + 1);
    const QString reference = QString::fromUtf8(m_script.mid(i, end - i + 1));
    if (!m_word.references.contains(reference))
        m_word.references.append(reference);
    countLines(i, end);
    m_bareSoFar = false;
    i = end + 1;
}

void BashLexer::readDoubleQuoted(qsizetype &i)
{
    ++i;
    mark(Quoting::Double);
    const qsizetype n = m_script.size();
    while (i < n && m_script.at(i) != '"') {
        const char c = m_script.at(i);
        if (c == '\\' && i + 1 < n && QByteArray("$`\"\\\n").contains(m_script.at(i + 1))) {
            if (m_script.at(i + 1) == '\n')
                ++m_line; // backslash-newline disappears inside double quotes too
            else
                m_word.value += m_script.at(i + 1);
            i += 2;
        } else if (c == '$') {
            readExpansion(i);
        } else if (c == '`') {
            readBackquoted(i);
        } else {
            if (c == '\n')
                ++m_line;
            m_word.value += c;
            ++i;
        }
    }
    if (i >= n)
        m_warnings.append(
            {m_word.line, QStringLiteral("unterminated double quote: bash -n fails")});
    ++i;
}

void BashLexer::readRedirection(qsizetype &i)
{
    // A number right before `<` or `>` names a file descriptor, not a word.
    if (m_inWord && m_word.quoting == unsigned(Quoting::Bare) && isDigits(m_word.value) &&
        m_word.end == i)
        m_inWord = false;
    else
        endWord();
    if (m_script.mid(i, 2) == "<<" && m_script.mid(i, 3) != "<<<") {
        i += 2;
        HereDocument here;
        if (i < m_script.size() && m_script.at(i) == '-') {
            here.stripTabs = true;
            ++i;
        }
        m_hereDocuments.append(here);
        m_hereDocumentWord = true;
        return;
    }
    while (i < m_script.size() && QByteArray("<>&|").contains(m_script.at(i)))
        ++i;
    m_dropWord = true;
}

void BashLexer::skipHereDocuments(qsizetype &i)
{
    // After the newline that ends a command with here-documents: their bodies.
    for (const HereDocument &here : std::as_const(m_hereDocuments)) {
        bool closed = false;
        while (i < m_script.size() && !closed) {
            qsizetype end = m_script.indexOf('\n', i);
            if (end < 0)
                end = m_script.size();
            QByteArray line = m_script.mid(i, end - i);
            if (here.stripTabs)
                while (line.startsWith('\t'))
                    line.remove(0, 1);
            closed = line == here.delimiter;
            i = end + 1;
            ++m_line;
        }
    }
    m_hereDocuments.clear();
}

void BashLexer::run()
{
    const QByteArray &s = m_script;
    const qsizetype n = s.size();
    qsizetype i = 0;
    while (i < n) {
        const char c = s.at(i);
        if (c == '\\' && i + 1 < n && s.at(i + 1) == '\n') {
            i += 2; // the line continues
            ++m_line;
            continue;
        }
        if (!m_inWord && c == '#') {
            while (i < n && s.at(i) != '\n')
                ++i;
            continue;
        }
        if (c == ' ' || c == '\t') {
            endWord();
            ++i;
            continue;
        }
        if (c == '\n') {
            endCommand();
            ++m_line;
            ++i;
            if (!m_hereDocuments.isEmpty())
                skipHereDocuments(i);
            continue;
        }
        if (c == '<' || c == '>' || (c == '&' && i + 1 < n && s.at(i + 1) == '>')) {
            readRedirection(i);
            continue;
        }
        if (c == ';' || c == '&' || c == '|') {
            const bool doubled = i + 1 < n && s.at(i + 1) == c;
            if (c == '|' && !doubled) { // a pipeline: both sides are subshells
                m_command.subshell = true;
                m_nextInPipeline = true;
            } else if (c == '&' && !doubled) {
                m_command.subshell = true; // in the background
            }
            const bool conditionalNext = doubled && c != ';';
            endCommand();
            m_command.conditional = conditionalNext; // the command that follows
            ++i;
            while (i < n && (s.at(i) == c || (c == '|' && s.at(i) == '&')))
                ++i;
            continue;
        }
        if (c == '(' && !(m_inWord && m_word.equals >= 0 && m_word.end == i)) {
            endCommand();
            ++m_subshells;
            ++i;
            continue;
        }
        if (c == ')') {
            endCommand();
            m_subshells = std::max(0, m_subshells - 1);
            ++i;
            continue;
        }
        startWord(i);
        if (c == '(') { // NAME=( ... ): an array, kept as written
            const qsizetype close = matchingClose(i + 1, '(', ')');
            const qsizetype end = close < 0 ? n : close + 1;
            m_word.value += s.mid(i, end - i);
            m_warnings.append({m_line, QStringLiteral("an array: its elements are not read")});
            countLines(i, end);
            m_bareSoFar = false;
            i = end;
        } else if (c == '\\') {
            if (i + 1 < n)
                m_word.value += s.at(i + 1);
            mark(Quoting::Bare);
            i += 2;
        } else if (c == '\'') {
            readSingleQuoted(i);
        } else if (c == '$' && i + 1 < n && s.at(i + 1) == '\'') {
            readAnsiC(i);
        } else if (c == '$' && i + 1 < n && s.at(i + 1) == '"') {
            ++i; // $"...": a translated string, read as "..."
            readDoubleQuoted(i);
        } else if (c == '"') {
            readDoubleQuoted(i);
        } else if (c == '$') {
            readExpansion(i);
            mark(Quoting::Bare);
        } else if (c == '`') {
            readBackquoted(i);
            mark(Quoting::Bare);
        } else {
            if (c == '=' && m_word.equals < 0 && m_bareSoFar) {
                m_word.equals = i;
                m_word.valueIndex = m_word.value.size() + 1;
                m_afterEquals = true;
            } else {
                mark(Quoting::Bare);
            }
            m_word.value += c;
            ++i;
        }
        m_word.end = std::min(i, n);
    }
    endCommand();
}

} // namespace opsdeck::knobs
