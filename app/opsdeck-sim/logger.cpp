#include "logger.h"

#include <chrono>
#include <cstdio>
#include <ctime>
#include <mutex>

namespace opsdeck::sim {

namespace {
std::mutex s_mutex;
std::string s_role = "sim";
} // namespace

void Logger::setRole(const std::string &role)
{
    std::lock_guard lock(s_mutex);
    s_role = role;
}

void Logger::info(const std::string &message)
{
    write("INFO", message);
}
void Logger::warn(const std::string &message)
{
    write("WARN", message);
}
void Logger::error(const std::string &message)
{
    write("ERROR", message);
}

void Logger::write(const char *level, const std::string &message)
{
    using namespace std::chrono;
    const auto now = system_clock::now();
    const std::time_t seconds = system_clock::to_time_t(now);
    const auto millis = duration_cast<milliseconds>(now.time_since_epoch()).count() % 1000;
    std::tm local{};
    localtime_r(&seconds, &local);
    char stamp[32];
    std::strftime(stamp, sizeof stamp, "%Y-%m-%d %H:%M:%S", &local);

    std::lock_guard lock(s_mutex);
    // One fprintf per line and an explicit flush: tests read stderr through a pipe
    // and must see the "listening on" line as soon as it is written.
    std::fprintf(stderr, "%s.%03d %s %s: %s\n", stamp, static_cast<int>(millis), level,
                 s_role.c_str(), message.c_str());
    std::fflush(stderr);
}

} // namespace opsdeck::sim
