// The exec command string SshTransport sends: quoting that survives any byte
// the shell treats specially, `exec` so signals reach sshd as exit-signal.
#include "sshcommandline.h"

#include <gtest/gtest.h>

using opsdeck::remote::CommandRequest;
using opsdeck::remote::remoteCommandLine;
using opsdeck::remote::shellQuote;

TEST(SshCommandLine, QuotesEverySpecialCharacter)
{
    EXPECT_EQ(shellQuote(QStringLiteral("it's $HOME `x` \"y\"")),
              QByteArray("'it'\\''s $HOME `x` \"y\"'"));
    EXPECT_EQ(shellQuote(QString()), QByteArray("''"));
}

TEST(SshCommandLine, ArgvScriptEnvironmentAndDirectory)
{
    QString error;
    CommandRequest argv;
    argv.argv = {QStringLiteral("printf"), QStringLiteral("%s\\n"), QStringLiteral("a b")};
    EXPECT_EQ(remoteCommandLine(argv, &error), QByteArray("exec 'printf' '%s\\n' 'a b'"));

    CommandRequest script;
    script.script = QStringLiteral("echo $X");
    script.workingDirectory = QStringLiteral("/srv/my dir");
    script.environment.insert(QStringLiteral("X"), QStringLiteral("1 2"));
    EXPECT_EQ(remoteCommandLine(script, &error),
              QByteArray("cd '/srv/my dir' && exec env 'X=1 2' bash -c 'echo $X'"));
}

TEST(SshCommandLine, RefusesEmptyAndOversizedScripts)
{
    QString error;
    CommandRequest empty;
    EXPECT_TRUE(remoteCommandLine(empty, &error).isEmpty());
    EXPECT_FALSE(error.isEmpty());

    CommandRequest huge;
    huge.script = QString(opsdeck::remote::maxScriptBytes + 1, u'x');
    error.clear();
    EXPECT_TRUE(remoteCommandLine(huge, &error).isEmpty());
    EXPECT_TRUE(error.contains(QStringLiteral("limit"))) << error.toStdString();
}
