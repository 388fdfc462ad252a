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
        else if (c.category() == QChar::Other_Format)
            out += QStringLiteral("\\u%1").arg(int(code), 4, 16, QChar(u'0'));
        else
            out += c;
    }
    return out;
}

} // namespace opsdeck::logging
