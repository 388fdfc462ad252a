// LogBuffer: merging LogChunk reads of a real opsdeck-sim log (tests/data/logs)
// into lines: partial lines, CRLF, bytes that are not UTF-8, rotation and
// truncation, the line cap, and the "since restart" banner search.
#include "logbuffer.h"
#include "logstartbanner.h"
#include "testsupport.h"

#include <gtest/gtest.h>

using opsdeck::remote::LogBuffer;
using opsdeck::remote::LogChunk;
using opsdeck::remote::LogStartBanner;

namespace {

const QDateTime noon = QDateTime(QDate(2026, 11, 30), QTime(12, 0, 3));

LogChunk data(const QByteArray &bytes, qint64 start, qint64 fileSize,
              const QByteArray &inode = "42")
{
    LogChunk chunk;
    chunk.kind = LogChunk::Kind::Data;
    chunk.bytes = bytes;
    chunk.start = start;
    chunk.fileSize = fileSize;
    chunk.inode = inode;
    return chunk;
}

QStringList shownLines(const LogBuffer &buffer)
{
    QStringList lines;
    for (qint64 n = buffer.firstLine(); n < buffer.endLine(); ++n)
        lines.append(buffer.line(n));
    return lines;
}

// Feeds `file` to `buffer` in reads of `step` bytes, as polls would bring it.
void feed(LogBuffer &buffer, const QByteArray &file, qsizetype step)
{
    for (qsizetype at = 0; at < file.size(); at += step)
        buffer.merge(data(file.mid(at, step), at, file.size()), noon);
}

} // namespace

TEST(LogBuffer, PiecesOfAnySizeGiveTheSameLinesAsOneRead)
{
    const QByteArray file = opsdeck::test::readData(QStringLiteral("logs/opsdeck-sim-decode.log"));
    LogBuffer whole;
    const LogBuffer::Merge merge = whole.merge(data(file, 0, file.size()), noon);
    EXPECT_EQ(merge.firstNewLine, 0);
    EXPECT_EQ(merge.newLines, 19);
    EXPECT_FALSE(merge.restarted);
    EXPECT_FALSE(merge.moreToRead);
    EXPECT_EQ(whole.offset(), file.size());
    EXPECT_EQ(whole.line(1), QStringLiteral("2026-11-30 23:18:51.236 INFO decode: listening on "
                                            "http://127.0.0.1:35653"));

    for (qsizetype step : {1, 7, 100, 4096}) {
        LogBuffer pieces;
        feed(pieces, file, step);
        EXPECT_EQ(shownLines(pieces), shownLines(whole)) << "step " << step;
        EXPECT_TRUE(pieces.partialLine().isEmpty());
        EXPECT_EQ(pieces.offset(), file.size());
    }
}

TEST(LogBuffer, PartialLineIsHeldUntilItsNewline)
{
    LogBuffer buffer;
    buffer.merge(data("first line\nsecond ha", 0, 20), noon);
    EXPECT_EQ(shownLines(buffer), QStringList{QStringLiteral("first line")});
    EXPECT_EQ(buffer.partialLine(), QByteArray("second ha"));
    const LogBuffer::Merge merge = buffer.merge(data("lf\nthird", 20, 28), noon);
    EXPECT_EQ(merge.firstNewLine, 1);
    EXPECT_EQ(merge.newLines, 1);
    EXPECT_EQ(buffer.line(1), QStringLiteral("second half"));
    EXPECT_EQ(buffer.partialLine(), QByteArray("third"));
    EXPECT_EQ(buffer.offset(), 28);
}

TEST(LogBuffer, CrlfIsShownWithoutCarriageReturnButKeptRaw)
{
    QByteArray file = opsdeck::test::readData(QStringLiteral("logs/opsdeck-sim-decode.log"));
    const QList<QByteArray> unixLines = file.split('\n');
    file.replace("\n", "\r\n");
    LogBuffer buffer;
    // Split between the CR and the LF of a line, the worst place.
    const qsizetype cut = file.indexOf("\r\n") + 1;
    buffer.merge(data(file.left(cut), 0, file.size()), noon);
    buffer.merge(data(file.mid(cut), cut, file.size()), noon);
    ASSERT_EQ(buffer.lineCount(), 19);
    for (int n = 0; n < 19; ++n) {
        EXPECT_EQ(buffer.line(n), QString::fromUtf8(unixLines[n]));
        EXPECT_EQ(buffer.rawLine(n), unixLines[n] + '\r');
    }
    // A progress bar redrawn with CR shows its last state, as a terminal would.
    buffer.merge(
        data("Capturing batches  10%\rCapturing batches 100%\r\n", file.size(), file.size() + 46),
        noon);
    EXPECT_EQ(buffer.line(19), QStringLiteral("Capturing batches 100%"));
}

TEST(LogBuffer, BytesThatAreNotUtf8AreShownReplacedAndKeptRaw)
{
    const QByteArray file = opsdeck::test::readData(QStringLiteral("logs/opsdeck-sim-decode.log"));
    const QByteArray bad = "2026-11-30 23:18:53.270 INFO decode: prompt \xff\xfe caf\xc3\xa9 \xc3";
    // The multi-byte "é" is split across two reads: it must still decode.
    const QByteArray tail = bad + "\n" + file.split('\n').at(2) + "\n";
    const qsizetype split = tail.indexOf("\xc3\xa9") + 1;
    LogBuffer buffer;
    buffer.merge(data(tail.left(split), 0, tail.size()), noon);
    buffer.merge(data(tail.mid(split), split, tail.size()), noon);
    ASSERT_EQ(buffer.lineCount(), 2);
    EXPECT_EQ(buffer.rawLine(0), bad);
    const QString shown = buffer.line(0);
    EXPECT_TRUE(shown.contains(QStringLiteral("caf\u00e9")));
    EXPECT_EQ(shown.count(QChar::ReplacementCharacter), 3);
    EXPECT_TRUE(buffer.line(1).endsWith(QStringLiteral("chunked-prefill-size 8192")));
}

TEST(LogBuffer, RotationAddsANoteAndReadsTheNewFileFromItsStart)
{
    LogBuffer buffer;
    buffer.merge(data("old 1\nold 2\nold par", 0, 19, "42"), noon);
    // The command restarted at 0 because the inode changed (LogChunk::script).
    const LogBuffer::Merge merge = buffer.merge(data("new 1\n", 0, 6, "77"), noon);
    EXPECT_TRUE(merge.restarted);
    EXPECT_EQ(merge.firstNewLine, 2);
    EXPECT_EQ(merge.newLines, 3);
    EXPECT_EQ(
        shownLines(buffer),
        (QStringList{QStringLiteral("old 1"), QStringLiteral("old 2"), QStringLiteral("old par"),
                     QStringLiteral("[opsdeck] log rotated at 12:00:03 (new file): "
                                    "reading it from its start"),
                     QStringLiteral("new 1")}));
    EXPECT_TRUE(buffer.isNote(3));
    EXPECT_FALSE(buffer.isNote(4));
    EXPECT_EQ(buffer.offset(), 6);
    EXPECT_EQ(buffer.inode(), QByteArray("77"));
}

TEST(LogBuffer, TruncationInPlaceIsNoticedBySize)
{
    LogBuffer buffer;
    buffer.merge(data("a\nb\nc\n", 0, 6, "42"), noon);
    const LogBuffer::Merge merge = buffer.merge(data("x\n", 0, 2, "42"), noon);
    EXPECT_TRUE(merge.restarted);
    EXPECT_EQ(buffer.line(3), QStringLiteral("[opsdeck] log truncated at 12:00:03 (2 bytes, "
                                             "was 6): reading it from its start"));
    EXPECT_EQ(buffer.line(4), QStringLiteral("x"));
    // A following read from the new offset is no restart.
    EXPECT_FALSE(buffer.merge(data("y\n", 2, 4, "42"), noon).restarted);
}

TEST(LogBuffer, LineCapDropsOldestAndCountsThem)
{
    const QByteArray file = opsdeck::test::readData(QStringLiteral("logs/opsdeck-sim-decode.log"));
    LogBuffer buffer(5);
    const LogBuffer::Merge merge = buffer.merge(data(file, 0, file.size()), noon);
    EXPECT_EQ(buffer.lineCount(), 5);
    EXPECT_EQ(buffer.droppedLines(), 14);
    EXPECT_EQ(buffer.firstLine(), 14);
    EXPECT_EQ(merge.firstNewLine, 14);
    EXPECT_EQ(merge.newLines, 5);
    EXPECT_TRUE(buffer.line(18).endsWith(QStringLiteral("decode: shutdown complete")));
    EXPECT_TRUE(buffer.line(3).isEmpty()); // dropped
}

TEST(LogBuffer, FirstReadFromTheMiddleDropsTheCutLineAndReportsMore)
{
    const QByteArray file = opsdeck::test::readData(QStringLiteral("logs/opsdeck-sim-decode.log"));
    const qsizetype start = file.lastIndexOf("listening on"); // inside the second run's first line
    LogBuffer buffer;
    const LogBuffer::Merge merge =
        buffer.merge(data(file.mid(start, 200), start, file.size()), noon);
    EXPECT_TRUE(merge.moreToRead);
    ASSERT_GE(buffer.lineCount(), 1);
    EXPECT_TRUE(buffer.line(0).contains(QStringLiteral("role decode, served model demo-model")));
    EXPECT_EQ(buffer.offset(), start + 200);
}

TEST(LogBuffer, SinceRestartFindsTheLastStartBanner)
{
    const auto patterns = LogStartBanner::patterns(LogStartBanner::defaults());
    const QByteArray decode =
        opsdeck::test::readData(QStringLiteral("logs/opsdeck-sim-decode.log"));
    LogBuffer buffer;
    buffer.merge(data(decode, 0, decode.size()), noon);
    // Two runs in one file: the second "listening on" is line 11.
    EXPECT_EQ(buffer.lastLineMatching(patterns), 11);
    EXPECT_EQ(buffer.lastLineMatching(patterns, 12), -1);

    // The router's "metrics listening on" (its second line) is no start.
    const QByteArray router =
        opsdeck::test::readData(QStringLiteral("logs/opsdeck-sim-router.log"));
    LogBuffer routerBuffer;
    routerBuffer.merge(data(router, 0, router.size()), noon);
    EXPECT_EQ(routerBuffer.lastLineMatching(patterns), 1);

    // SGLang and vLLM start lines, in the form those servers print them.
    LogBuffer engines;
    engines.merge(data("[2026-11-30 12:00:00] server_args=ServerArgs(model_path='m', tp_size=8)\n"
                       "[2026-11-30 12:00:09] INFO:     Uvicorn running on http://0.0.0.0:30000\n"
                       "INFO 11-30 12:01:00 api_server.py:712] vLLM API server version 0.6.3\n"
                       "INFO 11-30 12:01:02 api_server.py:713] args: Namespace(...)\n",
                       0, 4096),
                  noon);
    EXPECT_EQ(engines.lastLineMatching(patterns), 2);
    EXPECT_EQ(engines.lastLineMatching({patterns[0]}), 0);

    // Lines from a file with no start banner kept: none found.
    LogBuffer none;
    none.merge(
        data(decode.mid(decode.indexOf("\n", decode.lastIndexOf("listening on")) + 1), 0, 4096),
        noon);
    EXPECT_EQ(none.lastLineMatching(patterns), -1);
}
