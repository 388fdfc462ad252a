#include "inputprompt.h"

#include "bashscript.h"

#include <QRegularExpression>

namespace opsdeck::remote {

namespace {

constexpr qsizetype maxPromptLength = 160;

QString shortened(const QString &text)
{
    const QString trimmed = text.trimmed();
    return trimmed.size() <= maxPromptLength
               ? trimmed
               : QStringLiteral("…") + trimmed.right(maxPromptLength - 1);
}

QString promptIn(const QByteArray &bytes, qint64 dropped)
{
    static const QRegularExpression yesNo(
        QStringLiteral(
            R"([^\n]*?(\[[yYnN]/[yYnN]\]|\[(yes|no)/(yes|no)\]|\((yes|no|y|n)/(yes|no|y|n)\)))"),
        QRegularExpression::CaseInsensitiveOption);
    const QString text = QString::fromUtf8(bytes);
    if (const QRegularExpressionMatch match = yesNo.match(text); match.hasMatch())
        return shortened(match.captured(0));
    if (dropped > 0 || text.isEmpty() || text.endsWith(u'\n'))
        return {};
    const QString last = text.mid(text.lastIndexOf(u'\n') + 1).trimmed();
    if (last.endsWith(u'?') || last.endsWith(u':') || last.endsWith(u'>'))
        return shortened(last);
    return {};
}

} // namespace

QString inputPromptIn(const CommandResult &result)
{
    const QString out = promptIn(result.standardOutput, result.standardOutputDropped);
    return out.isEmpty() ? promptIn(result.standardError, result.standardErrorDropped) : out;
}

void readOutcomeFromOutput(CommandResult &result)
{
    markScriptNotRun(result);
    if (result.outcome != CommandResult::Outcome::FailedToStart)
        result.inputPrompt = inputPromptIn(result);
}

} // namespace opsdeck::remote
