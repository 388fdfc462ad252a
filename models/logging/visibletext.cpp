#include "visibletext.h"

namespace opsdeck::logging {

QString visibleText(const QString &text)
{
    QString out;
    out.reserve(text.size());
    for (const QChar c : text) {
        const char16_t code = c.unicode();
        if (code < 0x20 || code == 0x7f)
            out += QStringLiteral("\\x%1").arg(int(code), 2, 16, QChar(u'0'));
        // C1 controls (U+0080..U+009F: a terminal may obey U+009B as ESC [),
        // format characters (bidi overrides) and the line and paragraph separators.
        else if ((code >= 0x80 && code <= 0x9f) || c.category() == QChar::Other_Format ||
                 code == 0x2028 || code == 0x2029)
            out += QStringLiteral("\\u%1").arg(int(code), 4, 16, QChar(u'0'));
        else
            out += c;
    }
    return out;
}

} // namespace opsdeck::logging
