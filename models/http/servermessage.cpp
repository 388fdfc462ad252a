#include "servermessage.h"

#include <QJsonArray>
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

namespace {

// Every string of a JSON value redacted as it reads once decoded (a key
// written as `\u0073\u006b…` is the key); true when one changed.
bool redactStrings(QJsonValue &value, const QByteArray &secret)
{
    bool changed = false;
    if (value.isString()) {
        const QString redacted = redactedSecret(value.toString(), secret);
        changed = redacted != value.toString();
        value = redacted;
    } else if (value.isArray()) {
        QJsonArray array = value.toArray();
        for (qsizetype i = 0; i < array.size(); ++i) {
            QJsonValue item = array.at(i);
            if (redactStrings(item, secret)) {
                array[i] = item;
                changed = true;
            }
        }
        value = array;
    } else if (value.isObject()) {
        QJsonObject object = value.toObject();
        for (auto it = object.begin(); it != object.end(); ++it) {
            QJsonValue item = it.value();
            if (redactStrings(item, secret)) {
                it.value() = item;
                changed = true;
            }
        }
        value = object;
    }
    return changed;
}

} // namespace

QByteArray redactedSecret(const QByteArray &text, const QByteArray &secret)
{
    if (secret.isEmpty())
        return text;
    const QString decoded = QString::fromUtf8(text);
    const QString redacted = redactedSecret(decoded, secret);
    // A JSON body is read decoded: redacted there too, and written again.
    QJsonParseError parse;
    const QJsonDocument document = QJsonDocument::fromJson(redacted.toUtf8(), &parse);
    if (parse.error == QJsonParseError::NoError && (document.isObject() || document.isArray())) {
        QJsonValue root =
            document.isObject() ? QJsonValue(document.object()) : QJsonValue(document.array());
        if (redactStrings(root, secret))
            return (root.isObject() ? QJsonDocument(root.toObject())
                                    : QJsonDocument(root.toArray()))
                .toJson(QJsonDocument::Compact);
    }
    // Bytes left as they were (invalid UTF-8 included) unless the key was there.
    return redacted == decoded ? text : redacted.toUtf8();
}

} // namespace opsdeck::probes
