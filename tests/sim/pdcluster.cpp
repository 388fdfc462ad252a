#include "pdcluster.h"

#include "testsupport.h"

namespace opsdeck::test {

namespace {

QStringList engineArgs(const QString &role, int port, const QString &backend)
{
    return {QStringLiteral("--role"),
            role,
            QStringLiteral("--port"),
            QString::number(port),
            QStringLiteral("--ready-delay"),
            QStringLiteral("0"),
            QStringLiteral("--exit-delay"),
            QStringLiteral("0.2"),
            QStringLiteral("--transfer-backend"),
            backend};
}

QString loopbackUrl(int port)
{
    return QStringLiteral("http://127.0.0.1:%1").arg(port);
}

} // namespace

PdCluster::PdCluster(Options options)
    : m_options(std::move(options)), m_prefillPort(freeTcpPort()), m_bootstrapPort(freeTcpPort()),
      m_decodePort(freeTcpPort())
{
}

QStringList PdCluster::prefillArgs() const
{
    return engineArgs(QStringLiteral("prefill"), m_prefillPort, m_options.backend) +
           QStringList{QStringLiteral("--disaggregation-bootstrap-port"),
                       QString::number(m_bootstrapPort)};
}

QStringList PdCluster::decodeArgs() const
{
    return engineArgs(QStringLiteral("decode"), m_decodePort, m_options.backend) +
           QStringList{QStringLiteral("--kv-transfer-timeout"),
                       QString::number(m_options.kvTransferTimeoutS)};
}

QString PdCluster::prefillUrl() const
{
    return loopbackUrl(m_prefillPort);
}

QString PdCluster::decodeUrl() const
{
    return loopbackUrl(m_decodePort);
}

bool PdCluster::startPrefill()
{
    m_prefill = std::make_unique<SimProcess>();
    return m_prefill->start(prefillArgs());
}

bool PdCluster::startDecode()
{
    m_decode = std::make_unique<SimProcess>();
    return m_decode->start(decodeArgs());
}

bool PdCluster::start(std::chrono::milliseconds deadline)
{
    if (!startPrefill() || !startDecode())
        return false;
    const QStringList router = QStringList{QStringLiteral("--role"),
                                           QStringLiteral("router"),
                                           QStringLiteral("--port"),
                                           QStringLiteral("0"),
                                           QStringLiteral("--prefill"),
                                           prefillUrl(),
                                           QString::number(m_bootstrapPort),
                                           QStringLiteral("--decode"),
                                           decodeUrl(),
                                           QStringLiteral("--health-check-interval"),
                                           QStringLiteral("0.1")} +
                               m_options.routerExtra;
    return m_router.start(router) && waitUntil([&] { return readiness() == 200; }, deadline);
}

bool PdCluster::restartPrefill()
{
    m_prefill->stop();
    return startPrefill();
}

bool PdCluster::restartDecode()
{
    stopDecode();
    return startDecode();
}

void PdCluster::stopDecode()
{
    m_decode->stop();
}

HttpReply PdCluster::chat() const
{
    return httpPost(m_router.port(), "/v1/chat/completions", chatBody(4), 30);
}

int PdCluster::readiness() const
{
    return httpGet(m_router.port(), "/readiness", 5).status;
}

bool PdCluster::enginesHealthy() const
{
    return httpGet(m_prefillPort, "/health", 5).status == 200 &&
           httpGet(m_decodePort, "/health", 5).status == 200;
}

double PdCluster::decodeTransferFailures() const
{
    return metricValue(httpGet(m_decodePort, "/metrics", 5).body,
                       "sglang:num_transfer_failed_reqs_total");
}

} // namespace opsdeck::test
