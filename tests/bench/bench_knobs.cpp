// bench_knobs (knobs issue): two things an engineer would otherwise do by hand,
// each beside the tool they would use, in one run:
//  1. `opsdeck-cli knobs read` of a serve script of L lines (it also runs
//     `bash -n`) beside `bash -c 'set -a; source SCRIPT; env'`;
//  2. `opsdeck-cli changed-since` over SSH on a tree of F files (one in ten
//     touched within the hour) beside `ssh HOST find DIR -newermt '1 hour ago'`,
//     against a test sshd on loopback.
// Each is a whole process run, as a person runs it; medians of N runs.
//
// usage: bench_knobs [--lines L] [--files F] [--n N] [--test-user NAME]
// --test-user: as bench_ssh, log in as NAME (created when run as root), whose
// shell does no start-up work.
#include "sshdprocess.h"
#include "testsupport.h"
#include "testuser.h"

#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <algorithm>
#include <cstdio>
#include <optional>
#include <sys/stat.h>
#include <unistd.h>
#include <utime.h>

using opsdeck::test::SshdProcess;
using opsdeck::test::TestUser;

namespace {

int option(const QStringList &args, const QString &name, int fallback)
{
    const qsizetype at = args.indexOf(name);
    return at >= 0 ? args.value(at + 1).toInt() : fallback;
}

// Median wall time of `n` runs, ms; nullopt when a run failed.
std::optional<double> medianMs(int n, const QString &program, const QStringList &arguments)
{
    QVector<double> runs;
    for (int i = 0; i < n; ++i) {
        QProcess process;
        QElapsedTimer clock;
        clock.start();
        process.start(program, arguments);
        const bool ok = process.waitForFinished(300000) &&
                        process.exitStatus() == QProcess::NormalExit && process.exitCode() == 0;
        runs << double(clock.nsecsElapsed()) / 1e6;
        if (!ok) {
            std::fprintf(stderr, "bench_knobs: %s failed (exit %d): %s\n", qPrintable(program),
                         process.exitCode(), process.readAllStandardError().constData());
            return std::nullopt;
        }
    }
    std::sort(runs.begin(), runs.end());
    return runs.at(runs.size() / 2);
}

QByteArray serveScript(int lines)
{
    QByteArray text = "#!/usr/bin/env bash\n# generated serve script\n";
    for (int i = 0; i < lines - 4; ++i)
        text += "export SGLANG_BENCH_KNOB_" + QByteArray::number(i) + "=\"value " +
                QByteArray::number(i) + "\"   # note\n";
    // Sourced by bash as the comparison does: a no-op that still carries the flags.
    text += ": exec python3 -m sglang.launch_server --port 30002 \\\n"
            "  --max-running-requests 64\n";
    return text;
}

bool makeTree(const QString &root, int files)
{
    const time_t old = ::time(nullptr) - 3 * 3600;
    for (int i = 0; i < files; ++i) {
        const QString dir = root + QStringLiteral("/d%1").arg(i / 1000);
        if (i % 1000 == 0 && !QDir().mkpath(dir))
            return false;
        const QString path = dir + QStringLiteral("/f%1.conf").arg(i);
        if (!opsdeck::test::writeFile(path, "x\n"))
            return false;
        if (i % 10 != 0) { // nine in ten untouched for three hours
            const utimbuf times{old, old};
            ::utime(QFile::encodeName(path).constData(), &times);
        }
    }
    return true;
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    const QStringList args = app.arguments();
    const int lines = option(args, QStringLiteral("--lines"), 10000);
    const int files = option(args, QStringLiteral("--files"), 100000);
    const int n = option(args, QStringLiteral("--n"), 5);
    const QString testUser = args.contains(QStringLiteral("--test-user"))
                                 ? args.value(args.indexOf(QStringLiteral("--test-user")) + 1)
                                 : QString();
    const QString cli = opsdeck::test::binPath(QStringLiteral("opsdeck-cli"));
    QTemporaryDir work;
    if (!work.isValid())
        return 2;

    // 1. knobs read beside bash.
    const QString script = work.filePath(QStringLiteral("serve_decode.sh"));
    if (!opsdeck::test::writeFile(script, serveScript(lines)))
        return 2;
    const auto ours = medianMs(
        n, cli,
        {QStringLiteral("knobs"), QStringLiteral("read"), script, QStringLiteral("--json")});
    const auto bash = medianMs(n, QStringLiteral("bash"),
                               {QStringLiteral("-c"),
                                QStringLiteral("set -a; source \"$1\" >/dev/null; env >/dev/null"),
                                QStringLiteral("bash"), script});
    if (!ours || !bash)
        return 1;
    std::printf("knobs read, %d lines: opsdeck-cli %.1f ms, bash set -a/source/env %.1f ms, "
                "ratio %.2f (medians of %d)\n",
                lines, *ours, *bash, *ours / *bash, n);

    // 2. changed-since over SSH beside ssh + find.
    std::optional<TestUser> user;
    if (!testUser.isEmpty() && ::getuid() == 0) {
        user.emplace(testUser);
        if (!user->create()) {
            std::fprintf(stderr, "bench_knobs: %s\n", qPrintable(user->errorText()));
            return 2;
        }
    }
    const QString tree = work.filePath(QStringLiteral("tree"));
    ::chmod(QFile::encodeName(work.path()).constData(), 0755); // the test user reads it
    if (!makeTree(tree, files))
        return 2;
    SshdProcess sshd;
    if (!testUser.isEmpty())
        sshd.setLoginUser(testUser);
    if (!sshd.start()) {
        std::fprintf(stderr, "bench_knobs: sshd did not start:\n%s\n",
                     qPrintable(sshd.errorText()));
        return 1;
    }
    const QString inventory = work.filePath(QStringLiteral("inventory.yaml"));
    opsdeck::test::writeFile(
        inventory, QStringLiteral("hosts:\n  - name: %1\n    kind: ssh\n    address: 127.0.0.1\n"
                                  "    port: %2\n    user: %3\n    watch_paths: [%4]\n"
                                  "services: []\n")
                       .arg(SshdProcess::alias())
                       .arg(sshd.port())
                       .arg(sshd.loginUser(), tree)
                       .toUtf8());
    const auto changed =
        medianMs(n, cli,
                 {QStringLiteral("changed-since"), QStringLiteral("--inventory"), inventory,
                  QStringLiteral("--host"), SshdProcess::alias(), QStringLiteral("--since"),
                  QStringLiteral("1h"), QStringLiteral("--json"), QStringLiteral("--ssh-config"),
                  sshd.sshConfig(), QStringLiteral("--known-hosts"), sshd.knownHosts(),
                  QStringLiteral("--data-dir"), work.filePath(QStringLiteral("data"))});
    const auto find = medianMs(n, QStringLiteral("ssh"),
                               {QStringLiteral("-F"), sshd.sshConfig(), SshdProcess::alias(),
                                QStringLiteral("find %1 -newermt '1 hour ago'").arg(tree)});
    if (!changed || !find)
        return 1;
    std::printf("changed-since over SSH, %d files (%d changed): opsdeck-cli %.1f ms, ssh + find "
                "%.1f ms, ratio %.2f (medians of %d)\n",
                files, (files + 9) / 10, *changed, *find, *changed / *find, n);
    return 0;
}
