// Commands run through `sudo -n` (CommandRequest::sudo, case B16): the
// environment reaches the command inside sudo, and a sudo that wants a
// password fails at once with a message naming the host and the command,
// with the real sudo (Debian `sudo`) as a test user without sudo rights.
#include "localtransport.h"
#include "sshfixture.h"
#include "sshtransport.h"
#include "sudocommand.h"
#include "synchronousrun.h"
#include "testuser.h"

#include <gtest/gtest.h>
#include <memory>
#include <unistd.h>

using namespace std::chrono_literals;
using opsdeck::remote::CommandRequest;
using opsdeck::remote::CommandResult;
using opsdeck::remote::runAndWait;
using opsdeck::test::SshdProcess;
using opsdeck::test::TestUser;
namespace SudoCommand = opsdeck::remote::SudoCommand;

namespace {

// A throwaway login without sudo rights (no sudoers entry, no password),
// created for this suite and removed after it.
class SudoAsUnprivilegedUser : public testing::Test
{
protected:
    static void SetUpTestSuite()
    {
        s_user = std::make_unique<TestUser>(TestUser::uniqueName(QStringLiteral("nosudo")));
        ASSERT_TRUE(s_user->create()) << s_user->errorText().toStdString();
    }
    static void TearDownTestSuite() { s_user.reset(); }
    static QString user() { return s_user->name(); }
    static std::unique_ptr<TestUser> s_user;
};

std::unique_ptr<TestUser> SudoAsUnprivilegedUser::s_user;

} // namespace

TEST(SudoCommand, WrapsArgvAndScriptWithTheEnvironmentInsideSudo)
{
    CommandRequest request;
    request.script = QStringLiteral("systemctl restart sglang");
    request.environment.insert(QStringLiteral("SGLANG_X"), QStringLiteral("1"));
    request.sudo = true;
    const CommandRequest wrapped = SudoCommand::wrapped(request);
    EXPECT_EQ(wrapped.argv,
              (QStringList{QStringLiteral("sudo"), QStringLiteral("-n"), QStringLiteral("--"),
                           QStringLiteral("env"), QStringLiteral("SGLANG_X=1"),
                           QStringLiteral("bash"), QStringLiteral("-s")}));
    // The script follows on stdin, never on sudo's command line.
    ASSERT_TRUE(wrapped.input.has_value());
    EXPECT_TRUE(wrapped.input->contains("\nsystemctl restart sglang\nOPSDECK_SCRIPT_"));
    EXPECT_TRUE(wrapped.environment.isEmpty());
    EXPECT_FALSE(wrapped.sudo);
}

TEST(SudoCommand, PasswordPromptOfCaseB16BecomesAClearError)
{
    // stderr of /work/shared/cases/B16_ssh_remote_waits_on_stdin.transcript, case B.
    CommandResult result;
    result.outcome = CommandResult::Outcome::Exited;
    result.exitCode = 1;
    result.standardError =
        "sudo: a terminal is required to read the password; either use the -S option to read "
        "from standard input or configure an askpass helper\nsudo: a password is required\n";
    CommandRequest request;
    request.argv = QStringList{QStringLiteral("systemctl"), QStringLiteral("restart"),
                               QStringLiteral("sglang")};
    SudoCommand::explainFailure(result, QStringLiteral("host-a"), request);
    EXPECT_EQ(result.errorText,
              QStringLiteral("sudo needs a password on host host-a for `systemctl restart "
                             "sglang` (configure NOPASSWD in sudoers for this command; OpsDeck "
                             "never types a sudo password)"));
    EXPECT_EQ(result.exitCode, 1) << "the exit status stays as it was";

    CommandResult other;
    other.outcome = CommandResult::Outcome::Exited;
    other.exitCode = 1;
    other.standardError = "Failed to restart sglang.service: Unit not found.\n";
    SudoCommand::explainFailure(other, QStringLiteral("host-a"), request);
    EXPECT_TRUE(other.errorText.isEmpty()) << "only sudo's own refusal is explained";
}

TEST(SudoCommand, LocalSudoRunsAsRootWithTheEnvironment)
{
    ASSERT_EQ(::getuid(), 0u) << "root may sudo without a password (Debian's sudoers)";
    opsdeck::remote::LocalTransport transport(QStringLiteral("test-host"));
    CommandRequest request;
    request.script = QStringLiteral("echo \"$OPSDECK_SUDO_X\"; id -u");
    request.environment.insert(QStringLiteral("OPSDECK_SUDO_X"), QStringLiteral("kept"));
    request.sudo = true;
    const CommandResult result = runAndWait(transport, request);
    ASSERT_TRUE(result.succeeded())
        << result.describe().toStdString() << result.standardError.constData();
    EXPECT_EQ(result.standardOutput, "kept\n0\n");
    EXPECT_TRUE(result.errorText.isEmpty());
}

TEST_F(SudoAsUnprivilegedUser, PasswordRequiredIsAClearErrorNamingHostAndCommand)
{
    SshdProcess sshd;
    sshd.setLoginUser(user());
    ASSERT_TRUE(sshd.start()) << sshd.errorText().toStdString();
    opsdeck::remote::SshTransport transport(QStringLiteral("test-host"),
                                            opsdeck::test::sshSettings(sshd));
    CommandRequest request;
    request.argv = QStringList{QStringLiteral("systemctl"), QStringLiteral("restart"),
                               QStringLiteral("sglang")};
    request.sudo = true;
    request.deadline = 20s;
    const CommandResult result = runAndWait(transport, request);
    EXPECT_EQ(result.outcome, CommandResult::Outcome::Exited)
        << result.describe().toStdString() << result.errorText.toStdString();
    EXPECT_EQ(result.exitCode, 1);
    EXPECT_TRUE(result.standardError.contains("a password is required"))
        << result.standardError.constData();
    EXPECT_TRUE(
        result.errorText.contains(QStringLiteral("sudo needs a password on host test-host")))
        << result.errorText.toStdString();
    EXPECT_TRUE(result.errorText.contains(QStringLiteral("`systemctl restart sglang`")))
        << result.errorText.toStdString();
    EXPECT_LT(result.elapsedMs, request.deadline.count()) << "refused at once, not timed out";

    // The same user's plain command still works: the login is fine, only sudo refuses.
    CommandRequest whoami;
    whoami.argv = QStringList{QStringLiteral("id"), QStringLiteral("-un")};
    const CommandResult plain = runAndWait(transport, whoami);
    ASSERT_TRUE(plain.succeeded()) << plain.describe().toStdString();
    EXPECT_EQ(plain.standardOutput, user().toUtf8() + '\n');
}
