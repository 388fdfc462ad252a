// opsdeck: the console window.
//   opsdeck --demo [--dir DIR] [--traffic N] [--fault F]   watch a simulated PD cluster
//   opsdeck --inventory FILE                               watch a real one
//   --screenshot PNG [--after S]                           render the window to a PNG and exit
//   --probe-lab [--probe-idle-gap S]                       show the probe lab and start probing
//   --tab metrics|probe-lab|hosts|knobs                    the tab shown at start
//   --ssh-config FILE --known-hosts FILE                   SSH files for ssh hosts
#include "apppaths.h"
#include "auditkey.h"
#include "audittab.h"
#include "cancelonsignal.h"
#include "demosetup.h"
#include "hoststab.h"
#include "knobstab.h"
#include "mainwindow.h"
#include "probelabpanel.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDoubleSpinBox>
#include <QTabWidget>
#include <QTimer>
#include <cstdio>

using namespace Qt::StringLiterals;

int main(int argc, char **argv)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("On-call console for PD-disaggregated LLM serving."));
    const QCommandLineOption help = parser.addHelpOption();
    const QCommandLineOption version = parser.addVersionOption();
    const QCommandLineOption demo(
        QStringLiteral("demo"),
        QStringLiteral("Start a simulated PD cluster on this machine and watch it."));
    const QCommandLineOption inventory(QStringLiteral("inventory"),
                                       QStringLiteral("Inventory file (YAML)."),
                                       QStringLiteral("file"));
    const QCommandLineOption dir(QStringLiteral("dir"), QStringLiteral("Demo host folder."),
                                 QStringLiteral("dir"));
    const QCommandLineOption traffic(QStringLiteral("traffic"),
                                     QStringLiteral("Demo traffic clients (default 8)."),
                                     QStringLiteral("n"));
    const QCommandLineOption fault(
        QStringLiteral("fault"),
        QStringLiteral("Demo fault: proxy-reused-stall=S or router-reused-stall=S."),
        QStringLiteral("fault"));
    const QCommandLineOption transferBackend(
        QStringLiteral("transfer-backend"),
        QStringLiteral("Demo KV transfer backend: mooncake (default) or nixl (a single-side "
                       "restart hangs until both sides restart)."),
        QStringLiteral("backend"));
    const QCommandLineOption dataDir(
        QStringLiteral("data-dir"),
        QStringLiteral("State folder: history.sqlite and the demo folder (default "
                       "~/.local/share/opsdeck). A demo records its history in its own folder."),
        QStringLiteral("dir"));
    const QCommandLineOption screenshot(QStringLiteral("screenshot"),
                                        QStringLiteral("Save the window as a PNG, then quit."),
                                        QStringLiteral("png"));
    const QCommandLineOption after(
        QStringLiteral("after"),
        QStringLiteral("Seconds to wait before the screenshot (default 5)."),
        QStringLiteral("seconds"));
    const QCommandLineOption probeLab(
        QStringLiteral("probe-lab"),
        QStringLiteral("Show the probe lab and start probing the first cluster once its "
                       "inventory is loaded."));
    const QCommandLineOption probeIdleGap(
        QStringLiteral("probe-idle-gap"),
        QStringLiteral("Idle gap of --probe-lab's keep-alive probes, 0 to 600 s (default 10)."),
        QStringLiteral("seconds"));
    const QCommandLineOption tab(
        QStringLiteral("tab"),
        QStringLiteral(
            "Tab shown at start: metrics, probe-lab, hosts, knobs or audit (default metrics)."),
        QStringLiteral("name"));
    const QCommandLineOption sshConfig(
        QStringLiteral("ssh-config"),
        QStringLiteral("OpenSSH client config for ssh hosts (default: the settings' [ssh] "
                       "config_file, else ~/.ssh/config)."),
        QStringLiteral("file"));
    const QCommandLineOption knownHosts(
        QStringLiteral("known-hosts"),
        QStringLiteral("known_hosts file for ssh hosts (default: the settings' [ssh] "
                       "known_hosts_file, else ~/.ssh/known_hosts)."),
        QStringLiteral("file"));
    parser.addOptions({demo, inventory, dir, traffic, fault, transferBackend, dataDir, screenshot,
                       after, probeLab, probeIdleGap, tab, sshConfig, knownHosts});
    // --help and --version answer without a display: a QCoreApplication
    // prints them (QApplication would need a platform first).
    QStringList arguments;
    for (int i = 0; i < argc; ++i)
        arguments << QString::fromLocal8Bit(argv[i]);
    // Qt's own arguments (-platform offscreen, -style fusion, ...) are for the
    // QApplication below, not for this first look.
    static const QStringList qtWithValue{u"platform"_s,
                                         u"platformpluginpath"_s,
                                         u"platformtheme"_s,
                                         u"plugin"_s,
                                         u"qwindowgeometry"_s,
                                         u"qwindowtitle"_s,
                                         u"qwindowicon"_s,
                                         u"display"_s,
                                         u"geometry"_s,
                                         u"style"_s,
                                         u"stylesheet"_s,
                                         u"session"_s,
                                         u"name"_s,
                                         u"title"_s};
    static const QStringList qtFlags{u"reverse"_s, u"widgetcount"_s, u"nograb"_s, u"dograb"_s,
                                     u"sync"_s};
    QStringList ours{arguments.value(0)};
    for (qsizetype i = 1; i < arguments.size(); ++i) {
        QString name = arguments[i];
        while (name.startsWith(u'-'))
            name.remove(0, 1);
        const QString bare = name.section(u'=', 0, 0);
        if (arguments[i].startsWith(u'-') && qtFlags.contains(bare))
            continue;
        if (arguments[i].startsWith(u'-') && qtWithValue.contains(bare)) {
            if (!name.contains(u'='))
                ++i; // its value
            continue;
        }
        ours << arguments[i];
    }
    const bool parsed = parser.parse(ours);
    // Bad arguments are refused before a display is needed, as usage (exit 2).
    if (!parsed || !parser.positionalArguments().isEmpty()) {
        std::fprintf(stderr, "opsdeck: %s (see opsdeck --help)\n",
                     qPrintable(parsed ? QStringLiteral("unexpected argument '%1'")
                                             .arg(parser.positionalArguments().first())
                                       : parser.errorText()));
        return 2;
    }
    if (parser.isSet(help) || parser.isSet(version) ||
        arguments.contains(QStringLiteral("--help-all"))) {
        QCoreApplication core(argc, argv);
        QCoreApplication::setApplicationName(QStringLiteral("opsdeck"));
        QCoreApplication::setApplicationVersion(QStringLiteral(OPSDECK_VERSION));
        parser.process(core); // prints and exits
        return 0;
    }
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("opsdeck"));
    QApplication::setApplicationDisplayName(QStringLiteral("OpsDeck"));
    QApplication::setApplicationVersion(QStringLiteral(OPSDECK_VERSION));
    parser.process(app);

    MainWindow window;
    window.setDataDir(parser.value(dataDir));
    // The settings file's [ssh] files, unless the command line names others.
    const auto given = [&parser](const QCommandLineOption &option) -> std::optional<QString> {
        return parser.isSet(option) ? std::optional(parser.value(option)) : std::nullopt;
    };
    window.setHostOptions(opsdeck::hosts::HostConnections::Options::fromQSettings(
        given(sshConfig), given(knownHosts)));
    if (parser.isSet(probeIdleGap)) {
        bool ok = false;
        const double gap = parser.value(probeIdleGap).toDouble(&ok);
        if (!ok || gap < 0 || gap > 600) {
            std::fprintf(stderr, "opsdeck: bad --probe-idle-gap '%s': 0 to 600 s\n",
                         qPrintable(parser.value(probeIdleGap)));
            return 2;
        }
        window.probeLabPanel()->idleGapBox()->setValue(gap);
    }
    if (parser.isSet(tab)) {
        const QString name = parser.value(tab);
        if (name == QLatin1String("hosts"))
            window.tabs()->setCurrentWidget(window.hostsTab());
        else if (name == QLatin1String("knobs"))
            window.tabs()->setCurrentWidget(window.knobsTab());
        else if (name == QLatin1String("audit"))
            window.tabs()->setCurrentWidget(window.auditTab());
        else if (name == QLatin1String("probe-lab"))
            window.showProbeLab();
        else if (name != QLatin1String("metrics")) {
            std::fprintf(stderr,
                         "opsdeck: bad --tab '%s': metrics, probe-lab, hosts, knobs or audit\n",
                         qPrintable(name));
            return 2;
        }
    }
    if (parser.isSet(probeLab)) {
        window.showProbeLab();
        QObject::connect(&window, &MainWindow::demoStarted, &window, [&window](bool ok) {
            if (ok)
                window.probeLabPanel()->start();
        });
    }
    if (parser.isSet(demo)) {
        const auto flag = [&parser](const QCommandLineOption &option) -> std::optional<QString> {
            return parser.isSet(option) ? std::optional<QString>(parser.value(option))
                                        : std::nullopt;
        };
        QString error;
        const auto options = opsdeck::demo::DemoOptions::fromFlags(
            {flag(dir), flag(dataDir), flag(traffic), flag(fault), flag(transferBackend)}, &error);
        if (!options) {
            std::fprintf(stderr, "opsdeck: %s\n", qPrintable(error));
            return 2;
        }
        window.startDemo(*options);
    } else if (parser.isSet(inventory)) {
        if (window.openInventory(parser.value(inventory)) && parser.isSet(probeLab))
            window.probeLabPanel()->start();
    }
    window.show();

    int exitCode = 0;
    if (parser.isSet(screenshot)) {
        const double seconds = parser.isSet(after) ? parser.value(after).toDouble() : 5.0;
        const QString path = parser.value(screenshot);
        QTimer::singleShot(static_cast<int>(seconds * 1000), &window, [&window, &exitCode, path] {
            if (!window.grab().save(path)) {
                std::fprintf(stderr, "opsdeck: cannot write screenshot %s\n", qPrintable(path));
                exitCode = 1;
            }
            window.close();
        });
    }
    QObject::connect(&window, &MainWindow::shutdownFinished, &app, &QApplication::quit,
                     Qt::QueuedConnection);
    // A supervisor's SIGTERM, a closed terminal's SIGHUP or Ctrl-C close the
    // window as its close button does: the demo cluster stopped, the queued
    // history samples written. (Killed instead, up to one flush of samples
    // would go unsaid.)
    const opsdeck::threads::CancelOnSignal closeOnSignal(
        [&window] { QMetaObject::invokeMethod(&window, &QWidget::close, Qt::QueuedConnection); });
    const int code = QApplication::exec();
    opsdeck::history::AuditKey::settle(); // the last entries' anchors kept
    return exitCode ? exitCode : code;
}
