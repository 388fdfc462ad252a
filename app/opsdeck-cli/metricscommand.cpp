#include "metricscommand.h"

#include "clioutput.h"
#include "engineprofile.h"
#include "expositionparser.h"
#include "numberoption.h"
#include "pagesummary.h"
#include "probeengine.h"
#include "profileoption.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonObject>

namespace opsdeck::cli {

namespace {

struct Fetched
{
    QByteArray body;
    QByteArray contentType; ///< the answer's Content-Type header; it chooses the format
    int exitCode = ExitOk;  ///< not ExitOk when the page could not be had
};

Fetched fetchUrl(const QUrl &url, int timeoutMs, qint64 maxBytes)
{
    // The one HTTP client, as the poller fetches a page: no proxy from the
    // environment, the whole answer within the timeout, at most maxBytes.
    probes::ProbeEngine engine;
    probes::ProbeRequest request;
    request.url = url;
    request.timeoutMs = timeoutMs;
    request.maxBytes = maxBytes;
    const probes::ProbeResult answer = engine.run(request);
    Fetched fetched;
    const QString shown = url.toDisplayString(QUrl::RemoveUserInfo);
    const QString problem = probes::transferProblem(answer, timeoutMs, maxBytes);
    if (!problem.isEmpty() || answer.status != 200) {
        printError(QStringLiteral("%1: %2").arg(
            shown, problem.isEmpty() ? QStringLiteral("HTTP %1").arg(answer.status) : problem));
        fetched.exitCode = answer.timedOut ? ExitUnknown : ExitFailed;
    } else {
        fetched.body = answer.body;
        fetched.contentType = answer.contentType;
    }
    return fetched;
}

/// A URL worth fetching: http or https with a host and a port in range.
bool usableUrl(const QUrl &url)
{
    return url.isValid() && (url.scheme() == u"http" || url.scheme() == u"https") &&
           !url.host().isEmpty() && url.port(80) >= 1 && url.port(80) <= 65535;
}

QJsonValue optionalNumber(const std::optional<double> &value)
{
    return value ? QJsonValue(*value) : QJsonValue();
}

QString fromStd(std::string_view text)
{
    return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size()));
}

/// The values added with the engine profiles, after the original keys. Every
/// key is always present (null when the page does not carry the concept), so a
/// script can tell "absent" from "not asked".
void addProfileValues(QJsonObject &result, const metrics::PageSummary &summary)
{
    result.insert(QStringLiteral("profile"),
                  summary.profile == metrics::Profile::Auto
                      ? QJsonValue()
                      : QJsonValue(fromStd(metrics::EngineProfile::name(summary.profile))));
    const std::pair<const char *, const std::optional<double> *> values[] = {
        {"kv_usage_max", &summary.kvUsageMax},
        {"ttft_mean_s", &summary.ttftMeanS},
        {"itl_mean_s", &summary.itlMeanS},
        {"e2e_mean_s", &summary.e2eMeanS},
        {"queue_time_mean_s", &summary.queueTimeMeanS},
        {"prefill_bootstrap_queue", &summary.prefillBootstrapQueue},
        {"prefill_inflight_queue", &summary.prefillInflightQueue},
        {"decode_prealloc_queue", &summary.decodePreallocQueue},
        {"decode_transfer_queue", &summary.decodeTransferQueue},
        {"bootstrap_failures_total", &summary.bootstrapFailuresTotal},
        {"transfer_failures_total", &summary.transferFailuresTotal},
        {"workers_healthy", &summary.workersHealthy},
        {"workers_total", &summary.workersTotal},
        {"prefix_cache_hit_ratio", &summary.prefixCacheHitRatio}};
    for (const auto &[key, value] : values)
        result.insert(QString::fromLatin1(key), optionalNumber(*value));
    // Which name each value was read from, e.g. kv_usage -> vllm:gpu_cache_usage_perc.
    QJsonObject sources;
    for (const auto &source : summary.sources)
        sources.insert(fromStd(metrics::EngineProfile::key(source.which)),
                       QJsonObject{{QStringLiteral("family"), fromStd(source.family)},
                                   {QStringLiteral("profile"),
                                    fromStd(metrics::EngineProfile::name(source.profile))},
                                   {QStringLiteral("note"), fromStd(source.note)}});
    result.insert(QStringLiteral("sources"), sources);
    QJsonArray notes;
    for (const auto &warning : summary.warnings)
        notes.append(fromStd(warning));
    result.insert(QStringLiteral("aggregation_warnings"), notes);
}

} // namespace

int runMetrics(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("metrics summarize FILE|URL: parse one Prometheus exposition page and "
                       "print the values the console shows."));
    parser.addPositionalArgument(QStringLiteral("summarize"), QStringLiteral("The action."));
    parser.addPositionalArgument(QStringLiteral("source"),
                                 QStringLiteral("A file, or an http(s) URL."));
    parser.addOption(jsonOption());
    parser.addOption(profileOption());
    parser.addOption({QStringLiteral("timeout"),
                      QStringLiteral("Timeout for a URL in ms (default 10000)."),
                      QStringLiteral("ms")});
    if (!parseArguments(parser, arguments))
        return ExitBadInput;
    const QStringList positional = parser.positionalArguments();
    if (positional.size() != 2 || positional.at(0) != u"summarize") {
        printError(QStringLiteral("usage: opsdeck-cli metrics summarize FILE|URL "
                                  "[--profile auto|sglang|vllm|router] [--json]"));
        return ExitBadInput;
    }
    const auto chosenProfile = readProfile(parser);
    if (!chosenProfile)
        return ExitBadInput;
    const metrics::Profile profile = *chosenProfile;
    const QString source = positional.at(1);
    // What output says the page came from: never a URL's user:password.
    const QString shown =
        source.contains(u"://") ? QUrl(source).toDisplayString(QUrl::RemoveUserInfo) : source;
    metrics::ParseOptions options;
    QByteArray body;
    if (source.contains(u"://")) {
        const QUrl url(source);
        if (!usableUrl(url)) {
            printError(
                QStringLiteral("'%1' is not an http(s) URL with a host and a port from 1 to 65535")
                    .arg(withoutUserInfo(source)));
            return ExitBadInput;
        }
        const std::optional<int> timeout = wholeNumberOption(
            parser, QStringLiteral("timeout"), 1, 600000, 10000, QStringLiteral("milliseconds"));
        if (!timeout)
            return ExitBadInput;
        const int timeoutMs = *timeout;
        const Fetched fetched =
            fetchUrl(QUrl(source), timeoutMs, static_cast<qint64>(options.maxPageBytes));
        if (fetched.exitCode != ExitOk)
            return fetched.exitCode;
        body = fetched.body;
        options.contentType = fetched.contentType.toStdString();
    } else {
        QFile file(source);
        // A FIFO or a device would block or never end: only regular files.
        if (QFileInfo(source).exists() && !QFileInfo(source).isFile()) {
            printError(QStringLiteral("%1: not a regular file").arg(source));
            return ExitBadInput;
        }
        if (!file.open(QIODevice::ReadOnly)) {
            printError(QStringLiteral("%1: %2").arg(source, file.errorString()));
            return ExitBadInput;
        }
        body = file.readAll();
    }

    const auto page = metrics::ExpositionParser::parse(
        std::string_view(body.constData(), static_cast<std::size_t>(body.size())), options);
    const auto summary = metrics::summarizePage(page, profile);
    QJsonArray warnings;
    for (const auto &warning : page.warnings)
        warnings.append(
            QJsonObject{{QStringLiteral("line"), warning.line},
                        {QStringLiteral("reason"), QString::fromStdString(warning.reason)}});
    QJsonObject result{
        {QStringLiteral("source"), shown},
        {QStringLiteral("families"), static_cast<qint64>(page.families.size())},
        {QStringLiteral("series"), static_cast<qint64>(page.samples.size())},
        {QStringLiteral("warnings"), warnings},
        {QStringLiteral("running"), optionalNumber(summary.running)},
        {QStringLiteral("waiting"), optionalNumber(summary.waiting)},
        {QStringLiteral("kv_usage"), optionalNumber(summary.kvUsage)},
        {QStringLiteral("generation_tokens_total"), optionalNumber(summary.generationTokensTotal)},
        {QStringLiteral("prompt_tokens_total"), optionalNumber(summary.promptTokensTotal)}};
    addProfileValues(result, summary);
    if (parser.isSet(QStringLiteral("json"))) {
        printJson(QJsonDocument(result));
    } else {
        for (const QString &key :
             {QStringLiteral("families"), QStringLiteral("series"), QStringLiteral("running"),
              QStringLiteral("waiting"), QStringLiteral("kv_usage"),
              QStringLiteral("generation_tokens_total"), QStringLiteral("prompt_tokens_total")}) {
            const QJsonValue value = result.value(key);
            printLine(QStringLiteral("%1: %2").arg(
                key,
                value.isNull() ? QStringLiteral("—") : QString::number(value.toDouble(), 'g', 12)));
        }
        // New lines go after the original ones, which scripts may read by position.
        printLine(QStringLiteral("profile: %1")
                      .arg(result.value(QStringLiteral("profile")).isNull()
                               ? QStringLiteral("—")
                               : result.value(QStringLiteral("profile")).toString()));
        for (const QString &key :
             {QStringLiteral("kv_usage_max"), QStringLiteral("ttft_mean_s"),
              QStringLiteral("itl_mean_s"), QStringLiteral("e2e_mean_s"),
              QStringLiteral("queue_time_mean_s"), QStringLiteral("prefill_bootstrap_queue"),
              QStringLiteral("prefill_inflight_queue"), QStringLiteral("decode_prealloc_queue"),
              QStringLiteral("decode_transfer_queue"), QStringLiteral("bootstrap_failures_total"),
              QStringLiteral("transfer_failures_total"), QStringLiteral("workers_healthy"),
              QStringLiteral("workers_total"), QStringLiteral("prefix_cache_hit_ratio")}) {
            const QJsonValue value = result.value(key);
            if (!value.isNull())
                printLine(
                    QStringLiteral("%1: %2").arg(key, QString::number(value.toDouble(), 'g', 12)));
        }
        for (const auto &note : summary.warnings)
            printLine(QStringLiteral("note: %1").arg(fromStd(note)));
        for (const auto &warning : page.warnings)
            printLine(QStringLiteral("warning: %1:%2: %3")
                          .arg(shown)
                          .arg(warning.line)
                          .arg(QString::fromStdString(warning.reason)));
    }
    return page.samples.empty() ? ExitFailed : ExitOk;
}

} // namespace opsdeck::cli
