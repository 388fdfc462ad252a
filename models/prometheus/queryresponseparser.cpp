#include "queryresponseparser.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <cmath>
#include <limits>
#include <optional>

namespace opsdeck::prometheus {

namespace {

std::optional<double> valueOf(const QString &text)
{
    // Go's strconv.FormatFloat spellings, which Prometheus writes.
    if (text == QLatin1String("NaN"))
        return std::numeric_limits<double>::quiet_NaN();
    if (text == QLatin1String("+Inf"))
        return std::numeric_limits<double>::infinity();
    if (text == QLatin1String("-Inf"))
        return -std::numeric_limits<double>::infinity();
    bool ok = false;
    const double value = text.toDouble(&ok);
    if (!ok)
        return std::nullopt;
    return value;
}

/// `[1700000000.123, "42"]` -> point; nullopt when it is not that shape.
std::optional<PromPoint> pointOf(const QJsonValue &pair)
{
    const QJsonArray array = pair.toArray();
    if (array.size() != 2 || !array.at(0).isDouble() || !array.at(1).isString())
        return std::nullopt;
    const auto value = valueOf(array.at(1).toString());
    if (!value)
        return std::nullopt;
    return PromPoint{std::llround(array.at(0).toDouble() * 1000.0), *value};
}

QMap<QString, QString> labelsOf(const QJsonObject &metric)
{
    QMap<QString, QString> labels;
    for (auto it = metric.begin(); it != metric.end(); ++it)
        labels.insert(it.key(), it.value().toString());
    return labels;
}

QueryResult failure(const QString &server, const QString &text)
{
    QueryResult result;
    result.error = QStringLiteral("Prometheus at %1: %2").arg(server, text);
    return result;
}

/// The `result` member for each resultType; false when it is malformed.
bool readResult(const QString &type, const QJsonValue &result, QVector<PromSeries> &out)
{
    if (type == QLatin1String("scalar") || type == QLatin1String("string")) {
        // A string result's value is not a number: keep the time, value NaN.
        const auto point = type == QLatin1String("scalar") ? pointOf(result) : std::nullopt;
        if (type == QLatin1String("scalar") && !point)
            return false;
        PromSeries series;
        if (point)
            series.points.append(*point);
        out.append(series);
        return true;
    }
    if (!result.isArray())
        return false;
    const bool matrix = type == QLatin1String("matrix");
    for (const QJsonValue &item : result.toArray()) {
        const QJsonObject object = item.toObject();
        PromSeries series;
        series.labels = labelsOf(object.value(QLatin1String("metric")).toObject());
        if (matrix) {
            const QJsonArray values = object.value(QLatin1String("values")).toArray();
            series.points.reserve(values.size());
            for (const QJsonValue &pair : values) {
                const auto point = pointOf(pair);
                if (!point)
                    return false;
                series.points.append(*point);
            }
        } else {
            const auto point = pointOf(object.value(QLatin1String("value")));
            if (!point)
                return false;
            series.points.append(*point);
        }
        out.append(series);
    }
    return true;
}

} // namespace

QueryResult QueryResponseParser::parse(const QByteArray &body, int httpStatus,
                                       const QString &server)
{
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(body, &parseError);
    const QJsonObject root = document.object();
    const QString status = root.value(QLatin1String("status")).toString();
    if (status == QLatin1String("error")) {
        const QString type = root.value(QLatin1String("errorType")).toString();
        const QString message = root.value(QLatin1String("error")).toString();
        return failure(server,
                       QStringLiteral("%1%2 (HTTP %3)")
                           .arg(type.isEmpty() ? QString() : type + QStringLiteral(": "), message)
                           .arg(httpStatus));
    }
    if (httpStatus != 200)
        return failure(server, QStringLiteral("HTTP %1").arg(httpStatus));
    if (parseError.error != QJsonParseError::NoError)
        return failure(server, QStringLiteral("answer is not JSON: %1 at byte %2")
                                   .arg(parseError.errorString())
                                   .arg(parseError.offset));
    if (status != QLatin1String("success"))
        return failure(server, QStringLiteral("answer has no \"status\":\"success\""));
    const QJsonObject data = root.value(QLatin1String("data")).toObject();
    QueryResult result;
    result.resultType = data.value(QLatin1String("resultType")).toString();
    if (!readResult(result.resultType, data.value(QLatin1String("result")), result.series))
        return failure(server, QStringLiteral("malformed %1 result")
                                   .arg(result.resultType.isEmpty() ? QStringLiteral("(untyped)")
                                                                    : result.resultType));
    for (const QJsonValue &warning : root.value(QLatin1String("warnings")).toArray())
        result.warnings.append(warning.toString());
    result.ok = true;
    return result;
}

} // namespace opsdeck::prometheus
