#include "logbuffer.h"

#include <algorithm>

namespace opsdeck::remote {

LogBuffer::LogBuffer(int maxLines) : m_maxLines(std::max(1, maxLines)) {}

QString LogBuffer::displayText(const QByteArray &raw)
{
    QByteArray bytes = raw;
    while (bytes.endsWith('\r'))
        bytes.chop(1);
    const qsizetype cr = bytes.lastIndexOf('\r');
    if (cr >= 0)
        bytes = bytes.mid(cr + 1);
    QString text = QString::fromUtf8(bytes);
    if (text.contains(QChar(0x1b))) {
        static const QRegularExpression csi(QStringLiteral("\\x1b\\[[0-9;?]*[ -/]*[@-~]"));
        text.remove(csi);
    }
    return text;
}

void LogBuffer::append(Entry entry)
{
    m_lines.push_back(std::move(entry));
    while (m_lines.size() > static_cast<size_t>(m_maxLines)) {
        m_lines.pop_front();
        ++m_dropped;
    }
}

void LogBuffer::appendRaw(const QByteArray &raw)
{
    append(Entry{raw, displayText(raw), false});
}

LogBuffer::Merge LogBuffer::merge(const LogChunk &chunk, const QDateTime &at)
{
    Merge merge;
    if (chunk.kind != LogChunk::Kind::Data)
        return merge;
    const qint64 endBefore = endLine();
    QByteArray bytes = chunk.bytes;
    if (m_offset < 0) {
        // A first read from the middle of the file starts inside a line
        // whose beginning was not read: drop that piece.
        if (chunk.start > 0) {
            const qsizetype newline = bytes.indexOf('\n');
            m_offset = chunk.start + (newline < 0 ? bytes.size() : newline + 1);
            bytes = newline < 0 ? QByteArray() : bytes.mid(newline + 1);
        } else {
            m_offset = chunk.start;
        }
    } else {
        const bool replaced = chunk.inode != m_inode;
        if (chunk.start != m_offset || (replaced && m_offset > 0)) {
            merge.restarted = true;
            if (!m_partial.isEmpty()) {
                appendRaw(m_partial);
                m_partial.clear();
            }
            const QString time = at.toString(QStringLiteral("HH:mm:ss"));
            const QString note =
                replaced ? QStringLiteral("[opsdeck] log rotated at %1 (new file): reading it "
                                          "from its start")
                               .arg(time)
                         : QStringLiteral("[opsdeck] log truncated at %1 (%2 bytes, was %3): "
                                          "reading it from its start")
                               .arg(time)
                               .arg(chunk.fileSize)
                               .arg(m_offset);
            append(Entry{QByteArray(), note, true});
            m_offset = chunk.start;
        }
    }
    m_offset += bytes.size();
    m_inode = chunk.inode;
    m_fileSize = chunk.fileSize;

    qsizetype from = 0;
    m_partial += bytes;
    for (;;) {
        const qsizetype newline = m_partial.indexOf('\n', from);
        if (newline < 0)
            break;
        appendRaw(m_partial.mid(from, newline - from));
        from = newline + 1;
    }
    m_partial.remove(0, from);
    while (m_partial.size() > maxLineBytes) {
        appendRaw(m_partial.left(maxLineBytes));
        m_partial.remove(0, maxLineBytes);
    }

    merge.moreToRead = m_offset < chunk.fileSize;
    merge.firstNewLine = std::max(endBefore, firstLine());
    merge.newLines = static_cast<int>(endLine() - merge.firstNewLine);
    return merge;
}

QString LogBuffer::line(qint64 number) const
{
    if (number < firstLine() || number >= endLine())
        return {};
    return m_lines[static_cast<size_t>(number - m_dropped)].text;
}

QByteArray LogBuffer::rawLine(qint64 number) const
{
    if (number < firstLine() || number >= endLine())
        return {};
    return m_lines[static_cast<size_t>(number - m_dropped)].raw;
}

bool LogBuffer::isNote(qint64 number) const
{
    if (number < firstLine() || number >= endLine())
        return false;
    return m_lines[static_cast<size_t>(number - m_dropped)].note;
}

qint64 LogBuffer::lastLineMatching(const QList<QRegularExpression> &patterns, qint64 from) const
{
    const qint64 low = std::max(from, firstLine());
    for (qint64 number = endLine() - 1; number >= low; --number) {
        const Entry &entry = m_lines[static_cast<size_t>(number - m_dropped)];
        if (entry.note)
            continue;
        for (const QRegularExpression &pattern : patterns) {
            if (pattern.match(entry.text).hasMatch())
                return number;
        }
    }
    return -1;
}

} // namespace opsdeck::remote
