#include "servermessage.h"

#include <QJsonDocument>
#include <QJsonObject>

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

QByteArray redactedSecret(const QByteArray &text, const QByteArray &secret)
{
    if (secret.isEmpty() || !text.contains(secret))
        return text;
    return QByteArray(text).replace(secret, "[API key]");
}

QString redactedSecret(const QString &text, const QByteArray &secret)
{
    if (secret.isEmpty())
        return text;
    return QString(text).replace(QString::fromUtf8(secret), u"[API key]"_s);
}

} // namespace opsdeck::probes
