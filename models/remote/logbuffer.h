#pragma once

#include "logchunk.h"

#include <QByteArray>
#include <QDateTime>
#include <QList>
#include <QRegularExpression>
#include <QString>
#include <deque>

namespace opsdeck::remote {

/// The kept end of one log file, merged from LogChunk reads: whole lines
/// (raw bytes and their shown text), the incomplete last line held back
/// until its newline comes, the byte offset and inode to read from next.
/// Lines have absolute numbers that stay valid while older lines are
/// dropped: firstLine() is the oldest kept one.
///
/// - Raw bytes are kept as read; the shown text drops the line's trailing
///   CR (CRLF files), keeps only what follows the last inner CR (a progress
///   bar redrawn with CR, as a terminal shows it), removes ANSI colour
///   sequences, and shows bytes that are not UTF-8 as U+FFFD.
/// - A rotated (new inode) or truncated (smaller than the offset) file adds
///   a note line "[opsdeck] log rotated at HH:MM:SS ..." and reading
///   restarts at byte 0 (the command does that, LogChunk::script()).
/// - At most maxLines lines are kept; older ones are dropped and counted.
/// Plain data, no Qt object; use from one thread.
class LogBuffer
{
public:
    static constexpr int defaultMaxLines = 20000;
    /// A "line" longer than this (bytes) without a newline is cut here, so a
    /// file without newlines cannot grow the held-back tail without bound.
    static constexpr qsizetype maxLineBytes = 1024 * 1024;

    explicit LogBuffer(int maxLines = defaultMaxLines);

    /// What one merge() changed.
    struct Merge
    {
        qint64 firstNewLine = 0; ///< absolute number of the first line added
        int newLines = 0;        ///< lines added (file lines and notes) and still kept
        bool restarted = false;  ///< rotated or truncated: read again from byte 0
        bool moreToRead = false; ///< the file had more bytes than this read brought
    };
    /// Adds a Data chunk read at `at` (local time, for the note). Other
    /// kinds change nothing. A chunk that starts elsewhere than offset()
    /// (after the first) is taken as rotation or truncation.
    Merge merge(const LogChunk &chunk, const QDateTime &at);

    /// Next byte to read; -1 before the first read.
    qint64 offset() const { return m_offset; }
    QByteArray inode() const { return m_inode; }
    /// File size at the last read, bytes; -1 before the first read.
    qint64 fileSize() const { return m_fileSize; }

    int maxLines() const { return m_maxLines; }
    qint64 firstLine() const { return m_dropped; }
    qint64 endLine() const { return m_dropped + static_cast<qint64>(m_lines.size()); }
    int lineCount() const { return static_cast<int>(m_lines.size()); }
    /// Lines dropped over maxLines since the first read.
    qint64 droppedLines() const { return m_dropped; }
    /// Shown text of line `number` (absolute; firstLine() <= number < endLine()).
    QString line(qint64 number) const;
    /// Bytes of line `number` as in the file, without its '\n'; empty for a note.
    QByteArray rawLine(qint64 number) const;
    /// True for a line OpsDeck added (rotation, truncation), not from the file.
    bool isNote(qint64 number) const;
    /// Bytes after the last newline, held until the line is complete.
    QByteArray partialLine() const { return m_partial; }

    /// The newest file line at or after `from` that one of `patterns` matches;
    /// -1 when none of the kept lines from there does.
    qint64 lastLineMatching(const QList<QRegularExpression> &patterns, qint64 from = 0) const;

    /// Shown text of raw line bytes (the rules above).
    static QString displayText(const QByteArray &raw);

private:
    struct Entry
    {
        QByteArray raw;
        QString text;
        bool note = false;
    };
    void append(Entry entry);
    void appendRaw(const QByteArray &raw);

    int m_maxLines;
    std::deque<Entry> m_lines;
    QByteArray m_partial;
    qint64 m_dropped = 0;
    qint64 m_offset = -1;
    qint64 m_fileSize = -1;
    QByteArray m_inode;
};

} // namespace opsdeck::remote
