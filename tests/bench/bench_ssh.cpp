// bench_ssh: N sequential short commands (`true`) against a test sshd on
// loopback, three ways in one run: over one OpsDeck session (SshTransport),
// `ssh HOST true` once per command, and OpenSSH with ControlMaster /
// ControlPersist. Connection set-up of the two session-reusing ways is timed
// apart (their first command). Issue 5's target: OpsDeck no slower than
// ControlMaster.
//
// usage: bench_ssh [--n N] [--test-user NAME] [--max-ratio R]
// --max-ratio: exit 1 when OpsDeck's total over ControlMaster's is above R.
// --test-user: log in as NAME, whose shell should do no start-up work (root's
// .bashrc here costs ~250 ms per command and would hide the transport). Run as
// root, the account is created when missing (shell /bin/sh, no home, password
// field `*`: no password login, not "locked" for sshd) and removed afterwards.
#include "sshdprocess.h"
#include "sshtransport.h"
#include "synchronousrun.h"
#include "testuser.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QProcess>
#include <algorithm>
#include <cstdio>
#include <functional>
#include <numeric>
#include <optional>
#include <unistd.h>

using opsdeck::remote::CommandRequest;
using opsdeck::test::SshdProcess;
using opsdeck::test::TestUser;

namespace {

struct Figures
{
    double setupMs = 0;
    QVector<double> commandMs;
    double total() const { return std::accumulate(commandMs.begin(), commandMs.end(), 0.0); }
    double median() const
    {
        QVector<double> sorted = commandMs;
        std::sort(sorted.begin(), sorted.end());
        return sorted.isEmpty() ? 0 : sorted.at(sorted.size() / 2);
    }
};

bool runQuiet(const QString &program, const QStringList &arguments)
{
    QProcess process;
    process.start(program, arguments);
    return process.waitForFinished(30000) && process.exitStatus() == QProcess::NormalExit &&
           process.exitCode() == 0;
}

// Times one command; false when it did not succeed.
bool timed(Figures &figures, bool setup, const std::function<bool()> &run)
{
    QElapsedTimer clock;
    clock.start();
    const bool ok = run();
    const double ms = static_cast<double>(clock.nsecsElapsed()) / 1e6;
    if (setup)
        figures.setupMs = ms;
    else
        figures.commandMs << ms;
    return ok;
}

void print(const char *name, const Figures &f)
{
    std::printf("%-28s setup %7.1f ms   %d commands %8.1f ms   median %6.2f ms/command\n", name,
                f.setupMs, static_cast<int>(f.commandMs.size()), f.total(), f.median());
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    const QStringList args = app.arguments();
    const int n = args.contains(QStringLiteral("--n"))
                      ? args.value(args.indexOf(QStringLiteral("--n")) + 1).toInt()
                      : 100;
    const QString testUser = args.contains(QStringLiteral("--test-user"))
                                 ? args.value(args.indexOf(QStringLiteral("--test-user")) + 1)
                                 : QString();
    // The target is "no slower than ControlMaster": --max-ratio 1.
    const double maxRatio =
        args.contains(QStringLiteral("--max-ratio"))
            ? args.value(args.indexOf(QStringLiteral("--max-ratio")) + 1).toDouble()
            : 0;
    // Removed at the end only if made here.
    std::optional<TestUser> user;
    if (!testUser.isEmpty() && ::getuid() == 0) {
        user.emplace(testUser);
        if (!user->create()) {
            std::fprintf(stderr, "bench_ssh: %s\n", qPrintable(user->errorText()));
            return 2;
        }
    }
    int status = 0;
    {
        SshdProcess sshd;
        if (!testUser.isEmpty())
            sshd.setLoginUser(testUser);
        if (!sshd.start()) {
            std::fprintf(stderr, "bench_ssh: sshd did not start:\n%s\n",
                         qPrintable(sshd.errorText()));
            status = 1;
        } else {
            std::printf("bench_ssh: %d x `true` as %s on 127.0.0.1:%d (OpenSSH sshd)\n", n,
                        qPrintable(sshd.loginUser()), sshd.port());
            // OpsDeck: one session, commands one after another.
            Figures opsdeck;
            {
                opsdeck::remote::SshSettings settings;
                settings.host = SshdProcess::alias();
                settings.configFile = sshd.sshConfig();
                settings.knownHostsFile = sshd.knownHosts();
                settings.sshDirectory = sshd.sshDirectory();
                settings.identityFiles = {sshd.clientKey()};
                settings.useAgent = false;
                opsdeck::remote::SshTransport transport(QStringLiteral("bench"), settings);
                CommandRequest request;
                request.argv = {QStringLiteral("true")};
                for (int i = 0; i <= n && status == 0; ++i)
                    if (!timed(opsdeck, i == 0, [&] {
                            return opsdeck::remote::runAndWait(transport, request).succeeded();
                        }))
                        status = 1;
            }
            const QStringList base{QStringLiteral("-F"), sshd.sshConfig()};
            Figures plain;
            for (int i = 0; i < n && status == 0; ++i)
                if (!timed(plain, false, [&] {
                        return runQuiet(
                            QStringLiteral("ssh"),
                            base + QStringList{SshdProcess::alias(), QStringLiteral("true")});
                    }))
                    status = 1;
            Figures master;
            const QStringList control =
                base +
                QStringList{
                    QStringLiteral("-o"), QStringLiteral("ControlMaster=auto"),
                    QStringLiteral("-o"), QStringLiteral("ControlPath=%1/cm-%C").arg(sshd.dir()),
                    QStringLiteral("-o"), QStringLiteral("ControlPersist=120")};
            for (int i = 0; i <= n && status == 0; ++i)
                if (!timed(master, i == 0, [&] {
                        return runQuiet(
                            QStringLiteral("ssh"),
                            control + QStringList{SshdProcess::alias(), QStringLiteral("true")});
                    }))
                    status = 1;
            runQuiet(QStringLiteral("ssh"),
                     control + QStringList{QStringLiteral("-O"), QStringLiteral("exit"),
                                           SshdProcess::alias()});
            if (status == 0) {
                print("OpsDeck (one session)", opsdeck);
                print("ssh per command", plain);
                print("ssh ControlMaster", master);
                const double ratio = opsdeck.total() / master.total();
                std::printf("OpsDeck / ControlMaster: %.2f (total of the %d commands)\n", ratio, n);
                if (maxRatio > 0 && ratio > maxRatio) {
                    std::fprintf(stderr,
                                 "bench_ssh: OpsDeck / ControlMaster %.2f is over the "
                                 "target %.2f\n",
                                 ratio, maxRatio);
                    status = 1;
                }
            } else {
                std::fprintf(stderr, "bench_ssh: a command failed; sshd log:\n%s\n",
                             qPrintable(sshd.errorText()));
            }
        }
    }
    return status;
}
