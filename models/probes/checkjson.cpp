#include "checkjson.h"

#include <QJsonArray>
#include <cmath>

namespace opsdeck::probes {

namespace {

QJsonValue orNull(double value, bool known)
{
    return known ? QJsonValue(value) : QJsonValue();
}

QJsonValue textOrNull(const QString &text)
{
    return text.isEmpty() ? QJsonValue() : QJsonValue(text);
}

// Three decimals: ms precision for seconds, µs for ms; keeps the JSON short.
double rounded(double value)
{
    return std::round(value * 1000.0) / 1000.0;
}

} // namespace

QJsonObject batchCheckToJson(const BatchCheckResult &result)
{
    QJsonArray samples;
    for (const RunningSample &sample : result.samples)
        samples.append(QJsonArray{sample.offsetMs, sample.running});
    QJsonArray requests;
    for (const BatchRequestOutcome &request : result.requests) {
        requests.append(QJsonObject{
            {QStringLiteral("index"), request.index},
            {QStringLiteral("status"), request.status},
            {QStringLiteral("ttft_ms"), orNull(rounded(request.ttftMs), request.ttftMs >= 0)},
            {QStringLiteral("total_ms"), rounded(request.totalMs)},
            {QStringLiteral("end_ms"), rounded(request.endOffsetMs)},
            {QStringLiteral("local_port"), request.localPort},
            {QStringLiteral("error"), textOrNull(request.error)}});
    }
    const double p50 = result.ttftPercentileMs(0.5);
    const double p99 = result.ttftPercentileMs(0.99);
    const double max = result.ttftPercentileMs(1.0);
    const bool hasVerdict = result.verdict != BatchVerdict::None;
    return QJsonObject{
        {QStringLiteral("verdict"),
         hasVerdict ? QJsonValue(batchVerdictName(result.verdict)) : QJsonValue()},
        {QStringLiteral("n"), result.n},
        {QStringLiteral("peak_running"), orNull(result.peakRunning, result.peakRunning >= 0)},
        {QStringLiteral("wall_s"), rounded(result.wallS)},
        {QStringLiteral("single_s"), rounded(result.singleS)},
        {QStringLiteral("failures"), result.failures},
        {QStringLiteral("ttft_p50_ms"), orNull(rounded(p50), p50 >= 0)},
        {QStringLiteral("ttft_p99_ms"), orNull(rounded(p99), p99 >= 0)},
        {QStringLiteral("ttft_max_ms"), orNull(rounded(max), max >= 0)},
        {QStringLiteral("cluster"), result.cluster},
        {QStringLiteral("path"), result.path},
        {QStringLiteral("entry"), result.entryService},
        {QStringLiteral("model"), result.model},
        {QStringLiteral("max_tokens"), result.maxTokens},
        {QStringLiteral("started_at_ms"), result.startedAtMs},
        {QStringLiteral("reason"), result.reason},
        {QStringLiteral("error"), textOrNull(result.error)},
        {QStringLiteral("confirmation_required"), result.confirmationRequired},
        {QStringLiteral("timed_out"), result.timedOut},
        {QStringLiteral("cancelled"), result.cancelled},
        {QStringLiteral("samples_source"), result.samplesSource},
        {QStringLiteral("samples"), samples},
        {QStringLiteral("requests"), requests},
    };
}

QJsonObject verificationToJson(const VerificationResult &result)
{
    QJsonArray stages;
    for (const VerificationStage &stage : result.stages) {
        stages.append(QJsonObject{{QStringLiteral("name"), stage.name},
                                  {QStringLiteral("criterion"), stage.criterion},
                                  {QStringLiteral("ran"), stage.ran},
                                  {QStringLiteral("passed"), stage.passed},
                                  {QStringLiteral("ms"), rounded(stage.ms)},
                                  {QStringLiteral("detail"), stage.detail}});
    }
    const bool batchRan = result.batchRan();
    return QJsonObject{
        {QStringLiteral("cluster"), result.cluster},
        {QStringLiteral("passed"), result.passed},
        {QStringLiteral("ms"), rounded(result.ms)},
        {QStringLiteral("started_at_ms"), result.startedAtMs},
        {QStringLiteral("error"), textOrNull(result.error)},
        {QStringLiteral("confirmation_required"), result.confirmationRequired},
        {QStringLiteral("cancelled"), result.cancelled},
        {QStringLiteral("stages"), stages},
        {QStringLiteral("keepalive_skipped"), result.keepAliveSkipped},
        {QStringLiteral("batch"),
         batchRan ? QJsonValue(batchCheckToJson(result.batch)) : QJsonValue()},
    };
}

} // namespace opsdeck::probes
