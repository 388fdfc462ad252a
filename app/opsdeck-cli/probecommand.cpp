#include "probecommand.h"

#include "cancelonsignal.h"
#include "chatapi.h"
#include "clioutput.h"
#include "numberoption.h"
#include "probeengine.h"
#include "probeoutput.h"
#include "secretstore.h"

#include <QFileInfo>
#include <QJsonArray>
#include <QJsonObject>
#include <chrono>
#include <cmath>
#include <future>
#include <optional>
#include <thread>

namespace opsdeck::cli {

namespace {

using probes::ConnectionMode;
using probes::ProbeKind;
using probes::ProbeRequest;
using probes::ProbeResult;

constexpr int kMaxCount = 10'000;
constexpr double kMaxIdleGapS = 600; // ProbeEngine::Limits::maxIdleGapS

bool interrupted()
{
    return threads::CancelOnSignal::signalled();
}

/// Sleeps for `seconds` in short slices; false when interrupted meanwhile.
bool idleGap(double seconds)
{
    const auto until = std::chrono::steady_clock::now() +
                       std::chrono::milliseconds(static_cast<qint64>(seconds * 1000));
    while (!interrupted() && std::chrono::steady_clock::now() < until)
        std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(
            until - std::chrono::steady_clock::now(), std::chrono::milliseconds(50)));
    return !interrupted();
}

/// Runs `request` on `engine`, cancelling it when SIGINT/SIGTERM arrives.
ProbeResult runInterruptibly(probes::ProbeEngine &engine, const ProbeRequest &request)
{
    auto promise = std::make_shared<std::promise<ProbeResult>>();
    auto future = promise->get_future();
    const quint64 id =
        engine.submit(request, [promise](const ProbeResult &r) { promise->set_value(r); });
    bool cancelled = false;
    while (future.wait_for(std::chrono::milliseconds(50)) != std::future_status::ready) {
        if (interrupted() && !cancelled) {
            engine.cancel(id);
            cancelled = true;
        }
    }
    return future.get();
}

/// The model to ask for: the first id of GET <origin>/v1/models (the path
/// before /chat/completions, so a prefix such as /api/v1 is kept).
std::optional<QString> discoverModel(probes::ProbeEngine &engine, ProbeRequest request,
                                     int &exitCode)
{
    QString path = request.url.path();
    const QString chat = QStringLiteral("/chat/completions");
    path = path.endsWith(chat) ? path.chopped(chat.size()) + QStringLiteral("/models")
                               : QStringLiteral("/v1/models");
    request.url.setPath(path);
    request.url.setQuery(QString());
    request.kind = ProbeKind::Get;
    request.mode = ConnectionMode::Fresh;
    request.body.clear();
    const ProbeResult models = runInterruptibly(engine, request);
    const QString id = probes::ChatApi::modelFromModels(models.body);
    if (models.ok() && !id.isEmpty())
        return id;
    printError(QStringLiteral("%1: cannot learn the model (%2); give --model NAME")
                   .arg(request.url.toString(QUrl::RemoveUserInfo),
                        !models.error.isEmpty() ? models.error
                        : models.ok()           ? QStringLiteral("no model id in the answer")
                                                : QStringLiteral("HTTP %1").arg(models.status)));
    exitCode = models.timedOut || interrupted() ? ExitUnknown : ExitFailed;
    return std::nullopt;
}

void addOptions(QCommandLineParser &parser)
{
    parser.addPositionalArgument(QStringLiteral("url"), QStringLiteral("The URL to probe."));
    parser.addOptions({
        {QStringLiteral("fresh"), QStringLiteral("A new connection per probe (default).")},
        {QStringLiteral("reused"),
         QStringLiteral(
             "One kept-alive connection: a warm-up, then each probe after the idle gap.")},
        {QStringLiteral("idle-gap"),
         QStringLiteral("Seconds the connection sits idle between reused probes (default 10)."),
         QStringLiteral("seconds")},
        {QStringLiteral("count"), QStringLiteral("Probes in all, 1..10000 (default 1)."),
         QStringLiteral("n")},
        {QStringLiteral("stream"), QStringLiteral("A streamed chat completion; measures TTFT.")},
        {QStringLiteral("chat"), QStringLiteral("A chat completion (POST) to the URL.")},
        {QStringLiteral("max-tokens"), QStringLiteral("max_tokens of the chat (default 8)."),
         QStringLiteral("n")},
        {QStringLiteral("model"), QStringLiteral("Model name (default: first of /v1/models)."),
         QStringLiteral("name")},
        {QStringLiteral("timeout-ms"), QStringLiteral("Bound of each probe in ms (default 10000)."),
         QStringLiteral("ms")},
        {QStringLiteral("cacert"), QStringLiteral("PEM CA file for https."),
         QStringLiteral("file")},
        {QStringLiteral("insecure"), QStringLiteral("Do not verify the TLS peer.")},
        {QStringLiteral("proxy"), QStringLiteral("HTTP proxy URL (never from the environment)."),
         QStringLiteral("url")},
        {QStringLiteral("api-key-secret"),
         QStringLiteral("Secret-store key holding the API key (e.g. http/router/api-key)."),
         QStringLiteral("key")},
    });
    parser.addOption(jsonOption());
}

} // namespace

int runProbe(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "probe URL: fresh or reused keep-alive connection latency, with curl's timings."));
    addOptions(parser);
    if (!parseArguments(parser, arguments))
        return ExitBadInput;
    const QStringList positional = parser.positionalArguments();
    const QUrl url(positional.value(0), QUrl::StrictMode);
    // Port 0 is no port to connect to (QUrl takes it as valid).
    if (positional.size() != 1 || !url.isValid() || url.host().isEmpty() || url.port() == 0 ||
        (url.scheme() != u"http" && url.scheme() != u"https")) {
        QStringList quoted;
        for (const QString &argument : positional)
            quoted << withoutUserInfo(argument);
        printError(QStringLiteral("probe needs one http:// or https:// URL with a host and a port "
                                  "in 1..65535, got '%1'")
                       .arg(quoted.join(u' ')));
        return ExitBadInput;
    }
    if (parser.isSet(QStringLiteral("fresh")) && parser.isSet(QStringLiteral("reused"))) {
        printError(QStringLiteral("--fresh and --reused exclude each other"));
        return ExitBadInput;
    }
    const auto idleGapS = secondsOption(parser, QStringLiteral("idle-gap"), 0, kMaxIdleGapS, 10);
    const auto count = wholeNumberOption(parser, QStringLiteral("count"), 1, kMaxCount, 1,
                                         QStringLiteral("probes"));
    const auto timeoutMs = wholeNumberOption(parser, QStringLiteral("timeout-ms"), 1, 600'000,
                                             10'000, QStringLiteral("milliseconds"));
    const auto maxTokens = wholeNumberOption(parser, QStringLiteral("max-tokens"), 1, 4096, 8,
                                             QStringLiteral("tokens"));
    if (!idleGapS || !count || !timeoutMs || !maxTokens)
        return ExitBadInput;

    ProbeRequest request;
    request.url = url;
    request.mode =
        parser.isSet(QStringLiteral("reused")) ? ConnectionMode::Reused : ConnectionMode::Fresh;
    request.timeoutMs = static_cast<int>(*timeoutMs);
    request.verifyTls = !parser.isSet(QStringLiteral("insecure"));
    request.label = QStringLiteral("cli");
    if (parser.isSet(QStringLiteral("cacert"))) {
        request.caFile = parser.value(QStringLiteral("cacert"));
        const QFileInfo ca(request.caFile);
        if (!ca.isFile() || !ca.isReadable()) {
            printError(QStringLiteral("--cacert %1: %2")
                           .arg(request.caFile, ca.isFile() ? QStringLiteral("not readable")
                                                            : QStringLiteral("no such file")));
            return ExitBadInput;
        }
    }
    if (parser.isSet(QStringLiteral("proxy"))) {
        request.proxy = QUrl(parser.value(QStringLiteral("proxy")), QUrl::StrictMode);
        // Only HTTP proxies: curl would take socks5:// too, but the console's
        // proxy settings (and the inventory's) are HTTP only.
        if (!request.proxy.isValid() || request.proxy.host().isEmpty() ||
            request.proxy.scheme() != u"http" || request.proxy.port() == 0) {
            printError(QStringLiteral("bad --proxy '%1': expected http://HOST[:PORT]")
                           .arg(withoutUserInfo(parser.value(QStringLiteral("proxy")))));
            return ExitBadInput;
        }
    }
    if (parser.isSet(QStringLiteral("api-key-secret"))) {
        const QString key = parser.value(QStringLiteral("api-key-secret"));
        secrets::SecretResult secret = secrets::SecretStore::shared().readBlocking(key);
        if (!secret.ok()) {
            printError(QStringLiteral("API key '%1': %2")
                           .arg(key, secret.status == secrets::SecretResult::Status::NotFound
                                         ? QStringLiteral("not in the secret store")
                                         : secret.error));
            return ExitBadInput;
        }
        request.apiKey = secret.value;
        secrets::SecretStore::wipe(secret.value);
    }

    // The loops below poll signalled() and cancel the probe in flight.
    const threads::CancelOnSignal onSignal;
    probes::ProbeEngine engine;
    const bool stream = parser.isSet(QStringLiteral("stream"));
    if (stream || parser.isSet(QStringLiteral("chat")) ||
        url.path().endsWith(QStringLiteral("/chat/completions"))) {
        request.kind = stream ? ProbeKind::ChatStream : ProbeKind::Chat;
        // A bare origin (http://HOST:PORT or with "/") means the OpenAI path:
        // a 404 from "/" would tell the engineer nothing about the service.
        if (request.url.path().isEmpty() || request.url.path() == u"/")
            request.url.setPath(QStringLiteral("/v1/chat/completions"));
        QString model = parser.value(QStringLiteral("model"));
        if (model.isEmpty()) {
            int exitCode = ExitFailed;
            const auto found = discoverModel(engine, request, exitCode);
            if (!found)
                return exitCode;
            model = *found;
        }
        request.body = probes::ChatApi::body(model, stream, *maxTokens);
    }
    // A bare origin without --chat probes the service's health path: GET / is
    // a 404 on a healthy proxy or engine and tells the engineer nothing.
    QString pathNote;
    if (request.kind == ProbeKind::Get &&
        (request.url.path().isEmpty() || request.url.path() == u"/")) {
        request.url.setPath(QStringLiteral("/health"));
        pathNote = QStringLiteral("probed /health (a bare origin probes its health path)");
    }

    const bool json = parser.isSet(QStringLiteral("json"));
    if (!json)
        printLine(probeTableHeader());
    bool failed = false;
    bool unknown = false;
    for (int i = 0; i < static_cast<int>(*count) && !interrupted(); ++i) {
        if (i > 0 && request.mode == ConnectionMode::Reused && !idleGap(*idleGapS))
            break;
        ProbeResult result = runInterruptibly(engine, request);
        if (json) {
            if (!pathNote.isEmpty())
                result.note = result.note.isEmpty() ? pathNote
                                                    : pathNote + QStringLiteral("; ") + result.note;
            printJson(QJsonDocument(probeJson(result)));
        } else {
            printLine(probeTableLine(i + 1, result, pathNote));
        }
        failed = failed || !result.ok();
        unknown = unknown || result.timedOut || result.cancelled;
    }
    request.apiKey.fill('\0');
    if (interrupted() || unknown)
        return ExitUnknown;
    return failed ? ExitFailed : ExitOk;
}

} // namespace opsdeck::cli
