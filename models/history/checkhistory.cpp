#include "checkhistory.h"

#include "checkjson.h"

#include <QJsonDocument>

using namespace Qt::StringLiterals;

namespace opsdeck::history {

namespace {

std::optional<qint64> addWithMarker(HistoryStore &store, const CheckRecord &check,
                                    const QString &text)
{
    const std::optional<qint64> id = store.addCheck(check);
    if (!id)
        return std::nullopt;
    Marker marker;
    marker.timeMs = check.timeMs;
    marker.kind = check.kind;
    marker.text = text;
    marker.link = u"check:%1"_s.arg(*id);
    if (!store.addMarker(marker))
        return std::nullopt;
    return id;
}

CheckRecord batchRecord(const probes::BatchCheckResult &result)
{
    return {0, result.startedAtMs, u"batch-check"_s, result.cluster,
            QJsonDocument(probes::batchCheckToJson(result)).toJson(QJsonDocument::Compact)};
}

} // namespace

std::optional<qint64> recordBatchCheck(HistoryStore &store, const probes::BatchCheckResult &result)
{
    return addWithMarker(store, batchRecord(result), result.summary());
}

std::optional<qint64> recordVerification(HistoryStore &store,
                                         const probes::VerificationResult &result)
{
    if (result.batchRan() && !store.addCheck(batchRecord(result.batch)))
        return std::nullopt;
    QString text;
    const int failed = result.failedStage();
    if (result.passed)
        text = u"verification %1: passed in %2 s"_s.arg(result.cluster)
                   .arg(result.ms / 1000.0, 0, 'f', 1);
    else if (failed >= 0)
        text = u"verification %1: failed at %2: %3"_s.arg(
            result.cluster, result.stages[failed].name, result.stages[failed].detail);
    else
        text = u"verification %1: not completed: %2"_s.arg(
            result.cluster, result.cancelled ? u"cancelled"_s : result.error);
    const CheckRecord check{
        0, result.startedAtMs, u"verification"_s, result.cluster,
        QJsonDocument(probes::verificationToJson(result)).toJson(QJsonDocument::Compact)};
    return addWithMarker(store, check, text);
}

} // namespace opsdeck::history
