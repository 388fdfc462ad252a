#include "chatapi.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

using namespace Qt::StringLiterals;

namespace opsdeck::probes {

QByteArray ChatApi::body(const QString &model, bool stream, int maxTokens)
{
    // Built by hand to keep the key order people expect (QJsonObject sorts keys).
    QByteArray body = "{\"model\":";
    body += QJsonDocument(QJsonArray{model}).toJson(QJsonDocument::Compact).mid(1).chopped(1);
    body += ",\"messages\":[{\"role\":\"user\",\"content\":\"ping\"}],\"max_tokens\":";
    body += QByteArray::number(maxTokens);
    if (stream)
        body += ",\"stream\":true";
    body += '}';
    return body;
}

QString ChatApi::modelFromModels(const QByteArray &body)
{
    const QJsonArray data = QJsonDocument::fromJson(body).object().value(u"data"_s).toArray();
    for (const QJsonValue &entry : data) {
        const QString id = entry.toObject().value(u"id"_s).toString();
        if (!id.isEmpty())
            return id;
    }
    return {};
}

bool ChatApi::hasChoices(const QByteArray &body)
{
    return !QJsonDocument::fromJson(body).object().value(u"choices"_s).toArray().isEmpty();
}

} // namespace opsdeck::probes
