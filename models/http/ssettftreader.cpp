#include "ssettftreader.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QList>

namespace opsdeck::probes {

namespace {

/// Position and length of the first blank line ending an event, or -1.
qsizetype eventEnd(const QByteArray &buffer, qsizetype &separatorLength)
{
    const qsizetype lf = buffer.indexOf("\n\n");
    const qsizetype crlf = buffer.indexOf("\r\n\r\n");
    if (crlf >= 0 && (lf < 0 || crlf < lf)) {
        separatorLength = 4;
        return crlf;
    }
    separatorLength = 2;
    return lf;
}

} // namespace

bool SseTtftReader::feed(QByteArrayView bytes)
{
    if (m_found)
        return false;
    m_buffer.append(bytes.data(), bytes.size());
    qsizetype separatorLength = 0;
    for (qsizetype end = eventEnd(m_buffer, separatorLength); end >= 0;
         end = eventEnd(m_buffer, separatorLength)) {
        const QByteArray event = m_buffer.left(end);
        m_buffer.remove(0, end + separatorLength);
        if (takeEvent(event)) {
            m_buffer.clear();
            return true;
        }
    }
    return false;
}

bool SseTtftReader::takeEvent(const QByteArray &event)
{
    ++m_events;
    QByteArray data;
    bool hasData = false;
    for (QByteArray line : event.split('\n')) {
        if (line.endsWith('\r'))
            line.chop(1);
        if (!line.startsWith("data:"))
            continue; // comments (":"), event:, id:, retry:
        line.remove(0, 5);
        if (line.startsWith(' '))
            line.remove(0, 1);
        if (hasData)
            data.append('\n');
        data.append(line);
        hasData = true;
    }
    if (!hasData || data == "[DONE]")
        return false;
    const QJsonDocument document = QJsonDocument::fromJson(data);
    const QJsonValue content = document.object()
                                   .value(QLatin1String("choices"))
                                   .toArray()
                                   .at(0)
                                   .toObject()
                                   .value(QLatin1String("delta"))
                                   .toObject()
                                   .value(QLatin1String("content"));
    if (!content.isString() || content.toString().isEmpty())
        return false;
    m_found = true;
    m_contentEvent = data;
    return true;
}

} // namespace opsdeck::probes
