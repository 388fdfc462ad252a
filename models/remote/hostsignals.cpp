#include "hostsignals.h"

#include "hostsignalsscript.h"
#include "nvidiasmicsv.h"

namespace opsdeck::remote {

HostSignals::HostSignals(Transport *transport, QVector<ServiceProcessQuery> services,
                         QObject *parent)
    : QObject(parent), m_transport(transport),
      m_hostName(transport ? transport->hostName() : QString()), m_services(std::move(services)),
      m_gpuFields(NvidiaSmiCsv::defaultFields())
{
    m_latest.host = m_hostName;
    m_timer.setInterval(std::chrono::seconds(5));
    connect(&m_timer, &QTimer::timeout, this, [this] { pollNow(); });
    if (m_transport)
        connect(m_transport, &Transport::commandFinished, this, &HostSignals::finished);
}

HostSignals::~HostSignals()
{
    if (m_running && m_transport)
        m_transport->cancel(m_running);
}

QString HostSignals::hostName() const
{
    return m_hostName;
}

void HostSignals::setInterval(std::chrono::milliseconds interval)
{
    m_timer.setInterval(interval);
}

std::chrono::milliseconds HostSignals::interval() const
{
    return m_timer.intervalAsDuration();
}

void HostSignals::start()
{
    m_timer.start();
    pollNow();
}

void HostSignals::stop()
{
    m_timer.stop();
}

int HostSignals::nvidiaSmiTimeoutS() const
{
    return std::max<int>(1, static_cast<int>(m_deadline.count() / 2000));
}

bool HostSignals::pollNow()
{
    if (m_running)
        return false;
    if (!m_transport) {
        m_timer.stop();
        return false;
    }
    CommandRequest request;
    request.script = HostSignalsScript::script(m_services, m_gpuFields, nvidiaSmiTimeoutS());
    request.environment = m_environment;
    request.deadline = m_deadline;
    // A host with thousands of processes still prints a few KiB; the cap only
    // guards against a runaway nvidia-smi.
    request.outputCap = 1024 * 1024;
    m_running = m_transport->run(request);
    return true;
}

void HostSignals::finished(quint64 id, const CommandResult &result)
{
    if (id != m_running)
        return; // another user's command on the same transport
    m_running = 0;
    HostSignalsSample sample;
    if (result.succeeded()) {
        sample = HostSignalsScript::parse(result.standardOutput, m_hostName, m_services,
                                          m_gpuFields, nvidiaSmiTimeoutS());
    } else {
        sample.host = m_hostName;
        QString why = result.errorText.isEmpty() ? result.describe() : result.errorText;
        const QString stderrText = QString::fromUtf8(result.standardError).simplified();
        if (!stderrText.isEmpty())
            why += QStringLiteral(": ") + stderrText.left(300);
        sample.error =
            QStringLiteral("host %1: the host signals poll failed (%2)").arg(m_hostName, why);
    }
    sample.sampledAt = QDateTime::currentDateTimeUtc();
    sample.elapsedMs = result.elapsedMs;
    m_latest = sample;
    Q_EMIT sampled(m_latest);
}

} // namespace opsdeck::remote
