// inputPromptIn(): the prompt a command showed while waiting on stdin (case
// B16 C), found in its output so that its result says it asked.
#include "inputprompt.h"

#include <gtest/gtest.h>

using opsdeck::remote::CommandResult;
using opsdeck::remote::inputPromptIn;

namespace {

CommandResult withOutput(const QByteArray &out, const QByteArray &err = {})
{
    CommandResult result;
    result.outcome = CommandResult::Outcome::Exited;
    result.exitCode = 1;
    result.standardOutput = out;
    result.standardError = err;
    return result;
}

} // namespace

TEST(InputPrompt, YesNoMarkerOfCaseB16IsThePrompt)
{
    // stdout of /work/shared/cases/B16_ssh_remote_waits_on_stdin.transcript, case C.
    EXPECT_EQ(inputPromptIn(withOutput("Backup /home/ops/serve_sglang.sh.bak exists. Overwrite? "
                                       "[y/N] ")),
              QStringLiteral("Backup /home/ops/serve_sglang.sh.bak exists. Overwrite? [y/N]"));
    // The script went on after `read` got EOF: the marker is still found, cut after it.
    EXPECT_EQ(inputPromptIn(withOutput("checking\nProceed (yes/no)? aborted\n")),
              QStringLiteral("Proceed (yes/no)"));
    EXPECT_EQ(inputPromptIn(withOutput({}, "Really restart? [Y/n] ")),
              QStringLiteral("Really restart? [Y/n]"));
}

TEST(InputPrompt, ALastLineWithoutNewlineEndingLikeAPromptIsThePrompt)
{
    EXPECT_EQ(inputPromptIn(withOutput("loading\nEnter the model path: ")),
              QStringLiteral("Enter the model path:"));
    EXPECT_EQ(inputPromptIn(withOutput({}, "[sudo] password for ops: ")),
              QStringLiteral("[sudo] password for ops:"));
    EXPECT_EQ(inputPromptIn(withOutput("continue? ")), QStringLiteral("continue?"));
}

TEST(InputPrompt, OrdinaryOutputIsNoPrompt)
{
    EXPECT_TRUE(inputPromptIn(withOutput("status: running\n")).isEmpty());
    EXPECT_TRUE(inputPromptIn(withOutput("restarted decode")).isEmpty());
    EXPECT_TRUE(inputPromptIn(withOutput({})).isEmpty());
    // Output cut at the cap: its last line is not where the command stopped.
    CommandResult cut = withOutput("value: ");
    cut.standardOutputDropped = 10;
    EXPECT_TRUE(inputPromptIn(cut).isEmpty());
}

TEST(InputPrompt, ALongPromptIsShortenedToItsEnd)
{
    const QString prompt = inputPromptIn(withOutput(QByteArray(500, 'a') + " Overwrite? [y/N]"));
    EXPECT_EQ(prompt.size(), 160);
    EXPECT_TRUE(prompt.startsWith(u'…'));
    EXPECT_TRUE(prompt.endsWith(QStringLiteral("Overwrite? [y/N]")));
}

TEST(InputPrompt, DescribeSaysTheCommandAsked)
{
    CommandResult result = withOutput("Overwrite? [y/N] ");
    result.inputPrompt = inputPromptIn(result);
    EXPECT_EQ(result.describe(),
              QStringLiteral("exit 1; asked for input with stdin closed: “Overwrite? [y/N]”"));
}
