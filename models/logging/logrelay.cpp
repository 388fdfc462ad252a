#include "logrelay.h"

#include <mutex>
#include <spdlog/sinks/base_sink.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

namespace opsdeck::logging {

namespace {

class RelaySink : public spdlog::sinks::base_sink<std::mutex>
{
public:
    explicit RelaySink(LogRelay *relay) : m_relay(relay) {}
    void detach()
    {
        std::lock_guard lock(mutex_);
        m_relay = nullptr;
    }

protected:
    void sink_it_(const spdlog::details::log_msg &message) override
    {
        if (!m_relay)
            return;
        spdlog::memory_buf_t formatted;
        formatter_->format(message, formatted);
        QString line =
            QString::fromUtf8(formatted.data(), static_cast<qsizetype>(formatted.size()));
        while (line.endsWith(QLatin1Char('\n')))
            line.chop(1);
        const auto level = spdlog::level::to_string_view(message.level);
        Q_EMIT m_relay->lineLogged(
            QString::fromUtf8(level.data(), static_cast<qsizetype>(level.size())), line);
    }
    void flush_() override {}

private:
    LogRelay *m_relay;
};

} // namespace

LogRelay::LogRelay(QObject *parent) : QObject(parent)
{
    auto sink = std::make_shared<RelaySink>(this);
    sink->set_pattern("%H:%M:%S.%e %^%l%$ %v");
    m_sink = sink;
}

LogRelay::~LogRelay()
{
    std::static_pointer_cast<RelaySink>(m_sink)->detach();
}

std::shared_ptr<spdlog::sinks::sink> LogRelay::sink()
{
    return m_sink;
}

void installDefaultLogger(const std::shared_ptr<spdlog::sinks::sink> &extraSink)
{
    std::vector<spdlog::sink_ptr> sinks{std::make_shared<spdlog::sinks::stderr_color_sink_mt>()};
    if (extraSink)
        sinks.push_back(extraSink);
    auto logger = std::make_shared<spdlog::logger>("opsdeck", sinks.begin(), sinks.end());
    logger->set_level(spdlog::level::info);
    spdlog::set_default_logger(logger);
}

} // namespace opsdeck::logging
