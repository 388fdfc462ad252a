#pragma once

#include <memory>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>
#include <sstream>
#include <string>

namespace opsdeck::test {

/// Everything spdlog's default logger writes while this lives (every level),
/// for tests that check a secret never reaches the log.
class LogCapture
{
public:
    LogCapture() : m_previous(spdlog::default_logger())
    {
        auto logger = std::make_shared<spdlog::logger>(
            "capture", std::make_shared<spdlog::sinks::ostream_sink_mt>(m_text));
        logger->set_level(spdlog::level::trace);
        spdlog::set_default_logger(logger);
    }
    ~LogCapture() { spdlog::set_default_logger(m_previous); }
    LogCapture(const LogCapture &) = delete;
    LogCapture &operator=(const LogCapture &) = delete;
    std::string text() const { return m_text.str(); }

private:
    std::ostringstream m_text;
    std::shared_ptr<spdlog::logger> m_previous;
};

} // namespace opsdeck::test
