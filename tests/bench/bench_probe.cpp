// bench_probe: the probe engine beside the curl command line (issue 4).
//  (a) timing fidelity: N fresh probes of one opsdeck-sim endpoint (GET
//      /health), then N reused ones back to back on one connection, beside
//      `curl -w '%{time_total}'` run the same way — fresh: one curl process per
//      request; reused: one curl invocation with the URL repeated N + 1 times
//      (the first transfer opens the connection, like the engine's warm-up).
//      Row "fresh*": fresh connections from one warm curl process (URL
//      repeated, "Connection: close"), without curl's per-process start cost.
//      Prints the medians and the ratio engine / curl (target 0.9–1.1).
//      Done twice: on GET /health (sub-millisecond on loopback, so process
//      and cache effects show) and on the tiny chat completion the probe lab
//      sends (POST /v1/chat/completions, max_tokens 8: tens of ms of server
//      work, the scale at which an on-call engineer reads these numbers).
//  (b) engine cost: CPU time of this process (getrusage user + sys; the sim
//      and curl are other processes) per 1,000 probes, fresh and reused.
// Usage: bench_probe [--n N] [--cpu-probes M] [--bin DIR]
#include "probeengine.h"

#include <QCoreApplication>
#include <QProcess>
#include <QRegularExpression>
#include <algorithm>
#include <cstdio>
#include <sys/resource.h>
#include <vector>

using namespace opsdeck::probes;

namespace {

double median(std::vector<double> values)
{
    if (values.empty())
        return 0;
    std::sort(values.begin(), values.end());
    const size_t mid = values.size() / 2;
    return values.size() % 2 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

double cpuSeconds()
{
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    auto s = [](const timeval &t) { return double(t.tv_sec) + double(t.tv_usec) / 1e6; };
    return s(usage.ru_utime) + s(usage.ru_stime);
}

/// Starts an engine sim on a free port; returns its base URL, empty on failure.
QString startSim(QProcess &sim, const QString &binDir)
{
    sim.start(binDir + QStringLiteral("/opsdeck-sim"),
              {QStringLiteral("--role"), QStringLiteral("engine"), QStringLiteral("--port"),
               QStringLiteral("0"), QStringLiteral("--ready-delay"), QStringLiteral("0"),
               // every reused probe of the run on one connection (default 1,000 per connection)
               QStringLiteral("--keep-alive-max-count"), QStringLiteral("1000000")});
    QByteArray log;
    const QRegularExpression listening(QStringLiteral("listening on (http://[0-9.]+:[0-9]+)"));
    for (int i = 0; i < 150; ++i) { // up to 15 s
        sim.waitForReadyRead(100);
        log += sim.readAllStandardError();
        const auto match = listening.match(QString::fromUtf8(log));
        if (match.hasMatch())
            return match.captured(1);
    }
    return {};
}

/// time_total of each transfer of one curl run, ms.
std::vector<double> curlTotals(const QStringList &args)
{
    QProcess curl;
    curl.start(QStringLiteral("curl"), args);
    curl.waitForFinished(600'000);
    std::vector<double> totals;
    for (const QByteArray &line : curl.readAllStandardOutput().split('\n'))
        if (!line.trimmed().isEmpty())
            totals.push_back(line.trimmed().toDouble() * 1000.0);
    return totals;
}

/// `close`: "Connection: close", so the server ends each connection and
/// every transfer of one warm curl process connects afresh.
/// `body`: POST it as JSON with every transfer (empty: GET).
QStringList curlArgs(const QString &url, int transfers, bool close = false,
                     const QByteArray &body = {})
{
    QStringList args = {QStringLiteral("-sS"),       QStringLiteral("--http1.1"),
                        QStringLiteral("--noproxy"), QStringLiteral("*"),
                        QStringLiteral("-w"),        QStringLiteral("%{time_total}\\n")};
    if (close)
        args << QStringLiteral("-H") << QStringLiteral("Connection: close");
    if (!body.isEmpty())
        args << QStringLiteral("-H") << QStringLiteral("Content-Type: application/json")
             << QStringLiteral("--data-binary") << QString::fromUtf8(body);
    for (int i = 0; i < transfers; ++i)
        args << QStringLiteral("-o") << QStringLiteral("/dev/null");
    for (int i = 0; i < transfers; ++i)
        args << url;
    return args;
}

std::vector<double> engineTotals(ProbeEngine &engine, const ProbeRequest &request, int n,
                                 int &failures)
{
    std::vector<double> totals;
    for (int i = 0; i < n; ++i) {
        const ProbeResult r = engine.run(request);
        if (!r.ok() || (request.mode == ConnectionMode::Reused && !r.connectionReused))
            ++failures;
        totals.push_back(r.totalMs);
    }
    return totals;
}

void row(const char *what, const std::vector<double> &engine, const std::vector<double> &curl)
{
    const double e = median(engine);
    const double c = median(curl);
    std::printf("%-8s engine median %.3f ms (n=%zu)  curl median %.3f ms (n=%zu)  ratio %.3f\n",
                what, e, engine.size(), c, curl.size(), c > 0 ? e / c : 0.0);
}

/// (a) for one request: engine and curl alternate by block, same endpoint.
void fidelity(ProbeEngine &engine, ProbeRequest fresh, int n, int &failures)
{
    fresh.mode = ConnectionMode::Fresh;
    ProbeRequest reused = fresh;
    reused.mode = ConnectionMode::Reused;
    const QString url = fresh.url.toString();
    const QByteArray &body = fresh.body;
    const auto engineFresh = engineTotals(engine, fresh, n, failures);
    std::vector<double> curlFresh;
    for (int i = 0; i < n; ++i)
        for (double t : curlTotals(curlArgs(url, 1, false, body)))
            curlFresh.push_back(t);
    // The same fresh connections from one warm curl process: a new curl per
    // request also pays its process's first connect (cold code and caches).
    const auto curlFreshWarm = curlTotals(curlArgs(url, n, true, body));
    engine.run(reused); // warm-up: opens the kept-alive connection
    const auto engineReused = engineTotals(engine, reused, n, failures);
    auto curlReused = curlTotals(curlArgs(url, n + 1, false, body));
    if (!curlReused.empty())
        curlReused.erase(curlReused.begin()); // curl's own warm-up transfer
    std::printf("timing fidelity, %s %s, %d probes each:\n", body.isEmpty() ? "GET" : "POST",
                qPrintable(url), n);
    row("fresh", engineFresh, curlFresh);
    row("fresh*", engineFresh, curlFreshWarm);
    row("reused", engineReused, curlReused);
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    const QStringList args = app.arguments();
    auto option = [&](const char *name, const QString &fallback) {
        const qsizetype i = args.indexOf(QString::fromLatin1(name));
        return i > 0 && i + 1 < args.size() ? args.at(i + 1) : fallback;
    };
    const int n = option("--n", QStringLiteral("200")).toInt();
    const int cpuProbes = option("--cpu-probes", QStringLiteral("1000")).toInt();
    const QString binDir = option("--bin", QStringLiteral(OPSDECK_BIN_DIR));

    QProcess sim;
    const QString base = startSim(sim, binDir);
    if (base.isEmpty()) {
        std::fprintf(stderr, "bench_probe: opsdeck-sim did not start from %s\n",
                     qPrintable(binDir));
        return 2;
    }
    const QString url = base + QStringLiteral("/health");
    ProbeEngine engine;
    ProbeRequest fresh;
    fresh.url = QUrl(url);
    fresh.mode = ConnectionMode::Fresh;
    ProbeRequest reused = fresh;
    reused.mode = ConnectionMode::Reused;
    int failures = 0;
    fidelity(engine, fresh, n, failures);

    ProbeRequest chat = fresh;
    chat.kind = ProbeKind::Chat;
    chat.url = QUrl(base + QStringLiteral("/v1/chat/completions"));
    chat.body = R"({"model":"Qwen/Qwen3-8B","messages":[{"role":"user","content":"ping"}],)"
                R"("max_tokens":8})";
    fidelity(engine, chat, n, failures);

    // (b) CPU time of the engine per 1,000 probes.
    for (const ProbeRequest *request : {&fresh, &reused}) {
        const double before = cpuSeconds();
        engineTotals(engine, *request, cpuProbes, failures);
        const double used = cpuSeconds() - before;
        std::printf("cpu      %-6s %d probes: %.3f s user+sys -> %.1f ms CPU per 1,000 probes\n",
                    qPrintable(connectionModeName(request->mode)), cpuProbes, used,
                    used * 1000.0 * 1000.0 / cpuProbes);
    }
    std::printf("failed or not reused: %d\n", failures);
    sim.terminate();
    sim.waitForFinished(10'000);
    return failures == 0 ? 0 : 1;
}
