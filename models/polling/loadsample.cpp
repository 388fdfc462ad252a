#include "loadsample.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace opsdeck::probes {

namespace {

// Walks any shape (a list of ranks, {"loads": [...]}, one object) so that a
// version that wraps the ranks differently still yields the sum.
void collectRanks(const QJsonValue &value, LoadSample &sample, int &ranks)
{
    if (value.isArray()) {
        for (const QJsonValue &item : value.toArray())
            collectRanks(item, sample, ranks);
        return;
    }
    if (!value.isObject())
        return;
    const QJsonObject object = value.toObject();
    const QJsonValue running = object.value(QStringLiteral("num_running_reqs"));
    if (running.isDouble()) {
        sample.running += running.toDouble();
        sample.waiting += object.value(QStringLiteral("num_waiting_reqs")).toDouble();
        ++ranks;
        return;
    }
    for (const QJsonValue &child : object)
        collectRanks(child, sample, ranks);
}

} // namespace

std::optional<LoadSample> parseLoads(const QByteArray &json)
{
    QJsonParseError error{};
    const QJsonDocument document = QJsonDocument::fromJson(json, &error);
    if (error.error != QJsonParseError::NoError)
        return std::nullopt;
    LoadSample sample;
    int ranks = 0;
    collectRanks(document.isArray() ? QJsonValue(document.array()) : QJsonValue(document.object()),
                 sample, ranks);
    if (ranks == 0)
        return std::nullopt;
    sample.source = QStringLiteral("/v1/loads");
    return sample;
}

} // namespace opsdeck::probes
