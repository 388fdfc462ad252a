// The window's command line without a display: --help and --version answer
// (a newcomer or a packaging script asks before any X server exists).
#include "testsupport.h"

#include <QProcess>
#include <QProcessEnvironment>
#include <gtest/gtest.h>

namespace {

struct Ran
{
    int exitCode = -1;
    QString out;
    QString err;
};

Ran runWithoutDisplay(const QStringList &arguments)
{
    QProcess process;
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.remove(QStringLiteral("DISPLAY"));
    environment.remove(QStringLiteral("WAYLAND_DISPLAY"));
    environment.remove(QStringLiteral("QT_QPA_PLATFORM"));
    process.setProcessEnvironment(environment);
    process.start(opsdeck::test::binPath(QStringLiteral("opsdeck")), arguments);
    Ran ran;
    if (!process.waitForFinished(20'000)) {
        process.kill();
        process.waitForFinished();
        return ran;
    }
    ran.exitCode = process.exitCode();
    ran.out = QString::fromUtf8(process.readAllStandardOutput());
    ran.err = QString::fromUtf8(process.readAllStandardError());
    return ran;
}

} // namespace

TEST(WindowCommandLine, HelpAndVersionNeedNoDisplay)
{
    const Ran help = runWithoutDisplay({QStringLiteral("--help")});
    EXPECT_EQ(help.exitCode, 0) << help.out.toStdString();
    for (const char *flag : {"--demo", "--inventory", "--screenshot", "--tab", "--version"})
        EXPECT_TRUE(help.out.contains(QLatin1String(flag))) << flag << "\n"
                                                            << help.out.toStdString();

    const Ran version = runWithoutDisplay({QStringLiteral("--version")});
    EXPECT_EQ(version.exitCode, 0);
    EXPECT_TRUE(version.out.startsWith(QStringLiteral("opsdeck "))) << version.out.toStdString();

    // Bad arguments are usage errors (exit 2) before any display is needed.
    for (const QStringList &bad :
         {QStringList{QStringLiteral("--bogus")}, QStringList{QStringLiteral("--inventory")},
          QStringList{QStringLiteral("extra")}}) {
        const Ran refused = runWithoutDisplay(bad);
        EXPECT_EQ(refused.exitCode, 2) << bad.join(u' ').toStdString() << refused.err.toStdString();
        EXPECT_TRUE(refused.err.startsWith(QStringLiteral("opsdeck: ")))
            << refused.err.toStdString();
        EXPECT_FALSE(refused.err.contains(QStringLiteral("platform plugin")))
            << refused.err.toStdString();
    }
}
