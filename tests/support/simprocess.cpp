#include "simprocess.h"

#include "testsupport.h"

#include <QNetworkAccessManager>
#include <QNetworkReply>
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
    const int code = stopProcess(m_process, deadline);
    m_stderr += m_process.readAllStandardError();
    return code;
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

QStringList simArgs(const QString &role, const QStringList &extra)
{
    return QStringList{QStringLiteral("--role"),        role,
                       QStringLiteral("--port"),        QStringLiteral("0"),
                       QStringLiteral("--ready-delay"), QStringLiteral("0")} +
           extra;
}

QStringList stuckEngineArgs()
{
    return simArgs(QStringLiteral("engine"),
                   {QStringLiteral("--fault"), QStringLiteral("scheduler-stuck")});
}

QString engineInventory(const SimProcess &engine, const QString &extra, const QString &alerts)
{
    return QStringLiteral("hosts: [{name: local, kind: local}]\n"
                          "services:\n"
                          "  - {name: engine, role: engine, host: local, url: '%1'}\n%2%3")
        .arg(engine.url(), alerts, extra);
}

QVector<QNetworkReply *> sendChats(QNetworkAccessManager &network, const SimProcess &sim, int count)
{
    QVector<QNetworkReply *> replies;
    for (int i = 0; i < count; ++i) {
        QNetworkRequest request(QUrl(sim.url() + QStringLiteral("/v1/chat/completions")));
        request.setHeader(QNetworkRequest::ContentTypeHeader, QStringLiteral("application/json"));
        replies.append(network.post(
            request,
            QByteArrayLiteral(
                R"({"model":"m","messages":[{"role":"user","content":"hi"}],"max_tokens":4})")));
    }
    return replies;
}

} // namespace opsdeck::test
