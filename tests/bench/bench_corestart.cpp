// bench_corestart (workflows issue): a PD co-restart of the demo cluster by
// `opsdeck-cli workflow run co-restart` beside the same co-restart typed by
// hand in bash (the inventory's own start commands; kill, then poll with
// curl every 0.1 s), and both beside the waits no tool can avoid: each old
// engine's exit after SIGTERM and each new engine's start until it is ready,
// and the router's health check noticing the new decode, read from the
// sims' own logs (--exit-delay 1, --ready-delay 2 and 3 in the demo).
//
// Measured span: from the first stop to the router ready with both workers
// healthy (OpsDeck: step 2's start to step 10's end in the journal; the
// bootstrap check before and the staged verification after are the
// workflow's own checks, reported apart). Overhead = span - unavoidable.
// Medians of N runs of each, alternated.
//
// usage: bench_corestart [--n N]
#include "inventory.h"
#include "testsupport.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QProcessEnvironment>
#include <QTemporaryDir>
#include <algorithm>
#include <cstdio>
#include <optional>

using namespace Qt::StringLiterals;

namespace {

struct Run
{
    double spanMs = 0;        ///< first stop .. router ready
    double unavoidableMs = 0; ///< the engines' own exit and start times
    double wholeMs = 0;       ///< the whole command (OpsDeck: with its checks)
};

QProcessEnvironment environmentIn(const QString &home)
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(u"HOME"_s, home);
    env.insert(u"XDG_DATA_HOME"_s, home + u"/.local/share"_s);
    env.insert(u"XDG_CONFIG_HOME"_s, home + u"/.config"_s);
    return env;
}

bool run(const QString &program, const QStringList &arguments, const QString &home,
         QByteArray *out = nullptr)
{
    QProcess process;
    process.setProcessEnvironment(environmentIn(home));
    process.start(program, arguments);
    const bool ok = process.waitForFinished(300000) &&
                    process.exitStatus() == QProcess::NormalExit && process.exitCode() == 0;
    if (out)
        *out = process.readAllStandardOutput();
    if (!ok)
        std::fprintf(stderr, "bench_corestart: %s %s failed (exit %d): %s\n", qPrintable(program),
                     qPrintable(arguments.join(u' ')), process.exitCode(),
                     process.readAllStandardError().constData());
    return ok;
}

// The time of the first line of `log` at or after `from` containing every
// piece of `text` (split at '|').
QDateTime lineTime(const QString &log, const QString &text, const QDateTime &from)
{
    QFile file(log);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    for (const QByteArray &raw : file.readAll().split('\n')) {
        const QString line = QString::fromUtf8(raw);
        const QStringList pieces = text.split(u'|');
        if (!std::all_of(pieces.begin(), pieces.end(),
                         [&line](const QString &piece) { return line.contains(piece); }))
            continue;
        const QDateTime at = QDateTime::fromString(line.left(23), u"yyyy-MM-dd HH:mm:ss.zzz"_s);
        if (at.isValid() && at >= from)
            return at;
    }
    return {};
}

// What the engines themselves took since `from`: each one's SIGTERM to its
// exit, its new process's first line to "ready", and the router's own health
// check noticing the new decode.
std::optional<double> unavoidableMs(const QString &demo, const QDateTime &from)
{
    double total = 0;
    QDateTime decodeReady;
    for (const QString &engine : {u"decode"_s, u"prefill"_s}) {
        const QString log = demo + u"/logs/"_s + engine + u".log"_s;
        const QDateTime term = lineTime(log, u"received SIGTERM"_s, from);
        const QDateTime gone = lineTime(log, u"shutdown complete"_s, term);
        const QDateTime listening = lineTime(log, u"listening on"_s, gone);
        const QDateTime ready = lineTime(log, u"fired up"_s, listening);
        if (!term.isValid() || !gone.isValid() || !listening.isValid() || !ready.isValid())
            return std::nullopt;
        total += term.msecsTo(gone) + listening.msecsTo(ready);
        if (engine == u"decode")
            decodeReady = ready;
    }
    // The router sees the decode healthy at its next health check (every 1 s
    // in the demo): a wait for readiness no tool can shorten.
    const QDateTime seen =
        lineTime(demo + u"/logs/router.log"_s, u"decode worker|is healthy"_s, decodeReady);
    if (!seen.isValid())
        return std::nullopt;
    return total + decodeReady.msecsTo(seen);
}

// OpsDeck's co-restart; the span from its journal.
std::optional<Run> withOpsDeck(const QString &cli, const QString &inventory, const QString &demo,
                               const QString &home)
{
    const QDateTime from = QDateTime::currentDateTime().addMSecs(-10);
    QElapsedTimer clock;
    clock.start();
    QByteArray out;
    if (!run(cli,
             {u"workflow"_s, u"run"_s, u"co-restart"_s, u"--inventory"_s, inventory, u"--cluster"_s,
              u"demo"_s, u"--confirm"_s, u"demo"_s, u"--idle-gap"_s, u"1"_s, u"--data-dir"_s,
              home + u"/data"_s, u"--json"_s},
             home, &out))
        return std::nullopt;
    Run result;
    result.wholeMs = double(clock.nsecsElapsed()) / 1e6;
    const QString id = QJsonDocument::fromJson(out).object().value(u"id"_s).toString();
    QFile journal(home + u"/data/workflows/"_s + id + u".journal"_s);
    if (!journal.open(QIODevice::ReadOnly))
        return std::nullopt;
    QDateTime first;
    QDateTime last;
    for (const QByteArray &line : journal.readAll().split('\n')) {
        const QJsonObject event = QJsonDocument::fromJson(line).object();
        const QDateTime at =
            QDateTime::fromString(event.value(u"time"_s).toString(), Qt::ISODateWithMs);
        const int n = event.value(u"n"_s).toInt();
        if (event.value(u"event"_s).toString() == u"step-start" && n == 2)
            first = at;
        if (event.value(u"event"_s).toString() == u"step-end" && n == 10)
            last = at;
    }
    const auto engines = unavoidableMs(demo, from);
    if (!first.isValid() || !last.isValid() || !engines)
        return std::nullopt;
    result.spanMs = double(first.msecsTo(last));
    result.unavoidableMs = *engines;
    return result;
}

// The same co-restart by hand: what a person types, polling every 0.1 s. An
// old engine is gone when its port is closed: `kill -0` would also wait for
// its parent to reap it, which a detached server's may do late.
std::optional<Run> byHand(const opsdeck::inventory::Inventory &inventory, const QString &demo,
                          const QString &home)
{
    const auto *prefill = inventory.service(u"prefill"_s);
    const auto *decode = inventory.service(u"decode"_s);
    const auto *router = inventory.service(u"router"_s);
    const QString script = uR"SH(set -e
stop() { kill -TERM "$(cat "$1")"
         while (exec 3<>/dev/tcp/127.0.0.1/$2) 2>/dev/null; do sleep 0.1; done; }
ready() { until curl -sf -o /dev/null "$1"; do sleep 0.1; done; }
stop '%1' %2
stop '%3' %4
%5
ready '%6'
%7
ready '%8'
ready '%9'
until curl -sf '%10' | grep -q '"is_healthy":true.*"is_healthy":true'; do sleep 0.1; done
)SH"_s.arg(decode->pidFile, QString::number(decode->url.port()), prefill->pidFile,
           QString::number(prefill->url.port()), prefill->start, prefill->healthUrl().toString(),
           decode->start, decode->healthUrl().toString(),
           router->urlWithPath(u"/readiness"_s).toString())
                               .arg(router->urlWithPath(u"/workers"_s).toString());
    const QDateTime from = QDateTime::currentDateTime().addMSecs(-10);
    QElapsedTimer clock;
    clock.start();
    if (!run(u"bash"_s, {u"-c"_s, script}, home))
        return std::nullopt;
    Run result;
    result.spanMs = result.wholeMs = double(clock.nsecsElapsed()) / 1e6;
    const auto engines = unavoidableMs(demo, from);
    if (!engines)
        return std::nullopt;
    result.unavoidableMs = *engines;
    return result;
}

double median(QVector<double> values)
{
    std::sort(values.begin(), values.end());
    return values.isEmpty() ? 0 : values.at(values.size() / 2);
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    const QStringList args = app.arguments();
    const qsizetype at = args.indexOf(u"--n"_s);
    const int n = at >= 0 ? std::max(1, args.value(at + 1).toInt()) : 5;
    const QString cli = opsdeck::test::binPath(u"opsdeck-cli"_s);
    QTemporaryDir home;
    if (!home.isValid())
        return 2;
    const QString demo = home.filePath(u"demo"_s);
    QByteArray out;
    if (!run(cli, {u"demo"_s, u"up"_s, u"--dir"_s, demo, u"--traffic"_s, u"0"_s}, home.path(),
             &out))
        return 2;
    const QString inventoryPath = QString::fromUtf8(out).trimmed().split(u'\n').last();
    const auto loaded = opsdeck::inventory::loadInventory(inventoryPath);
    int code = 0;
    QVector<double> ours, oursUnavoidable, oursWhole, hand, handUnavoidable;
    // OpsDeck's runs first: a start by hand writes no identity beside the pid
    // file, and OpsDeck then refuses to stop a process it cannot tell is the
    // one it started (ManagedProcess).
    for (int i = 0; i < n && loaded.inventory && code == 0; ++i) {
        const auto a = withOpsDeck(cli, inventoryPath, demo, home.path());
        if (!a) {
            code = 1;
            break;
        }
        ours << a->spanMs;
        oursUnavoidable << a->unavoidableMs;
        oursWhole << a->wholeMs;
    }
    for (int i = 0; i < n && loaded.inventory && code == 0; ++i) {
        const auto b = byHand(*loaded.inventory, demo, home.path());
        if (!b) {
            code = 1;
            break;
        }
        hand << b->spanMs;
        handUnavoidable << b->unavoidableMs;
    }
    // The engines started by hand are stopped by hand; `demo down` the rest.
    if (loaded.inventory)
        for (const QString &engine : {u"decode"_s, u"prefill"_s})
            run(u"bash"_s,
                {u"-c"_s,
                 u"kill -TERM \"$(cat \"$1\")\"; while (exec 3<>/dev/tcp/127.0.0.1/$2) "
                 "2>/dev/null; do sleep 0.1; done"_s,
                 u"bash"_s, loaded.inventory->service(engine)->pidFile,
                 QString::number(loaded.inventory->service(engine)->url.port())},
                home.path());
    run(cli, {u"demo"_s, u"down"_s, u"--dir"_s, demo}, home.path());
    if (!loaded.inventory || code != 0 || ours.isEmpty() || hand.isEmpty())
        return 1;
    std::printf("co-restart of the demo (stop decode, stop prefill, start prefill until ready, "
                "start decode until ready, router ready), medians of %d:\n",
                n);
    std::printf("  opsdeck-cli workflow run co-restart: %.0f ms; the engines' own exit and "
                "start %.0f ms; overhead %.0f ms (whole command with its bootstrap check and "
                "staged verification: %.0f ms)\n",
                median(ours), median(oursUnavoidable), median(ours) - median(oursUnavoidable),
                median(oursWhole));
    std::printf("  by hand in bash (kill, curl every 0.1 s): %.0f ms; the engines' own %.0f ms; "
                "overhead %.0f ms\n",
                median(hand), median(handUnavoidable), median(hand) - median(handUnavoidable));
    std::printf("  ratio opsdeck / by hand: %.2f\n", median(ours) / median(hand));
    return 0;
}
