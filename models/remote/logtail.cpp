#include "logtail.h"

#include "transport.h"

namespace opsdeck::remote {

LogTail::LogTail(Transport *transport, QString path, int maxLines, QObject *parent)
    : QObject(parent), m_transport(transport),
      m_hostName(transport ? transport->hostName() : QString()), m_path(std::move(path)),
      m_buffer(maxLines)
{
    m_timer.setSingleShot(true);
    connect(&m_timer, &QTimer::timeout, this, &LogTail::startRead);
    if (!m_transport)
        return;
    connect(m_transport, &Transport::commandFinished, this, &LogTail::onCommandFinished);
    // A transport deleted with a read in flight never answers it.
    connect(m_transport, &QObject::destroyed, this, [this] {
        if (m_readId == 0)
            return;
        m_readId = 0;
        ++m_reads;
        m_error = QStringLiteral("%1: the connection was closed while reading %2")
                      .arg(m_hostName, m_path);
        Q_EMIT readFinished();
    });
}

LogTail::~LogTail()
{
    if (m_readId != 0 && m_transport)
        m_transport->cancel(m_readId);
}

void LogTail::setFollowing(bool following)
{
    if (following == m_following)
        return;
    m_following = following;
    if (!m_following)
        m_timer.stop();
    else if (m_readId == 0)
        startRead();
}

void LogTail::refresh()
{
    if (m_readId != 0)
        m_refreshPending = true;
    else
        startRead();
}

void LogTail::startRead()
{
    m_timer.stop();
    if (m_readId != 0)
        return;
    if (!m_transport) {
        m_error = QStringLiteral("%1: no transport to read %2").arg(m_hostName, m_path);
        ++m_reads;
        Q_EMIT readFinished();
        return;
    }
    QString error;
    CommandRequest request;
    request.script = LogChunk::script(m_path, m_buffer.offset(), m_buffer.inode(), &error);
    if (request.script.isEmpty()) {
        // A path that cannot be quoted will not get better by polling it.
        m_error = QStringLiteral("%1: %2").arg(m_hostName, error);
        m_following = false;
        ++m_reads;
        Q_EMIT readFinished();
        return;
    }
    request.deadline = m_deadline;
    // Room for the header line and a shell's start-up chatter beside the data.
    request.outputCap = LogChunk::defaultMaxBytes + 64 * 1024;
    m_readId = m_transport->run(request);
}

void LogTail::onCommandFinished(quint64 id, const CommandResult &result)
{
    if (id == 0 || id != m_readId)
        return;
    m_readId = 0;
    ++m_reads;
    bool more = false;
    const LogChunk chunk = result.succeeded() ? LogChunk::parse(result.standardOutput) : LogChunk();
    const QString where = QStringLiteral("%1: %2").arg(m_hostName, m_path);
    if (!result.succeeded()) {
        m_error = describeFailure(result);
    } else if (chunk.kind == LogChunk::Kind::Missing) {
        m_error = QStringLiteral("%1: log file %2 does not exist").arg(m_hostName, m_path);
    } else if (chunk.kind == LogChunk::Kind::Unreadable) {
        m_error = QStringLiteral("%1: log file %2 is not readable by the login user")
                      .arg(m_hostName, m_path);
    } else if (chunk.kind == LogChunk::Kind::NotAFile) {
        m_error = QStringLiteral("%1: %2 is not a regular file").arg(m_hostName, m_path);
    } else if (chunk.kind == LogChunk::Kind::Malformed) {
        m_error = QStringLiteral("%1: unexpected output reading the log: %2")
                      .arg(where, QString::fromUtf8(result.standardOutput.left(120)).trimmed());
    } else {
        const QDateTime now = QDateTime::currentDateTime();
        const LogBuffer::Merge merge = m_buffer.merge(chunk, now);
        const QByteArray stderrText = result.standardError.trimmed();
        // tail can still fail after the checks (file removed in between).
        m_error =
            stderrText.isEmpty()
                ? QString()
                : QStringLiteral("%1: %2").arg(where, QString::fromUtf8(stderrText.left(300)));
        m_updated = now;
        if (merge.restarted)
            m_restartedAt = now;
        more = merge.moreToRead;
        if (merge.newLines > 0)
            Q_EMIT linesAdded(merge.firstNewLine, merge.newLines);
    }
    Q_EMIT readFinished();
    if (m_refreshPending) {
        m_refreshPending = false;
        startRead();
        return;
    }
    scheduleNext(more);
}

void LogTail::scheduleNext(bool soon)
{
    if (!m_following || m_readId != 0)
        return;
    m_timer.start(soon ? std::chrono::milliseconds(0) : m_interval);
}

QString LogTail::describeFailure(const CommandResult &result) const
{
    QString text =
        QStringLiteral("%1: reading %2 failed: %3").arg(m_hostName, m_path, result.describe());
    const QString detail = !result.errorText.isEmpty()
                               ? result.errorText
                               : QString::fromUtf8(result.standardError.trimmed().left(300));
    if (!detail.isEmpty())
        text += QStringLiteral(" (%1)").arg(detail);
    return text;
}

} // namespace opsdeck::remote
