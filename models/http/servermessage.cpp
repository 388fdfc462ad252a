#include "servermessage.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

using namespace Qt::StringLiterals;

namespace opsdeck::probes {

QString serverMessage(const QByteArray &body)
{
    const QJsonObject object = QJsonDocument::fromJson(body).object();
    const QJsonValue error = object.value(u"error"_s);
    QString message =
        error.isString() ? error.toString() : error.toObject().value(u"message"_s).toString();
    if (message.isEmpty())
        message = object.value(u"message"_s).toString();
    return printableLine(message);
}

QString printableLine(const QString &text, qsizetype maxChars)
{
    QString line = text;
    line.removeIf([](QChar c) {
        return c.category() == QChar::Other_Control || c.category() == QChar::Other_Format;
    });
    line = line.simplified();
    if (line.size() > maxChars)
        line.truncate(maxChars > 0 && line.at(maxChars - 1).isHighSurrogate() ? maxChars - 1
                                                                              : maxChars);
    return line;
}

QString redactedSecret(const QString &text, const QByteArray &secret)
{
    if (secret.isEmpty())
        return text;
    const QString key = QString::fromUtf8(secret);
    QString redacted = QString(text).replace(key, u"[API key]"_s);
    // The key split by what a display drops or a JSON decoder turns into such
    // a character (a newline, a zero-width space, `\u200b`): once shown, it
    // reads whole again, so it is the key.
    static const QString gap =
        uR"((?:\\(?:[nrtbf]|u[0-9a-fA-F]{4})|[\s\x{0}-\x{1f}\x{7f}-\x{9f}\p{Cf}])*)"_s;
    QString pattern;
    for (const QChar c : key)
        pattern += (pattern.isEmpty() ? QString() : gap) + QRegularExpression::escape(QString(c));
    const QRegularExpression split(pattern);
    if (split.isValid())
        redacted.replace(split, u"[API key]"_s);
    return redacted;
}

QByteArray redactedSecret(const QByteArray &text, const QByteArray &secret)
{
    if (secret.isEmpty())
        return text;
    const QString decoded = QString::fromUtf8(text);
    const QString redacted = redactedSecret(decoded, secret);
    // Bytes left as they were (invalid UTF-8 included) unless the key was there.
    return redacted == decoded ? text : redacted.toUtf8();
}

} // namespace opsdeck::probes
