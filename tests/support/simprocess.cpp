#include "simprocess.h"

#include "testsupport.h"

#include <QRegularExpression>

namespace opsdeck::test {

SimProcess::~SimProcess()
{
    if (m_process.state() != QProcess::NotRunning)
        stop(std::chrono::seconds(5));
}

bool SimProcess::start(const QStringList &args, const QProcessEnvironment &env,
                       std::chrono::milliseconds deadline)
{
    m_process.setProcessEnvironment(env);
    m_process.setProgram(binPath(QStringLiteral("opsdeck-sim")));
    m_process.setArguments(args);
    m_process.setStandardInputFile(QProcess::nullDevice());
    m_process.start();
    static const QRegularExpression listening(
        QStringLiteral("listening on https?://[^:\\s]+:(\\d+)"));
    const bool ok = waitUntil(
        [&] {
            m_stderr += m_process.readAllStandardError();
            const auto match = listening.match(QString::fromUtf8(m_stderr));
            if (match.hasMatch())
                m_port = match.captured(1).toInt();
            return m_port > 0 || m_process.state() == QProcess::NotRunning;
        },
        deadline);
    return ok && m_port > 0;
}

int SimProcess::stop(std::chrono::milliseconds deadline)
{
    if (m_process.state() == QProcess::NotRunning)
        return m_process.exitCode();
    m_process.terminate();
    if (!m_process.waitForFinished(static_cast<int>(deadline.count()))) {
        m_process.kill();
        m_process.waitForFinished(2000);
        return -1;
    }
    m_stderr += m_process.readAllStandardError();
    return m_process.exitStatus() == QProcess::NormalExit ? m_process.exitCode() : -1;
}

int SimProcess::sidePort(const QString &what)
{
    m_stderr += m_process.readAllStandardError();
    const QRegularExpression line(QRegularExpression::escape(what) +
                                  QStringLiteral(" listening on http://[^:\\s]+:(\\d+)"));
    const auto match = line.match(QString::fromUtf8(m_stderr));
    return match.hasMatch() ? match.captured(1).toInt() : 0;
}

QString SimProcess::url() const
{
    return QStringLiteral("http://127.0.0.1:%1").arg(m_port);
}

QString SimProcess::errorText()
{
    m_stderr += m_process.readAllStandardError();
    return QString::fromUtf8(m_stderr);
}

} // namespace opsdeck::test
