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
    QString line = text.simplified();
    line.removeIf([](QChar c) { return c.category() == QChar::Other_Control; });
    return line.left(maxChars);
}

} // namespace opsdeck::probes
