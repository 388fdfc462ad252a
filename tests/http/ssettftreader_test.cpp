// SseTtftReader alone: which SSE event is taken as the first token when the
// stream starts with role-only and empty chunks and arrives split at any byte.
#include "ssettftreader.h"

#include <gtest/gtest.h>

using opsdeck::probes::SseTtftReader;

namespace {

QByteArray chunk(const QByteArray &delta, const QByteArray &eventEnd = {})
{
    QByteArray event(
        R"(data: {"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":)");
    event += delta;
    event += R"(,"finish_reason":null}]})";
    event += eventEnd;
    return event;
}

/// The sim's stream with --stream-empty-first-chunk: role chunk, empty
/// content chunk, then the tokens "Hel" and "lo", the finish chunk and [DONE].
QByteArray stream(const QByteArray &eventEnd)
{
    QByteArray body;
    body += chunk(R"({"role":"assistant","content":""})", eventEnd);
    body += chunk(R"({"content":""})", eventEnd);
    body += chunk(R"({"content":"Hel"})", eventEnd);
    body += chunk(R"({"content":"lo"})", eventEnd);
    body += chunk("{}", eventEnd);
    body += "data: [DONE]";
    body += eventEnd;
    return body;
}

/// Byte offset just past the event that carries "Hel" (the first token).
qsizetype firstTokenEnd(const QByteArray &body, const QByteArray &eventEnd)
{
    return body.indexOf(eventEnd, body.indexOf(R"("Hel")")) + eventEnd.size();
}

} // namespace

TEST(SseTtftReader, PicksTheFirstContentTokenWhateverTheSplitPoint)
{
    for (const QByteArray &eventEnd : {QByteArray("\n\n"), QByteArray("\r\n\r\n")}) {
        const QByteArray body = stream(eventEnd);
        const qsizetype tokenEnd = firstTokenEnd(body, eventEnd);
        ASSERT_GT(tokenEnd, 0);
        ASSERT_LE(tokenEnd, body.size());
        // Two reads split at every byte: the token is found with the read that
        // completes its event, never earlier (role or empty chunk), never later.
        for (qsizetype split = 1; split < body.size(); ++split) {
            SseTtftReader reader;
            const bool first = reader.feed(QByteArrayView(body).first(split));
            const bool second = reader.feed(QByteArrayView(body).sliced(split));
            SCOPED_TRACE(split);
            EXPECT_EQ(first, split >= tokenEnd);
            EXPECT_EQ(second, split < tokenEnd);
            ASSERT_TRUE(reader.foundContent());
            EXPECT_TRUE(reader.contentEvent().contains(R"("content":"Hel")"));
        }
        // One byte per read: the token arrives with exactly the last byte of its event.
        SseTtftReader reader;
        qsizetype foundAt = -1;
        for (qsizetype i = 0; i < body.size(); ++i)
            if (reader.feed(QByteArrayView(body).sliced(i, 1)))
                foundAt = i + 1;
        EXPECT_EQ(foundAt, tokenEnd);
        EXPECT_EQ(reader.eventCount(), 3); // role, empty, token; nothing read after
    }
}

TEST(SseTtftReader, RoleOnlyEmptyAndDoneEventsAreNoToken)
{
    SseTtftReader reader;
    EXPECT_FALSE(reader.feed(chunk(R"({"role":"assistant"})", "\n\n")));
    EXPECT_FALSE(reader.feed(chunk(R"({"role":"assistant","content":""})", "\n\n")));
    EXPECT_FALSE(reader.feed(chunk(R"({"content":null})", "\n\n")));
    EXPECT_FALSE(reader.feed(": keep-alive comment\n\n"));
    EXPECT_FALSE(reader.feed(chunk(R"({"content":"x"})"))); // no blank line yet
    EXPECT_FALSE(reader.foundContent());
    EXPECT_FALSE(reader.feed("data: [DONE]\n\n"));
    EXPECT_EQ(reader.eventCount(), 5);
    EXPECT_FALSE(reader.foundContent()); // the "x" event was never terminated before [DONE]
}

TEST(SseTtftReader, MultiLineDataIsJoined)
{
    SseTtftReader reader;
    EXPECT_TRUE(reader.feed(
        "event: message\ndata: {\"choices\":[{\"delta\":\ndata: {\"content\":\"a\"}}]}\n\n"));
    EXPECT_TRUE(reader.foundContent());
    EXPECT_FALSE(reader.feed(chunk(R"({"content":"b"})", "\n\n"))); // only once
}
