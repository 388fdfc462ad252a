#include "probeengine.h"

#include "probeengineloop.h"

#include <future>

namespace opsdeck::probes {

ProbeEngine::ProbeEngine(QObject *parent) : ProbeEngine(Limits{}, parent) {}

ProbeEngine::ProbeEngine(Limits limits, QObject *parent) : QObject(parent)
{
    qRegisterMetaType<opsdeck::probes::ProbeResult>();
    m_loop = std::make_unique<Loop>(*this, limits);
}

ProbeEngine::~ProbeEngine() = default;

quint64 ProbeEngine::submit(ProbeRequest request, Callback onDone)
{
    return m_loop->submit(std::move(request), std::move(onDone));
}

ProbeEngine::Batch::Batch(ProbeEngine &engine)
    : m_engine(engine), m_outer(engine.m_loop->beginBatch())
{
}

ProbeEngine::Batch::~Batch()
{
    if (m_outer)
        m_engine.m_loop->endBatch();
}

ProbeResult ProbeEngine::run(ProbeRequest request)
{
    auto promise = std::make_shared<std::promise<ProbeResult>>();
    std::future<ProbeResult> future = promise->get_future();
    submit(std::move(request),
           [promise](const ProbeResult &result) { promise->set_value(result); });
    return future.get();
}

void ProbeEngine::cancel(quint64 id)
{
    m_loop->cancel(id);
}

void ProbeEngine::cancelAll()
{
    m_loop->cancelAll();
}

} // namespace opsdeck::probes
