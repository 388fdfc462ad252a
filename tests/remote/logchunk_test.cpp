// LogChunk: the path quoting of the read command (checked by running the
// words through a real bash) and the parsing of its output.
#include "logchunk.h"

#include <QProcess>
#include <QTemporaryDir>
#include <gtest/gtest.h>

using opsdeck::remote::LogChunk;

namespace {

// What bash makes of `word` with HOME and LOGDIR set.
QString expandInBash(const QByteArray &word, const QString &home)
{
    QProcess bash;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("HOME"), home);
    env.insert(QStringLiteral("LOGDIR"), QStringLiteral("/srv/my logs"));
    bash.setProcessEnvironment(env);
    bash.start(QStringLiteral("bash"),
               {QStringLiteral("-c"), QString::fromUtf8("f=" + word + "; printf %s \"$f\"")});
    bash.waitForFinished(10000);
    return QString::fromUtf8(bash.readAllStandardOutput());
}

} // namespace

TEST(LogChunk, PathsAreQuotedExceptALeadingTildeOrVariable)
{
    QString error;
    const QString home = QStringLiteral("/home/on call");
    const struct
    {
        QString path;
        QByteArray word;
        QString expanded;
    } cases[] = {
        {QStringLiteral("/var/log/decode.log"), "'/var/log/decode.log'",
         QStringLiteral("/var/log/decode.log")},
        {QStringLiteral("/tmp/a b/it's $HOME *.log"), "'/tmp/a b/it'\\''s $HOME *.log'",
         QStringLiteral("/tmp/a b/it's $HOME *.log")},
        {QStringLiteral("~/logs/de code.log"), "~/'logs/de code.log'",
         QStringLiteral("/home/on call/logs/de code.log")},
        {QStringLiteral("~"), "~", QStringLiteral("/home/on call")},
        {QStringLiteral("$HOME/x.log"), "\"$HOME\"'/x.log'", QStringLiteral("/home/on call/x.log")},
        {QStringLiteral("${LOGDIR}/decode.log"), "\"${LOGDIR}\"'/decode.log'",
         QStringLiteral("/srv/my logs/decode.log")},
    };
    for (const auto &c : cases) {
        const QByteArray word = LogChunk::shellWord(c.path, &error);
        EXPECT_EQ(word, c.word) << c.path.toStdString();
        EXPECT_EQ(expandInBash(word, home), c.expanded) << c.path.toStdString();
    }
    // `~root` expands through the password database, as in ssh's shell.
    EXPECT_EQ(expandInBash(LogChunk::shellWord(QStringLiteral("~root/x"), &error), home),
              QStringLiteral("/root/x"));
}

TEST(LogChunk, CommandSubstitutionAndEmptyPathsAreRefused)
{
    for (const QString &path : {QStringLiteral("$(rm -rf /)/x.log"), QStringLiteral("$"),
                                QStringLiteral("~$(id)/x"), QString()}) {
        QString error;
        EXPECT_TRUE(LogChunk::script(path, -1, {}, &error).isEmpty()) << path.toStdString();
        EXPECT_FALSE(error.isEmpty());
    }
    QString error;
    LogChunk::script(QStringLiteral("$(rm -rf /)/x.log"), -1, {}, &error);
    EXPECT_EQ(error, QStringLiteral("log path '$(rm -rf /)/x.log': only a leading ~, ~user, "
                                    "$NAME or ${NAME} is expanded by the host's shell"));
}

TEST(LogChunk, ParsesDataAndErrorHeaders)
{
    const LogChunk chunk = LogChunk::parse("opsdeck-log data 1234 5678 1000\nline\xff\r\npart");
    EXPECT_EQ(chunk.kind, LogChunk::Kind::Data);
    EXPECT_EQ(chunk.fileSize, 1234);
    EXPECT_EQ(chunk.inode, QByteArray("5678"));
    EXPECT_EQ(chunk.start, 1000);
    EXPECT_EQ(chunk.bytes, QByteArray("line\xff\r\npart"));

    EXPECT_EQ(LogChunk::parse("opsdeck-log missing\n").kind, LogChunk::Kind::Missing);
    EXPECT_EQ(LogChunk::parse("opsdeck-log unreadable\n").kind, LogChunk::Kind::Unreadable);
    EXPECT_EQ(LogChunk::parse("opsdeck-log not-a-file\n").kind, LogChunk::Kind::NotAFile);
    // A login shell's chatter before the header is skipped.
    const LogChunk afterBanner =
        LogChunk::parse("Welcome to gpu-node-7\nopsdeck-log data 3 9 0\nab\n");
    EXPECT_EQ(afterBanner.kind, LogChunk::Kind::Data);
    EXPECT_EQ(afterBanner.bytes, QByteArray("ab\n"));

    EXPECT_EQ(LogChunk::parse("").kind, LogChunk::Kind::Malformed);
    EXPECT_EQ(LogChunk::parse("opsdeck-log data x 9 0\n").kind, LogChunk::Kind::Malformed);
    EXPECT_EQ(LogChunk::parse("opsdeck-log data 3 9 0").kind, LogChunk::Kind::Malformed);
    EXPECT_EQ(LogChunk::parse("opsdeck-log whatever\n").kind, LogChunk::Kind::Malformed);
}
