#include "shellquote.h"

namespace opsdeck::shell {

QString singleQuoted(const QString &text)
{
    QString quoted = text;
    quoted.replace(QLatin1Char('\''), QStringLiteral("'\\''"));
    return QLatin1Char('\'') + quoted + QLatin1Char('\'');
}

QByteArray singleQuoted(const QByteArray &bytes)
{
    QByteArray quoted = bytes;
    quoted.replace('\'', "'\\''");
    return '\'' + quoted + '\'';
}

QString bashWord(const QString &text, QuoteStyle preferred)
{
    if (text.isEmpty())
        return preferred == QuoteStyle::Double ? QStringLiteral("\"\"") : QStringLiteral("''");
    bool bare = true;
    bool doubleSafe = true;
    for (const QChar c : text) {
        const bool word = c.isLetterOrNumber() && c.unicode() < 128;
        if (!word && !QStringLiteral("_./:,@%+=-").contains(c))
            bare = false;
        if (QStringLiteral("$`\"\\!").contains(c) || c.unicode() < 32 || c.unicode() == 127)
            doubleSafe = false;
    }
    if (preferred == QuoteStyle::Bare && bare)
        return text;
    if (preferred == QuoteStyle::Double && doubleSafe)
        return QLatin1Char('"') + text + QLatin1Char('"');
    return singleQuoted(text);
}

} // namespace opsdeck::shell
