#include "loadhistory.h"

namespace opsdeck::probes {

LoadHistory::LoadHistory(QObject *parent) : QObject(parent) {}

void LoadHistory::setService(const QString &service)
{
    m_service = service;
    m_samples.clear();
}

void LoadHistory::append(const LoadSample &sample)
{
    if (sample.service != m_service)
        return;
    m_samples.push_back(sample);
    while (!m_samples.empty() && m_samples.front().timeMs < sample.timeMs - m_windowMs)
        m_samples.pop_front();
    Q_EMIT sampleAppended(sample);
}

} // namespace opsdeck::probes
