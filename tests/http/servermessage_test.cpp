// serverMessage: why a server refused, from the error bodies SGLang, vLLM,
// the router and SGLang's API-key check send.
#include "servermessage.h"

#include <gtest/gtest.h>

using namespace opsdeck::probes;

TEST(ServerMessage, ReadsTheThreeShapesEnginesAnswerWith)
{
    // OpenAI's shape, as SGLang's and vLLM's OpenAI servers send it.
    EXPECT_EQ(
        serverMessage(R"({"object":"error","error":{"message":"The model `x` does not exist.",)"
                      R"("type":"NotFoundError","code":404}})"),
        QStringLiteral("The model `x` does not exist."));
    // SGLang's own routes ({"message"}) and its API-key middleware ({"error": text}).
    EXPECT_EQ(serverMessage(R"({"message":"No healthy decode worker"})"),
              QStringLiteral("No healthy decode worker"));
    EXPECT_EQ(serverMessage(R"({"error":"Unauthorized"})"), QStringLiteral("Unauthorized"));
}

TEST(ServerMessage, SaysNothingForOtherBodiesAndKeepsOneShortLine)
{
    EXPECT_TRUE(serverMessage("<html><body>502 Bad Gateway</body></html>").isEmpty());
    EXPECT_TRUE(serverMessage("").isEmpty());
    EXPECT_TRUE(serverMessage(R"({"detail":"Not Found"})").isEmpty());
    EXPECT_TRUE(serverMessage(R"(["message"])").isEmpty());
    const QByteArray traceback =
        R"({"message":"Traceback (most recent call last):\n  File \"x.py\"\n)" +
        QByteArray(500, 'y') + R"("})";
    const QString line = serverMessage(traceback);
    EXPECT_EQ(line.size(), 200);
    EXPECT_FALSE(line.contains(QLatin1Char('\n')));
    EXPECT_TRUE(line.startsWith(QStringLiteral("Traceback (most recent call last): File")));
}

TEST(ServerMessage, AServersWordsNeverCarryATerminalsControlCharacters)
{
    EXPECT_EQ(serverMessage("{\"message\":\"\\u001b[2Jcleared\\u0007 \\u0000done\"}"),
              QStringLiteral("[2Jcleared done"));
    EXPECT_EQ(printableLine(QStringLiteral("Bad\x1b]0;title\x07 Gateway\r\n")),
              QStringLiteral("Bad]0;title Gateway"));
    EXPECT_EQ(printableLine(QStringLiteral("Überlastet – später"), 5), QStringLiteral("Überl"));
}

TEST(ServerMessage, BidiOverridesAndZeroWidthCharactersNeverReorderOrHideOurWords)
{
    // U+202E would turn every word after it around; U+200B and U+2066 hide.
    EXPECT_EQ(printableLine(QStringLiteral("user \u202Etxt.exe\u202C ok\u200B\u2066x\u2069")),
              QStringLiteral("user txt.exe okx"));
    // Dropped characters leave no double or trailing spaces behind.
    EXPECT_EQ(printableLine(QStringLiteral("\x01 lead a \x01 b \x02")), QStringLiteral("lead a b"));
    // A cut never leaves half of a character outside the BMP.
    const QString emoji = QString(199, u'x') + QStringLiteral("\U0001F600tail");
    EXPECT_EQ(printableLine(emoji), QString(199, u'x'));
}

TEST(ServerMessage, AnApiKeyIsRedactedWhereverItStands)
{
    EXPECT_EQ(redactedSecret(QByteArray("key sk-1 and Bearer sk-1"), "sk-1"),
              QByteArray("key [API key] and Bearer [API key]"));
    EXPECT_EQ(redactedSecret(QStringLiteral("nothing here"), "sk-1"),
              QStringLiteral("nothing here"));
    EXPECT_EQ(redactedSecret(QByteArray("sk-1"), QByteArray()), QByteArray("sk-1"));
}

// A server that splits the key it echoes with characters a display drops (or
// their JSON escapes), or a reason phrase cut right inside it: the key never
// reaches the line shown.
TEST(ServerMessage, AnApiKeySplitOrCutIsStillRedacted)
{
    const QByteArray key = "sk-SECRETKEY123";
    for (const QByteArray &body :
         {QByteArray(R"({"error":{"message":"key sk-SECRET\nKEY123"}})"),
          QByteArray(R"({"error":{"message":"key sk-SECRET\u200bKEY123"}})"),
          QByteArray("{\"error\":\"key sk-SEC\xe2\x80\x8bRETKEY123\"}"),
          QByteArray(R"({"error":"key sk-SECRET KEY123"})"),
          QByteArray(R"({"error":{"message":"bad key \u0073\u006b\u002dSECRETKEY123"}})"),
          QByteArray(R"({"message":"Bearer sk-\u0053ECRETKEY123"})")}) {
        const QString shown = serverMessage(redactedSecret(body, key));
        EXPECT_FALSE(shown.contains(u"SECRET"_qs)) << shown.toStdString();
        EXPECT_TRUE(shown.contains(u"[API key]"_qs)) << shown.toStdString();
    }
    // Redacted first, then cut: a key at the cut is gone, not half shown.
    const QString reason = QString(192, u'x') + u" sk-SECRETKEY123 tail"_qs;
    const QString line = printableLine(redactedSecret(reason, key));
    EXPECT_FALSE(line.contains(u"sk-SEC"_qs)) << line.toStdString();
}
