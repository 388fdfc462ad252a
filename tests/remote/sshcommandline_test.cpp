// The exec command string SshTransport sends: quoting that survives any byte
// the shell treats specially, `exec` so signals reach sshd as exit-signal.
#include "shellquote.h"
#include "sshcommandline.h"

#include <gtest/gtest.h>

using opsdeck::remote::CommandRequest;
using opsdeck::remote::remoteCommandLine;

TEST(SshCommandLine, QuotesEverySpecialCharacter)
{
    using opsdeck::shell::singleQuoted;
    EXPECT_EQ(singleQuoted(QStringLiteral("it's $HOME `x` \"y\"")),
              QStringLiteral("'it'\\''s $HOME `x` \"y\"'"));
    EXPECT_EQ(singleQuoted(QString()), QStringLiteral("''"));
    EXPECT_EQ(singleQuoted(QByteArray("a'\xff")), QByteArray("'a'\\''\xff'"));
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
              QByteArray("cd '/srv/my dir' && exec env 'X=1 2' bash -s"));
    // bash -s reads this from stdin: the script as a quoted here-document,
    // its syntax checked, then run.
    const QByteArray in = script.scriptStandardInput();
    EXPECT_TRUE(in.startsWith("IFS= read -r -d '' __opsdeck_script <<'OPSDECK_SCRIPT_"))
        << in.toStdString();
    EXPECT_TRUE(in.contains("'\necho $X\nOPSDECK_SCRIPT_")) << in.toStdString();
    EXPECT_TRUE(in.endsWith("eval \"$__opsdeck_script\"\n")) << in.toStdString();
    // The delimiter is drawn again while the script holds it.
    CommandRequest tricky;
    tricky.script = QString::fromUtf8(in);
    const QByteArray firstLine = in.left(in.indexOf('\n'));
    EXPECT_FALSE(tricky.scriptStandardInput().startsWith(QByteArray(firstLine + '\n')));
}

TEST(SshCommandLine, RefusesEmptyCommandsAndScriptsGivenInput)
{
    QString error;
    CommandRequest empty;
    EXPECT_TRUE(remoteCommandLine(empty, &error).isEmpty());
    EXPECT_TRUE(error.contains(QStringLiteral("empty command"))) << error.toStdString();

    CommandRequest withInput;
    withInput.script = QStringLiteral("cat");
    withInput.input = QByteArray("x");
    error.clear();
    EXPECT_TRUE(remoteCommandLine(withInput, &error).isEmpty());
    EXPECT_TRUE(error.contains(QStringLiteral("cannot be given input"))) << error.toStdString();

    // A script's length is not the line's: 1 MiB of script is a short line.
    CommandRequest huge;
    huge.script = QString(1024 * 1024, u'x');
    error.clear();
    EXPECT_EQ(remoteCommandLine(huge, &error), QByteArray("exec bash -s")) << error.toStdString();
}

// sshd runs the line as one argument of `$SHELL -c`: past 128 KiB the host
// fails with E2BIG, and past sshd's packet limit it drops the connection,
// which read as "connection lost" instead of naming the cause.
TEST(SshCommandLine, RefusesACommandLineOverOneArgumentsLimit)
{
    QString error;
    CommandRequest fits;
    fits.argv = QStringList{QStringLiteral("echo")} +
                QStringList(1000, QString(100, u'a')); // ~100 KiB quoted
    EXPECT_FALSE(remoteCommandLine(fits, &error).isEmpty()) << error.toStdString();

    CommandRequest wide;
    wide.argv = QStringList{QStringLiteral("echo")} + QStringList(40000, QStringLiteral("1"));
    EXPECT_TRUE(remoteCommandLine(wide, &error).isEmpty());
    EXPECT_TRUE(error.contains(QStringLiteral("over the 131071-byte limit")))
        << error.toStdString();

    // An argument whose quoting makes it too long: each ' is 4 bytes.
    CommandRequest quotes;
    quotes.argv = {QStringLiteral("echo"), QString(40 * 1024, u'\'')};
    error.clear();
    EXPECT_TRUE(remoteCommandLine(quotes, &error).isEmpty());
    EXPECT_TRUE(error.contains(QStringLiteral("limit"))) << error.toStdString();
}
