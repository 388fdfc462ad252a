#include "servermessage.h"

#include <QJsonDocument>
#include <QJsonObject>

using namespace Qt::StringLiterals;

namespace opsdeck::probes {

namespace {

constexpr qsizetype maxChars = 200;

} // namespace

QString serverMessage(const QByteArray &body)
{
    const QJsonObject object = QJsonDocument::fromJson(body).object();
    const QJsonValue error = object.value(u"error"_s);
    QString message =
        error.isString() ? error.toString() : error.toObject().value(u"message"_s).toString();
    if (message.isEmpty())
        message = object.value(u"message"_s).toString();
    return message.simplified().left(maxChars);
}

} // namespace opsdeck::probes
