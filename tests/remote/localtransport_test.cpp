// LocalTransport: the command semantics every transport shares (exit code,
// signal, deadline, stdin at EOF, capped output), on real processes.
#include "localtransport.h"
#include "synchronousrun.h"

#include <gtest/gtest.h>

using opsdeck::remote::CommandRequest;
using opsdeck::remote::CommandResult;
using opsdeck::remote::LocalTransport;
using opsdeck::remote::runAndWait;

namespace {

CommandResult runScript(const QString &script,
                        std::chrono::milliseconds deadline = std::chrono::seconds(10))
{
    LocalTransport transport;
    CommandRequest request;
    request.script = script;
    request.deadline = deadline;
    return runAndWait(transport, request);
}

} // namespace

TEST(LocalTransport, ReportsExitCodeAndOutput)
{
    const CommandResult result = runScript(QStringLiteral("echo out; echo err >&2; exit 7"));
    EXPECT_EQ(result.outcome, CommandResult::Outcome::Exited);
    EXPECT_EQ(result.exitCode, 7);
    EXPECT_FALSE(result.succeeded());
    EXPECT_EQ(result.standardOutput, "out\n");
    EXPECT_EQ(result.standardError, "err\n");
}

TEST(LocalTransport, ReportsTheKillingSignalByName)
{
    const CommandResult result = runScript(QStringLiteral("kill -TERM $$"));
    EXPECT_EQ(result.outcome, CommandResult::Outcome::Signalled);
    EXPECT_EQ(result.signalName, QStringLiteral("SIGTERM"));
    EXPECT_FALSE(result.succeeded());
}

TEST(LocalTransport, DeadlineKillsTheWholeProcessGroup)
{
    // The background sleep would keep a pipe open if only bash were killed.
    const CommandResult result =
        runScript(QStringLiteral("sleep 60 & sleep 60"), std::chrono::milliseconds(300));
    EXPECT_EQ(result.outcome, CommandResult::Outcome::TimedOut);
    EXPECT_FALSE(result.succeeded());
    EXPECT_LT(result.elapsedMs, 5000);
}

TEST(LocalTransport, StdinIsAtEofUnlessGiven)
{
    // `cat` returns at once because stdin is closed, instead of waiting forever.
    const CommandResult closed =
        runScript(QStringLiteral("cat; echo done"), std::chrono::seconds(5));
    EXPECT_TRUE(closed.succeeded());
    EXPECT_EQ(closed.standardOutput, "done\n");

    LocalTransport transport;
    CommandRequest request;
    request.argv = QStringList{QStringLiteral("tr"), QStringLiteral("a-z"), QStringLiteral("A-Z")};
    request.input = QByteArray("knob\n");
    const CommandResult given = runAndWait(transport, request);
    EXPECT_EQ(given.standardOutput, "KNOB\n");
}

TEST(LocalTransport, OutputPastTheCapIsCountedNotKept)
{
    LocalTransport transport;
    CommandRequest request;
    request.script = QStringLiteral("head -c 300000 /dev/zero");
    request.outputCap = 1000;
    const CommandResult result = runAndWait(transport, request);
    EXPECT_TRUE(result.succeeded());
    EXPECT_EQ(result.standardOutput.size(), 1000);
    EXPECT_EQ(result.standardOutputDropped, 299000);
}

TEST(LocalTransport, MissingProgramFailsToStart)
{
    LocalTransport transport;
    CommandRequest request;
    request.argv = {QStringLiteral("/nonexistent/opsdeck-no-such-program")};
    const CommandResult result = runAndWait(transport, request);
    EXPECT_EQ(result.outcome, CommandResult::Outcome::FailedToStart);
    EXPECT_FALSE(result.errorText.isEmpty());
}

TEST(LocalTransport, EnvironmentAndWorkingDirectoryApply)
{
    LocalTransport transport;
    CommandRequest request;
    request.script = QStringLiteral("echo \"$OPSDECK_KNOB:$(pwd)\"");
    request.environment.insert(QStringLiteral("OPSDECK_KNOB"), QStringLiteral("512"));
    request.workingDirectory = QStringLiteral("/tmp");
    const CommandResult result = runAndWait(transport, request);
    EXPECT_EQ(result.standardOutput, "512:/tmp\n");
}

// A service account's HOME may name a folder that does not exist (or none
// at all): commands still run, from /, as ssh does for such a login.
TEST(LocalTransport, AHomeThatDoesNotExistRunsCommandsFromTheRoot)
{
    const QByteArray home = qgetenv("HOME");
    qputenv("HOME", "/nonexistent/opsdeck-home");
    const CommandResult result = runScript(QStringLiteral("pwd"));
    qputenv("HOME", home);
    EXPECT_EQ(result.outcome, CommandResult::Outcome::Exited) << result.errorText.toStdString();
    EXPECT_EQ(result.standardOutput, "/\n");
}
