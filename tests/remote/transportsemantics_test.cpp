// The command semantics both transports share (transport.h), run on
// LocalTransport and on SshTransport against a real sshd: the same request
// must give the same result whichever way the host is reached.
#include "localtransport.h"
#include "sshfixture.h"
#include "sshtransport.h"
#include "synchronousrun.h"

#include <QCoreApplication>
#include <QEventLoop>
#include <QFile>
#include <QTimer>
#include <cstdio>
#include <gtest/gtest.h>
#include <memory>
#include <optional>

using namespace std::chrono_literals;
using opsdeck::remote::CommandRequest;
using opsdeck::remote::CommandResult;
using opsdeck::remote::OutputChannel;
using opsdeck::remote::runAndWait;
using opsdeck::remote::Transport;
using opsdeck::test::SshdProcess;

namespace {

class TransportSemantics : public testing::TestWithParam<QString>
{
protected:
    static void SetUpTestSuite()
    {
        s_sshd = new SshdProcess;
        ASSERT_TRUE(s_sshd->start()) << s_sshd->errorText().toStdString();
    }
    static void TearDownTestSuite()
    {
        delete s_sshd;
        s_sshd = nullptr;
    }

    std::unique_ptr<Transport> makeTransport()
    {
        if (GetParam() == u"local")
            return std::make_unique<opsdeck::remote::LocalTransport>();
        return std::make_unique<opsdeck::remote::SshTransport>(QStringLiteral("test-host"),
                                                               opsdeck::test::sshSettings(*s_sshd));
    }
    CommandResult run(const CommandRequest &request)
    {
        auto transport = makeTransport();
        return runAndWait(*transport, request);
    }
    CommandResult runScript(const QString &script, std::chrono::milliseconds deadline = 20s)
    {
        CommandRequest request;
        request.script = script;
        request.deadline = deadline;
        return run(request);
    }

    static SshdProcess *s_sshd;
};

SshdProcess *TransportSemantics::s_sshd = nullptr;

/// What commandOutput delivered for one command id, and any breach of its
/// guarantees (transport.h) seen on the way.
struct StreamedOutput
{
    explicit StreamedOutput(Transport &watched) : transport(&watched)
    {
        QObject::connect(transport, &Transport::commandOutput, transport,
                         [this](quint64 id, OutputChannel channel, const QByteArray &chunk) {
                             if (id != wanted)
                                 return;
                             chunkAfterEnd = chunkAfterEnd || result.has_value();
                             emptyChunk = emptyChunk || chunk.isEmpty();
                             ++chunks;
                             (channel == OutputChannel::StandardOutput ? out : err) += chunk;
                         });
        QObject::connect(transport, &Transport::commandFinished, transport,
                         [this](quint64 id, const CommandResult &r) {
                             if (id == wanted)
                                 result = r;
                         });
    }

    /// Waits in an event loop that wakes on each event, not on a 10 ms
    /// poll as waitUntil does: a local 50 MB output takes 800 pipe reads.
    bool waitForResult(std::chrono::milliseconds deadline)
    {
        QEventLoop loop;
        QTimer::singleShot(deadline, &loop, &QEventLoop::quit);
        // Connected after the recorder's slot: `result` is set when this runs.
        QObject::connect(transport, &Transport::commandFinished, &loop, [&](quint64 id) {
            if (id == wanted)
                loop.quit();
        });
        if (!result)
            loop.exec();
        return result.has_value();
    }

    Transport *transport;

    quint64 wanted = 0;
    QByteArray out;
    QByteArray err;
    int chunks = 0;
    bool chunkAfterEnd = false;
    bool emptyChunk = false;
    std::optional<CommandResult> result;
};

} // namespace

TEST_P(TransportSemantics, ReportsExitCodesAndOutput)
{
    const CommandResult zero = runScript(QStringLiteral("echo out; echo err >&2; exit 0"));
    EXPECT_EQ(zero.outcome, CommandResult::Outcome::Exited) << zero.describe().toStdString();
    EXPECT_TRUE(zero.succeeded());
    EXPECT_EQ(zero.standardOutput, "out\n");
    EXPECT_EQ(zero.standardError, "err\n");

    const CommandResult three = runScript(QStringLiteral("exit 3"));
    EXPECT_EQ(three.outcome, CommandResult::Outcome::Exited);
    EXPECT_EQ(three.exitCode, 3);
    EXPECT_FALSE(three.succeeded());

    const CommandResult missing = runScript(QStringLiteral("opsdeck-no-such-command"));
    EXPECT_EQ(missing.exitCode, 127);
    EXPECT_TRUE(missing.standardError.contains("not found")) << missing.standardError.data();
}

TEST_P(TransportSemantics, ReportsTheKillingSignalByName)
{
    const CommandResult term = runScript(QStringLiteral("kill -TERM $$"));
    EXPECT_EQ(term.outcome, CommandResult::Outcome::Signalled) << term.describe().toStdString();
    EXPECT_EQ(term.signalName, QStringLiteral("SIGTERM"));
    EXPECT_FALSE(term.succeeded());

    const CommandResult kill = runScript(QStringLiteral("echo before; kill -KILL $$"));
    EXPECT_EQ(kill.outcome, CommandResult::Outcome::Signalled) << kill.describe().toStdString();
    EXPECT_EQ(kill.signalName, QStringLiteral("SIGKILL"));
    EXPECT_EQ(kill.standardOutput, "before\n");
}

TEST_P(TransportSemantics, DeadlineKillsTheCommandAndItIsGone)
{
    // A sleep length no other process uses, so pgrep finds only ours.
    const QString marker = QStringLiteral("sleep 600.%1").arg(QCoreApplication::applicationPid());
    const CommandResult result = runScript(marker, 800ms);
    EXPECT_EQ(result.outcome, CommandResult::Outcome::TimedOut) << result.describe().toStdString();
    EXPECT_FALSE(result.succeeded());
    // TERM is enough for sleep: well inside deadline + the TERM -> KILL grace.
    EXPECT_LT(result.elapsedMs, 800 + 2000 + 1000);
    EXPECT_TRUE(
        opsdeck::test::waitUntil([&] { return !opsdeck::test::processMatching(marker); }, 5s))
        << "the remote sleep outlived its deadline";
}

TEST_P(TransportSemantics, CancelKillsTheRunningCommand)
{
    auto transport = makeTransport();
    CommandRequest request;
    const QString started = QStringLiteral("/tmp/opsdeck-cancel-%1-%2")
                                .arg(QCoreApplication::applicationPid())
                                .arg(GetParam());
    QFile::remove(started);
    const QString sleep = QStringLiteral("sleep 700.%1").arg(QCoreApplication::applicationPid());
    request.script = QStringLiteral("touch '%1'; %2").arg(started, sleep);
    std::optional<CommandResult> result;
    QObject::connect(transport.get(), &Transport::commandFinished, transport.get(),
                     [&](quint64, const CommandResult &r) { result = r; });
    const quint64 id = transport->run(request);
    ASSERT_TRUE(opsdeck::test::waitUntil([&] { return QFile::exists(started); }, 10s));
    QFile::remove(started);
    transport->cancel(id);
    ASSERT_TRUE(opsdeck::test::waitUntil([&] { return result.has_value(); }, 10s));
    EXPECT_EQ(result->outcome, CommandResult::Outcome::Cancelled)
        << result->describe().toStdString();
    EXPECT_EQ(transport->runningCount(), 0);
    EXPECT_TRUE(
        opsdeck::test::waitUntil([&] { return !opsdeck::test::processMatching(sleep); }, 5s))
        << "the cancelled command still runs";
}

TEST_P(TransportSemantics, StdinIsAtEofUnlessGiven)
{
    // The script reaches bash on stdin: cat must get EOF, not the script's next line.
    const CommandResult closed = runScript(QStringLiteral("cat\necho done"), 10s);
    EXPECT_TRUE(closed.succeeded()) << closed.describe().toStdString();
    EXPECT_EQ(closed.standardOutput, "done\n");
    EXPECT_LT(closed.elapsedMs, 5000);

    CommandRequest given;
    given.argv = {QStringLiteral("tr"), QStringLiteral("a-z"), QStringLiteral("A-Z")};
    given.input = QByteArray("knob\n");
    const CommandResult upper = run(given);
    EXPECT_TRUE(upper.succeeded());
    EXPECT_EQ(upper.standardOutput, "KNOB\n");

    // Bigger than one SSH window (libssh: 64 kB at first): the writes follow the window.
    CommandRequest large;
    large.argv = {QStringLiteral("wc"), QStringLiteral("-c")};
    large.input = QByteArray(3 * 1024 * 1024, 'k');
    const CommandResult counted = run(large);
    EXPECT_TRUE(counted.succeeded());
    EXPECT_EQ(counted.standardOutput.trimmed(), "3145728");
}

// Case B16 C: a script that asks "Overwrite? [y/N]" gets EOF from `read`, ends
// by its own logic at once, and its result says it asked.
TEST_P(TransportSemantics, AScriptThatAsksIsAnsweredByEofAndFlagged)
{
    const CommandResult result = runScript(
        QStringLiteral("printf 'Backup /home/ops/serve_sglang.sh.bak exists. Overwrite? [y/N] '\n"
                       "read -r answer || exit 1\necho overwritten"),
        10s);
    EXPECT_EQ(result.outcome, CommandResult::Outcome::Exited);
    EXPECT_EQ(result.exitCode, 1);
    EXPECT_LT(result.elapsedMs, 5000);
    EXPECT_EQ(result.inputPrompt,
              QStringLiteral("Backup /home/ops/serve_sglang.sh.bak exists. Overwrite? [y/N]"));
    EXPECT_TRUE(result.describe().contains(QStringLiteral("asked for input")))
        << result.describe().toStdString();

    EXPECT_TRUE(runScript(QStringLiteral("echo 'all done: 3 files'")).inputPrompt.isEmpty());
}

// bash reads and checks the whole script before it runs any of it: a syntax
// error on the last line runs nothing, and bash's line number is the
// script's own. Cases found by trying to break it: a CRLF `then`, a stray
// `}` (which closed an earlier `{ ... }` wrapper early), and a script of
// 30,000 commands (bash 5.2 crashes on a group that long).
TEST_P(TransportSemantics, AScriptWithASyntaxErrorRunsNothing)
{
    const QString never = QStringLiteral("/tmp/opsdeck-never-%1").arg(GetParam());
    QFile::remove(never);
    const CommandResult result =
        runScript(QStringLiteral("echo restarting\ntouch %1\nif then fi").arg(never));
    EXPECT_EQ(result.outcome, CommandResult::Outcome::FailedToStart);
    EXPECT_EQ(result.standardOutput, QByteArray());
    EXPECT_FALSE(QFile::exists(never)) << "the script's line 2 ran";
    EXPECT_TRUE(result.errorText.contains(QStringLiteral("nothing of it was run")))
        << result.errorText.toStdString();
    EXPECT_TRUE(result.errorText.contains(QStringLiteral("line 3")))
        << result.errorText.toStdString();
    EXPECT_FALSE(result.standardError.contains("opsdeck:")) << result.standardError.toStdString();

    for (const QString &broken :
         {QStringLiteral("if kill -0 1; then\r\n  exit 0\r\nfi\r\nexit 1\r\n"),
          QStringLiteral("echo step1\n}\necho step2"), QStringLiteral("echo 'unclosed"),
          QStringLiteral("echo a &&")}) {
        const CommandResult refused = runScript(broken);
        EXPECT_EQ(refused.outcome, CommandResult::Outcome::FailedToStart)
            << broken.toStdString() << ": " << refused.describe().toStdString();
        EXPECT_EQ(refused.standardOutput, QByteArray()) << broken.toStdString();
    }

    // Only comments: nothing to run, exit 0.
    const CommandResult comments = runScript(QStringLiteral("# no stop command needed\n"));
    EXPECT_TRUE(comments.succeeded())
        << comments.describe().toStdString() << comments.standardError.toStdString();

    QString many;
    for (int i = 0; i < 30000; ++i)
        many += QStringLiteral("x=%1\n").arg(i);
    const CommandResult long30k = runScript(many + QStringLiteral("echo \"last $x\""));
    EXPECT_TRUE(long30k.succeeded()) << long30k.describe().toStdString();
    EXPECT_EQ(long30k.standardOutput, "last 29999\n");
}

// The script is in no command line: longer than one execve argument may be
// (128 KiB), and not visible in the host's process list.
TEST_P(TransportSemantics, AScriptIsNotPartOfAnyCommandLine)
{
    const QString marker = QStringLiteral("opsdeck-script-marker");
    const CommandResult result =
        runScript(QStringLiteral("# %1 %2\n").arg(marker, QString(200 * 1024, u'x')) +
                  QStringLiteral("tr '\\0' ' ' </proc/$$/cmdline; echo"));
    ASSERT_TRUE(result.succeeded())
        << result.describe().toStdString() << result.errorText.toStdString();
    // "bash -s" over SSH; QProcess starts it by its full path.
    EXPECT_TRUE(result.standardOutput == "bash -s \n" ||
                result.standardOutput == "/usr/bin/bash -s \n")
        << result.standardOutput.toStdString();
    EXPECT_FALSE(result.standardOutput.contains(marker.toUtf8()));
}

TEST_P(TransportSemantics, AScriptGivenInputIsRefused)
{
    CommandRequest request;
    request.script = QStringLiteral("tr a-z A-Z");
    request.input = QByteArray("knob\n");
    const CommandResult result = run(request);
    EXPECT_EQ(result.outcome, CommandResult::Outcome::FailedToStart);
    EXPECT_TRUE(result.errorText.contains(QStringLiteral("script cannot be given input")))
        << result.errorText.toStdString();
}

TEST_P(TransportSemantics, OutputPastTheCapIsCountedNotKept)
{
    CommandRequest request;
    request.script = QStringLiteral("head -c 300000 /dev/zero; head -c 5000 /dev/zero >&2");
    request.outputCap = 1000;
    const CommandResult result = run(request);
    EXPECT_TRUE(result.succeeded());
    EXPECT_EQ(result.standardOutput.size(), 1000);
    EXPECT_EQ(result.standardOutputDropped, 299000);
    EXPECT_EQ(result.standardError.size(), 1000);
    EXPECT_EQ(result.standardErrorDropped, 4000);
}

TEST_P(TransportSemantics, NonUtf8BytesPassThroughIntact)
{
    const CommandResult result = runScript(QStringLiteral("printf '\\377\\376\\000'; "
                                                          "printf '\\300\\n' >&2"));
    EXPECT_TRUE(result.succeeded());
    EXPECT_EQ(result.standardOutput, QByteArray("\xff\xfe\x00", 3));
    EXPECT_EQ(result.standardError, QByteArray("\xc0\n", 2));
}

TEST_P(TransportSemantics, EnvironmentWorkingDirectoryAndArgvQuoting)
{
    CommandRequest request;
    request.script = QStringLiteral("echo \"$OPSDECK_KNOB:$(pwd)\"");
    request.environment.insert(QStringLiteral("OPSDECK_KNOB"), QStringLiteral("it's $512"));
    request.workingDirectory = QStringLiteral("/tmp");
    const CommandResult env = run(request);
    EXPECT_EQ(env.standardOutput, "it's $512:/tmp\n") << env.standardError.data();

    CommandRequest argv;
    argv.argv = {QStringLiteral("printf"), QStringLiteral("%s|"),   QStringLiteral("a b"),
                 QStringLiteral("it's"),   QStringLiteral("$HOME"), QStringLiteral("`id`")};
    const CommandResult quoted = run(argv);
    EXPECT_EQ(quoted.standardOutput, "a b|it's|$HOME|`id`|");
}

TEST_P(TransportSemantics, OutputIsStreamedWhileTheCommandRuns)
{
    auto transport = makeTransport();
    StreamedOutput streamed(*transport);
    // The command prints, then waits for a file the test creates only once it
    // has seen that output: if output came only at the end, this would hang
    // until the 30 s loop gave up, past the 15 s wait below.
    const QString gate = QStringLiteral("/tmp/opsdeck-stream-gate-%1-%2")
                             .arg(QCoreApplication::applicationPid())
                             .arg(GetParam());
    QFile::remove(gate);
    CommandRequest request;
    request.script = QStringLiteral("printf 'first\\377\\n'; printf 'err\\300\\n' >&2; "
                                    "for i in $(seq 1 600); do [ -e '%1' ] && break; sleep 0.05; "
                                    "done; printf 'second\\n'; printf 'err2\\n' >&2")
                         .arg(gate);
    request.deadline = 60s;
    streamed.wanted = transport->run(request);

    const QByteArray first("first\xff\n");
    const QByteArray firstErr("err\xc0\n");
    ASSERT_TRUE(opsdeck::test::waitUntil(
        [&] { return streamed.out == first && streamed.err == firstErr; }, 15s))
        << "streamed so far: [" << streamed.out.toHex().data() << "] ["
        << streamed.err.toHex().data() << "]";
    EXPECT_FALSE(streamed.result.has_value()) << "the command ended before it was let go";
    ASSERT_TRUE(opsdeck::test::writeFile(gate, {}));
    ASSERT_TRUE(opsdeck::test::waitUntil([&] { return streamed.result.has_value(); }, 30s));
    QFile::remove(gate);

    EXPECT_TRUE(streamed.result->succeeded()) << streamed.result->describe().toStdString();
    EXPECT_EQ(streamed.out, first + "second\n");
    EXPECT_EQ(streamed.err, firstErr + "err2\n");
    EXPECT_EQ(streamed.out, streamed.result->standardOutput);
    EXPECT_EQ(streamed.err, streamed.result->standardError);
    EXPECT_FALSE(streamed.emptyChunk);
    // A chunk sent after the end would be delivered before the next command's end.
    CommandRequest next;
    next.script = QStringLiteral("echo next");
    EXPECT_TRUE(runAndWait(*transport, next).succeeded());
    EXPECT_FALSE(streamed.chunkAfterEnd);
}

TEST_P(TransportSemantics, StreamedOutputIsCappedAndAddsUpToTheResult)
{
    auto transport = makeTransport();
    StreamedOutput streamed(*transport);
    // Random bytes (any value, NULs too); an odd cap, so it falls inside a chunk.
    CommandRequest request;
    request.script = QStringLiteral("head -c 3000000 /dev/urandom; head -c 70000 /dev/urandom >&2");
    request.outputCap = 2000003;
    streamed.wanted = transport->run(request);
    ASSERT_TRUE(streamed.waitForResult(30s));
    const CommandResult &result = *streamed.result;
    EXPECT_TRUE(result.succeeded()) << result.describe().toStdString();
    EXPECT_EQ(result.standardOutput.size(), 2000003);
    EXPECT_EQ(result.standardOutputDropped, 3000000 - 2000003);
    EXPECT_EQ(result.standardError.size(), 70000);
    EXPECT_EQ(result.standardErrorDropped, 0);
    EXPECT_TRUE(streamed.out == result.standardOutput) << "streamed " << streamed.out.size();
    EXPECT_TRUE(streamed.err == result.standardError) << "streamed " << streamed.err.size();
    EXPECT_GT(streamed.chunks, 2) << "streamed in pieces, not once at the end";
    EXPECT_FALSE(streamed.emptyChunk);
    EXPECT_FALSE(streamed.chunkAfterEnd);
}

TEST_P(TransportSemantics, FiftyMegabytesStreamOnlyTheKeptBytesInFewChunks)
{
    auto transport = makeTransport();
    StreamedOutput streamed(*transport);
    CommandRequest request; // default cap: 8 MiB kept
    request.script = QStringLiteral("head -c 52428800 /dev/zero");
    streamed.wanted = transport->run(request);
    ASSERT_TRUE(streamed.waitForResult(60s));
    const CommandResult &result = *streamed.result;
    ASSERT_TRUE(result.succeeded()) << result.describe().toStdString();
    const qint64 kept = 8 * 1024 * 1024;
    EXPECT_EQ(streamed.out.size(), kept);
    EXPECT_EQ(result.standardOutputDropped, 52428800 - kept);
    EXPECT_TRUE(streamed.out == result.standardOutput);
    std::printf("%s: 50 MB output, %lld bytes kept, streamed in %d chunks, %lld ms\n",
                qPrintable(GetParam()), static_cast<long long>(kept), streamed.chunks,
                static_cast<long long>(result.elapsedMs));
    if (GetParam() == u"ssh") {
        // OutputCoalescer: a hand-over per 64 KiB, or per 50 ms at most, plus the last.
        EXPECT_LE(streamed.chunks, kept / (64 * 1024) + result.elapsedMs / 50 + 2);
    }
}

INSTANTIATE_TEST_SUITE_P(Both, TransportSemantics,
                         testing::Values(QStringLiteral("local"), QStringLiteral("ssh")),
                         [](const testing::TestParamInfo<QString> &info) {
                             return info.param.toStdString();
                         });
