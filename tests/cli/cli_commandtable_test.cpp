// opsdeck-cli's command table: the usage lists exactly the flags each command
// accepts (its own --help is the truth), an action comes first, and the man
// pages generated from the programs' help exist and name every command.
#include "clitest.h"
#include "testsupport.h"

#include <QDir>
#include <QFile>
#include <QRegularExpression>
#include <QSet>
#include <gtest/gtest.h>

using namespace Qt::StringLiterals;
using opsdeck::test::runCli;

namespace {

QSet<QString> flagsIn(const QString &text)
{
    QSet<QString> flags;
    // Long flags, and one-letter ones such as -n.
    static const QRegularExpression flag(u"(?<![\\w-])(--[a-z][a-z-]*|-[a-z](?![\\w-]))"_s);
    for (auto it = flag.globalMatch(text); it.hasNext();)
        flags.insert(it.next().captured());
    flags.remove(u"--help"_s);
    flags.remove(u"--help-all"_s);
    flags.remove(u"-h"_s);
    return flags;
}

/// command name -> the usage lines of all its actions.
QMap<QString, QString> usageByCommand(const QString &usage)
{
    QMap<QString, QString> lines;
    static const QRegularExpression entry(u"^  ([a-z-]+)(?: ([a-z]+))? (.*)$"_s,
                                          QRegularExpression::MultilineOption);
    for (auto it = entry.globalMatch(usage); it.hasNext();) {
        const auto match = it.next();
        lines[match.captured(1)] += u' ' + match.captured(3);
    }
    return lines;
}

} // namespace

TEST(CliCommandTable, TheUsageListsExactlyTheFlagsEachCommandTakes)
{
    const auto help = runCli({u"--help"_s});
    ASSERT_EQ(help.exitCode, 0);
    const QMap<QString, QString> usage = usageByCommand(QString::fromUtf8(help.standardOutput));
    ASSERT_EQ(usage.size(), 15) << help.standardOutput.toStdString();
    for (auto it = usage.cbegin(); it != usage.cend(); ++it) {
        // The command's own parser: with an action where it has them.
        QStringList arguments{it.key()};
        if (it.key() == u"demo")
            arguments << u"up"_s;
        if (it.key() == u"secret")
            arguments << u"check"_s;
        if (it.key() == u"knobs")
            arguments << u"read"_s;
        if (it.key() == u"workflow")
            arguments << u"list"_s;
        if (it.key() == u"lock")
            arguments << u"status"_s;
        QSet<QString> accepted;
        for (const QString &action : it.key() == u"metrics" ? QStringList{u"summarize"_s, u"rate"_s}
                                                            : QStringList{QString()}) {
            const auto own = runCli(action.isEmpty() ? arguments + QStringList{u"--help"_s}
                                                     : QStringList{it.key(), action, u"--help"_s});
            EXPECT_EQ(own.exitCode, 0) << it.key().toStdString();
            accepted += flagsIn(QString::fromUtf8(own.standardOutput));
        }
        const QSet<QString> listed = flagsIn(it.value());
        EXPECT_EQ(listed, accepted)
            << it.key().toStdString() << " usage: " << it.value().toStdString()
            << "\nmissing: " << QStringList((accepted - listed).values()).join(u' ').toStdString()
            << "\nnot accepted: "
            << QStringList((listed - accepted).values()).join(u' ').toStdString();
    }
}

TEST(CliCommandTable, AnActionComesFirstAndAnUnknownOneIsBadInput)
{
    // A flag's value is never taken for the action (this ran summarize once).
    const auto misordered =
        runCli({u"metrics"_s, u"--profile"_s, u"vllm"_s, u"rate"_s, u"a"_s, u"b"_s});
    EXPECT_EQ(misordered.exitCode, 2);
    EXPECT_TRUE(misordered.standardError.contains("opsdeck-cli metrics needs an action first: "
                                                  "summarize, rate"))
        << misordered.standardError.toStdString();
    const auto unknown = runCli({u"demo"_s, u"sideways"_s});
    EXPECT_EQ(unknown.exitCode, 2);
    EXPECT_TRUE(unknown.standardError.contains("up, down")) << unknown.standardError.toStdString();
    const auto listing = runCli({u"secret"_s, u"--help"_s});
    EXPECT_EQ(listing.exitCode, 0);
    EXPECT_TRUE(listing.standardOutput.contains("opsdeck-cli secret set"));
}

TEST(CliCommandTable, ManPagesAreBuiltAndNameEveryCommand)
{
    const QDir man(opsdeck::test::binDir() + u"/../man"_s);
    for (const QString &page :
         {u"opsdeck.1"_s, u"opsdeck-cli.1"_s, u"opsdeck-sim.1"_s, u"opsdeck-inventory.5"_s}) {
        QFile file(man.filePath(page));
        ASSERT_TRUE(file.open(QIODevice::ReadOnly)) << file.fileName().toStdString();
        EXPECT_GT(file.size(), 500) << page.toStdString();
    }
    QFile cli(man.filePath(u"opsdeck-cli.1"_s));
    ASSERT_TRUE(cli.open(QIODevice::ReadOnly));
    const QString page = QString::fromUtf8(cli.readAll());
    for (const char *command :
         {"demo up",       "demo down",     "status",      "metrics summarize",
          "metrics rate",  "record",        "diagnose",    "probe",
          "verify",        "batch\\-check", "ssh",         "secret set",
          "secret delete", "secret check",  "knobs read",  "knobs set",
          "knobs restore", "knobs diff",    "knobs drift", "changed\\-since"})
        EXPECT_TRUE(page.contains(QLatin1String(command))) << command;
    QFile window(man.filePath(u"opsdeck.1"_s));
    ASSERT_TRUE(window.open(QIODevice::ReadOnly));
    EXPECT_TRUE(window.readAll().contains("\\-\\-inventory"));
}
