#include "metricscommand.h"

#include "boundedget.h"
#include "clioutput.h"
#include "expositionparser.h"
#include "pagesummary.h"

#include <QEventLoop>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkProxy>
#include <QNetworkReply>

namespace opsdeck::cli {

namespace {

struct Fetched
{
    QByteArray body;
    int exitCode = ExitOk; ///< not ExitOk when the page could not be had
};

Fetched fetchUrl(const QUrl &url, int timeoutMs, qint64 maxBytes)
{
    QNetworkAccessManager network;
    network.setProxy(QNetworkProxy::NoProxy);
    QNetworkReply *reply = probes::boundedGet(network, url, timeoutMs, maxBytes);
    QEventLoop loop;
    QObject::connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
    loop.exec();
    reply->deleteLater();
    Fetched fetched;
    const QString shown = url.toDisplayString(QUrl::RemoveUserInfo);
    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    const QString problem = probes::replyProblem(reply);
    if (!problem.isEmpty() || status != 200) {
        printError(QStringLiteral("%1: %2").arg(
            shown, problem.isEmpty() ? QStringLiteral("HTTP %1").arg(status) : problem));
        fetched.exitCode = probes::replyTimedOut(reply) ? ExitUnknown : ExitFailed;
    } else {
        fetched.body = reply->readAll();
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
    parser.addOption({QStringLiteral("timeout"),
                      QStringLiteral("Timeout for a URL in ms (default 10000)."),
                      QStringLiteral("ms")});
    if (!parseArguments(parser, arguments))
        return ExitBadInput;
    const QStringList positional = parser.positionalArguments();
    if (positional.size() != 2 || positional.at(0) != u"summarize") {
        printError(QStringLiteral("usage: opsdeck-cli metrics summarize FILE|URL [--json]"));
        return ExitBadInput;
    }
    const QString source = positional.at(1);
    const metrics::ParseOptions options;
    QByteArray body;
    if (source.contains(u"://")) {
        const QUrl url(source);
        if (!usableUrl(url)) {
            printError(
                QStringLiteral("'%1' is not an http(s) URL with a host and a port from 1 to 65535")
                    .arg(url.toDisplayString(QUrl::RemoveUserInfo)));
            return ExitBadInput;
        }
        const int timeoutMs = parser.isSet(QStringLiteral("timeout"))
                                  ? parser.value(QStringLiteral("timeout")).toInt()
                                  : 10000;
        if (timeoutMs <= 0) {
            printError(
                QStringLiteral("bad --timeout '%1'").arg(parser.value(QStringLiteral("timeout"))));
            return ExitBadInput;
        }
        const Fetched fetched =
            fetchUrl(QUrl(source), timeoutMs, static_cast<qint64>(options.maxPageBytes));
        if (fetched.exitCode != ExitOk)
            return fetched.exitCode;
        body = fetched.body;
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
    const auto summary = metrics::summarizePage(page);
    QJsonArray warnings;
    for (const auto &warning : page.warnings)
        warnings.append(
            QJsonObject{{QStringLiteral("line"), warning.line},
                        {QStringLiteral("reason"), QString::fromStdString(warning.reason)}});
    const QJsonObject result{
        {QStringLiteral("source"),
         source.contains(u"://") ? QUrl(source).toDisplayString(QUrl::RemoveUserInfo) : source},
        {QStringLiteral("families"), static_cast<qint64>(page.families.size())},
        {QStringLiteral("series"), static_cast<qint64>(page.samples.size())},
        {QStringLiteral("warnings"), warnings},
        {QStringLiteral("running"), optionalNumber(summary.running)},
        {QStringLiteral("waiting"), optionalNumber(summary.waiting)},
        {QStringLiteral("kv_usage"), optionalNumber(summary.kvUsage)},
        {QStringLiteral("generation_tokens_total"), optionalNumber(summary.generationTokensTotal)},
        {QStringLiteral("prompt_tokens_total"), optionalNumber(summary.promptTokensTotal)}};
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
        for (const auto &warning : page.warnings)
            printLine(QStringLiteral("warning: %1:%2: %3")
                          .arg(source)
                          .arg(warning.line)
                          .arg(QString::fromStdString(warning.reason)));
    }
    return page.samples.empty() ? ExitFailed : ExitOk;
}

} // namespace opsdeck::cli
