// bench_console_poll: the console (MainWindow, with its poller, recorder and
// panels) watching an inventory, measured from inside its own process:
// CPU seconds and share of one core, resident memory, and how late the GUI
// thread serves a 10 ms timer (its stalls: worst and p99), in two phases of
// S seconds each after the warm-up: CPU and memory first, with no timer of
// the bench's own (its 100 wake-ups a second cost about 0.015 of a core, which
// the console does not spend), then the stalls.
//
//   bench_console_poll --inventory FILE [--seconds S] [--warmup S]
//
// Prints one JSON object on stdout:
//   {"seconds":S,"cpu_s":x,"cpu_share":x,"rss_mb":x,"rss_peak_mb":x,
//    "stall_worst_ms":x,"stall_p99_ms":x,"ticks":n}
// cpu_share is CPU seconds over wall seconds of the first phase (1.0 = one
// core busy); rss_mb is at its end. A stall is how much later than 10 ms after the previous tick
// the next tick ran. run_poll_bench.sh runs it beside a Prometheus server scraping the same
// targets. Run it on the offscreen platform.
#include "mainwindow.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>
#include <QTimer>
#include <algorithm>
#include <cstdio>
#include <sys/resource.h>
#include <vector>

namespace {

double cpuSeconds()
{
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    const auto seconds = [](const timeval &t) { return t.tv_sec + t.tv_usec / 1e6; };
    return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

// VmRSS / VmHWM of this process in MB (1e6 bytes), from /proc/self/status (kB).
double procStatusMb(const QByteArray &field)
{
    QFile status(QStringLiteral("/proc/self/status"));
    if (!status.open(QIODevice::ReadOnly))
        return 0;
    for (const QByteArray &line : status.readAll().split('\n'))
        if (line.startsWith(field) && line.mid(field.size(), 1) == ":")
            return line.mid(field.size() + 1).trimmed().split(' ').value(0).toDouble() * 1024 / 1e6;
    return 0;
}

} // namespace

int main(int argc, char **argv)
{
    QApplication app(argc, argv);
    QCommandLineParser parser;
    const QCommandLineOption inventory(
        QStringLiteral("inventory"), QStringLiteral("Inventory to watch."), QStringLiteral("file"));
    const QCommandLineOption seconds(QStringLiteral("seconds"),
                                     QStringLiteral("Length of each measured phase (default 60)."),
                                     QStringLiteral("s"), QStringLiteral("60"));
    const QCommandLineOption warmup(QStringLiteral("warmup"),
                                    QStringLiteral("Unmeasured start (default 10)."),
                                    QStringLiteral("s"), QStringLiteral("10"));
    parser.addOptions({inventory, seconds, warmup});
    parser.process(app);
    if (!parser.isSet(inventory)) {
        std::fputs("bench_console_poll: --inventory FILE is required\n", stderr);
        return 2;
    }
    // History and state go to a throw-away folder, never the user's.
    QTemporaryDir state;
    qputenv("XDG_DATA_HOME", state.path().toUtf8());

    MainWindow window;
    window.resize(1400, 900);
    window.show();
    if (!window.openInventory(parser.value(inventory))) {
        std::fprintf(stderr, "bench_console_poll: %s\n", qPrintable(window.bannerText()));
        return 2;
    }

    const int warmupMs = parser.value(warmup).toInt() * 1000;
    const int measuredMs = parser.value(seconds).toInt() * 1000;
    std::vector<double> stallsMs;
    stallsMs.reserve(static_cast<std::size_t>(measuredMs / 10 + 16));
    QElapsedTimer sinceTick;
    double wallS = 0;
    double cpuS = 0;
    double rssMb = 0;

    // Phase 1: CPU and memory, nothing of the bench's own running.
    QElapsedTimer wall;
    double cpuAtStart = 0;
    QTimer::singleShot(warmupMs, [&] {
        cpuAtStart = cpuSeconds();
        wall.start();
    });
    // Phase 2: stalls, from a 10 ms timer.
    QTimer heartbeat;
    heartbeat.setTimerType(Qt::PreciseTimer);
    QObject::connect(&heartbeat, &QTimer::timeout, [&] {
        const double gapMs = static_cast<double>(sinceTick.nsecsElapsed()) / 1e6;
        sinceTick.start();
        stallsMs.push_back(std::max(0.0, gapMs - 10.0));
    });
    QTimer::singleShot(warmupMs + measuredMs, [&] {
        wallS = static_cast<double>(wall.nsecsElapsed()) / 1e9;
        cpuS = cpuSeconds() - cpuAtStart;
        rssMb = procStatusMb("VmRSS");
        sinceTick.start();
        heartbeat.start(10);
    });
    QTimer::singleShot(warmupMs + 2 * measuredMs, [&] {
        heartbeat.stop();
        std::sort(stallsMs.begin(), stallsMs.end());
        const double worst = stallsMs.empty() ? 0 : stallsMs.back();
        const double p99 =
            stallsMs.empty() ? 0 : stallsMs[static_cast<std::size_t>(0.99 * (stallsMs.size() - 1))];
        std::printf("{\"seconds\":%.1f,\"cpu_s\":%.3f,\"cpu_share\":%.4f,\"rss_mb\":%.1f,"
                    "\"rss_peak_mb\":%.1f,\"stall_worst_ms\":%.1f,\"stall_p99_ms\":%.1f,"
                    "\"ticks\":%zu}\n",
                    wallS, cpuS, cpuS / wallS, rssMb, procStatusMb("VmHWM"), worst, p99,
                    stallsMs.size());
        std::fflush(stdout);
        window.close();
    });
    QObject::connect(&window, &MainWindow::shutdownFinished, &app, &QApplication::quit,
                     Qt::QueuedConnection);
    return QApplication::exec();
}
