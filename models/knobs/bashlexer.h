#pragma once

#include "bashword.h"
#include "scriptwarning.h"

#include <QByteArray>
#include <QVector>

namespace opsdeck::knobs {

/// Splits a bash script into simple commands and words the way bash's parser
/// does (bash(1), QUOTING and DEFINITIONS), without expanding anything: quotes
/// removed, backslash-newline joins lines, `#` at the start of a word begins a
/// comment, `;` `&` `|` `&&` `||` and newlines end a command, redirections
/// and here-documents are left out, `$'...'` is decoded. `\r` is an ordinary
/// character, as for bash (a CRLF script's values end in `\r`).
///
/// Not followed (said in warnings() where met): aliases, arrays' elements,
/// `eval`, and the values of `source`d files. Compound commands (if, while,
/// for, case, `{ }`, subshells) only raise BashCommand::depth.
/// Pure; any thread. Cost: one pass, O(size).
class BashLexer
{
public:
    explicit BashLexer(const QByteArray &script);

    const QVector<BashCommand> &commands() const { return m_commands; }
    const QVector<ScriptWarning> &warnings() const { return m_warnings; }

private:
    void run();
    bool startWord(qsizetype at);
    void endWord();
    void endCommand();
    void mark(Quoting quoting);
    void readSingleQuoted(qsizetype &i);
    void readDoubleQuoted(qsizetype &i);
    void readAnsiC(qsizetype &i);
    void readExpansion(qsizetype &i);
    void readBackquoted(qsizetype &i);
    void readRedirection(qsizetype &i);
    void skipHereDocuments(qsizetype &i);
    qsizetype matchingClose(qsizetype from, char open, char close) const;
    void countLines(qsizetype from, qsizetype to);

    const QByteArray &m_script;
    QVector<BashCommand> m_commands;
    QVector<ScriptWarning> m_warnings;
    BashCommand m_command;
    BashWord m_word;
    bool m_inWord = false;
    bool m_afterEquals = false;
    bool m_bareSoFar = true;
    bool m_dropWord = false;         ///< the word is a redirection's target
    bool m_hereDocumentWord = false; ///< the word is a here-document's delimiter
    struct HereDocument
    {
        QByteArray delimiter;
        bool stripTabs = false;
    };
    QVector<HereDocument> m_hereDocuments;
    int m_line = 1;
    int m_depth = 0;
    int m_subshells = 0;
    bool m_nextInPipeline = false; ///< the command after a `|`
};

} // namespace opsdeck::knobs
