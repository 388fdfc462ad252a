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
                                  {QStringLiteral("cancelled"), stage.cancelled},
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

QJsonObject diagnosisToJson(const Diagnosis &diagnosis)
{
    QJsonArray rounds;
    for (int round : diagnosis.rounds)
        rounds.append(round);
    QJsonArray rows;
    for (const Diagnosis::EvidenceRow &row : diagnosis.evidenceRows)
        rows.append(
            QJsonObject{{QStringLiteral("path"), row.path},
                        {QStringLiteral("entry"), row.entry},
                        {QStringLiteral("fresh"), QJsonArray::fromStringList(row.fresh)},
                        {QStringLiteral("reused"), QJsonArray::fromStringList(row.reused)}});
    return QJsonObject{
        {QStringLiteral("hop"), diagnosis.hop},
        {QStringLiteral("role"), diagnosis.roleName()},
        {QStringLiteral("evidence"), diagnosis.evidence},
        {QStringLiteral("caution"), diagnosis.caution},
        {QStringLiteral("decode_running_max"),
         orNull(diagnosis.decodeRunningMax, diagnosis.decodeRunningMax >= 0)},
        {QStringLiteral("decode_waiting_max"),
         orNull(diagnosis.decodeWaitingMax, diagnosis.decodeWaitingMax >= 0)},
        {QStringLiteral("headline"), diagnosis.headline()},
        {QStringLiteral("path"), diagnosis.pathName},
        {QStringLiteral("rounds"), rounds},
        {QStringLiteral("pooling_proxies"), QJsonArray::fromStringList(diagnosis.poolingProxies)},
        {QStringLiteral("stall_s"), orNull(rounded(diagnosis.stallS), diagnosis.stallS >= 0)},
        {QStringLiteral("stall_lower_bound_s"),
         orNull(diagnosis.stallLowerBoundS, diagnosis.stallLowerBoundS >= 0)},
        {QStringLiteral("first_stall_ms"), diagnosis.firstStallMs},
        {QStringLiteral("last_stall_ms"), diagnosis.lastStallMs},
        {QStringLiteral("round_times"), QJsonArray::fromStringList(diagnosis.roundTimes)},
        {QStringLiteral("evidence_rows"), rows},
    };
}

Diagnosis diagnosisFromJson(const QJsonObject &json)
{
    const auto strings = [](const QJsonValue &value) {
        QStringList list;
        for (const QJsonValue &item : value.toArray())
            list << item.toString();
        return list;
    };
    Diagnosis diagnosis;
    diagnosis.hop = json.value(QStringLiteral("hop")).toString();
    diagnosis.role = inventory::roleFromName(json.value(QStringLiteral("role")).toString())
                         .value_or(inventory::Role::Proxy);
    diagnosis.evidence = json.value(QStringLiteral("evidence")).toString();
    diagnosis.caution = json.value(QStringLiteral("caution")).toString();
    diagnosis.decodeRunningMax = json.value(QStringLiteral("decode_running_max")).toDouble(-1);
    diagnosis.decodeWaitingMax = json.value(QStringLiteral("decode_waiting_max")).toDouble(-1);
    diagnosis.pathName = json.value(QStringLiteral("path")).toString();
    for (const QJsonValue &round : json.value(QStringLiteral("rounds")).toArray())
        diagnosis.rounds << round.toInt();
    diagnosis.poolingProxies = strings(json.value(QStringLiteral("pooling_proxies")));
    diagnosis.stallS = json.value(QStringLiteral("stall_s")).toDouble(-1);
    diagnosis.stallLowerBoundS = json.value(QStringLiteral("stall_lower_bound_s")).toDouble(-1);
    diagnosis.firstStallMs = json.value(QStringLiteral("first_stall_ms")).toInteger();
    diagnosis.lastStallMs = json.value(QStringLiteral("last_stall_ms")).toInteger();
    diagnosis.roundTimes = strings(json.value(QStringLiteral("round_times")));
    for (const QJsonValue &value : json.value(QStringLiteral("evidence_rows")).toArray()) {
        const QJsonObject row = value.toObject();
        diagnosis.evidenceRows << Diagnosis::EvidenceRow{
            row.value(QStringLiteral("path")).toString(),
            row.value(QStringLiteral("entry")).toString(),
            strings(row.value(QStringLiteral("fresh"))),
            strings(row.value(QStringLiteral("reused")))};
    }
    return diagnosis;
}

} // namespace opsdeck::probes
