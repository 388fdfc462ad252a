#include "knobcatalog.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonParseError>

namespace opsdeck::knobs {

QString KnobInfo::help() const
{
    QString text = meaning;
    text += QStringLiteral(" Default: %1%2.")
                .arg(defaultValue, unit.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(unit));
    if (!sides.isEmpty())
        text += QStringLiteral(" Read by %1.").arg(sides.join(QStringLiteral(", ")));
    return text;
}

std::optional<KnobCatalog> KnobCatalog::fromJson(const QByteArray &json, QString *error)
{
    QJsonParseError parse;
    const QJsonDocument document = QJsonDocument::fromJson(json, &parse);
    if (parse.error != QJsonParseError::NoError) {
        *error = QStringLiteral("at byte %1: %2").arg(parse.offset).arg(parse.errorString());
        return std::nullopt;
    }
    KnobCatalog catalog;
    const QJsonArray knobs = document.object().value(QStringLiteral("knobs")).toArray();
    for (int i = 0; i < knobs.size(); ++i) {
        const QJsonObject o = knobs.at(i).toObject();
        KnobInfo info;
        info.name = o.value(QStringLiteral("name")).toString();
        info.meaning = o.value(QStringLiteral("meaning")).toString();
        info.defaultValue = o.value(QStringLiteral("default")).toString();
        info.unit = o.value(QStringLiteral("unit")).toString();
        for (const QJsonValue &side : o.value(QStringLiteral("sides")).toArray())
            info.sides.append(side.toString());
        if (info.name.isEmpty() || info.meaning.isEmpty() || info.defaultValue.isEmpty() ||
            info.sides.isEmpty() || catalog.m_knobs.contains(info.name)) {
            *error = QStringLiteral("knobs[%1] (%2): needs a unique name, a meaning, a default "
                                    "and the sides that read it")
                         .arg(i)
                         .arg(info.name);
            return std::nullopt;
        }
        catalog.m_order.append(info.name);
        catalog.m_knobs.insert(info.name, info);
    }
    return catalog;
}

const KnobCatalog &KnobCatalog::builtIn()
{
    static const KnobCatalog catalog = [] {
        QFile file(QStringLiteral(":/knobs/catalog.json"));
        QString error;
        std::optional<KnobCatalog> read;
        if (file.open(QIODevice::ReadOnly))
            read = fromJson(file.readAll(), &error);
        return read.value_or(KnobCatalog{});
    }();
    return catalog;
}

std::optional<KnobInfo> KnobCatalog::info(const QString &name) const
{
    const auto found = m_knobs.constFind(name);
    return found == m_knobs.cend() ? std::nullopt : std::optional<KnobInfo>(*found);
}

} // namespace opsdeck::knobs
