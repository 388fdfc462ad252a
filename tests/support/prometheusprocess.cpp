#include "prometheusprocess.h"

#include "testsupport.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QNetworkAccessManager>
#include <QNetworkProxy>
#include <QNetworkReply>

namespace opsdeck::test {

namespace {

const QString prometheusBinary = QStringLiteral("/usr/bin/prometheus");

QByteArray configFor(const QStringList &targets)
{
    // Evaluation at 1 s too, so that a test never waits on the 1 min default.
    QByteArray yaml = "global:\n"
                      "  scrape_interval: 1s\n"
                      "  scrape_timeout: 1s\n"
                      "  evaluation_interval: 1s\n"
                      "scrape_configs:\n"
                      "  - job_name: opsdeck\n"
                      "    static_configs:\n"
                      "      - targets: [";
    QStringList quoted;
    for (const QString &target : targets)
        quoted << QLatin1Char('"') + target + QLatin1Char('"');
    yaml += quoted.join(QStringLiteral(", ")).toUtf8() + "]\n";
    return yaml;
}

} // namespace

PrometheusProcess::~PrometheusProcess()
{
    if (m_process.state() != QProcess::NotRunning)
        stop(std::chrono::seconds(5));
}

bool PrometheusProcess::start(const QStringList &targets, std::chrono::milliseconds deadline)
{
    for (int attempt = 0; attempt < 3; ++attempt) {
        if (startOnce(targets, deadline))
            return true;
        stop(std::chrono::seconds(5));
        // Only a port lost to another process is worth another try.
        if (!m_log.contains("address already in use"))
            return false;
    }
    return false;
}

bool PrometheusProcess::startOnce(const QStringList &targets, std::chrono::milliseconds deadline)
{
    m_log.clear();
    m_reason.clear();
    if (!m_dir.isValid()) {
        m_reason = QStringLiteral("no temporary directory: ") + m_dir.errorString();
        return false;
    }
    const QString config = m_dir.filePath(QStringLiteral("prometheus.yml"));
    QFile file(config);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate) ||
        file.write(configFor(targets)) < 0) {
        m_reason = QStringLiteral("cannot write ") + config;
        return false;
    }
    file.close();
    m_port = freeTcpPort();
    m_process.setProgram(prometheusBinary);
    m_process.setArguments(
        {QStringLiteral("--config.file=") + config,
         QStringLiteral("--storage.tsdb.path=") + m_dir.filePath(QStringLiteral("data")),
         QStringLiteral("--web.listen-address=127.0.0.1:%1").arg(m_port),
         QStringLiteral("--log.level=warn")});
    m_process.setWorkingDirectory(m_dir.path());
    m_process.setStandardInputFile(QProcess::nullDevice());
    m_process.setProcessChannelMode(QProcess::MergedChannels);
    m_process.start();
    const bool up = waitUntil(
        [&] {
            m_log += m_process.readAllStandardOutput();
            return m_process.state() == QProcess::NotRunning || ready();
        },
        deadline);
    if (up && m_process.state() == QProcess::Running)
        return true;
    m_reason = m_process.state() == QProcess::NotRunning
                   ? QStringLiteral("prometheus exited with %1").arg(m_process.exitCode())
                   : QStringLiteral("prometheus not ready within %1 ms").arg(deadline.count());
    return false;
}

bool PrometheusProcess::ready()
{
    // One short GET per try; the caller's waitUntil() bounds the whole wait.
    QNetworkAccessManager network;
    network.setProxy(QNetworkProxy::NoProxy);
    QNetworkRequest request(QUrl(url() + QStringLiteral("/-/ready")));
    request.setTransferTimeout(1000);
    QNetworkReply *reply = network.get(request);
    QElapsedTimer clock;
    clock.start();
    while (reply->isRunning() && clock.elapsed() < 1500)
        QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    reply->abort();
    delete reply;
    return status == 200;
}

int PrometheusProcess::stop(std::chrono::milliseconds deadline)
{
    const int code = stopProcess(m_process, deadline);
    m_log += m_process.readAllStandardOutput();
    return code;
}

QString PrometheusProcess::url() const
{
    return QStringLiteral("http://127.0.0.1:%1").arg(m_port);
}

QString PrometheusProcess::errorText()
{
    m_log += m_process.readAllStandardOutput();
    return m_reason + QLatin1Char('\n') + QString::fromUtf8(m_log);
}

} // namespace opsdeck::test
