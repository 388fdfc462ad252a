#pragma once

#include <string>

namespace opsdeck::sim {

/// Line-atomic, timestamped logging to stderr, the way a real server logs.
///
/// Format of every line: `YYYY-MM-DD HH:MM:SS.mmm LEVEL ROLE: message`
/// (local time, milliseconds). Tools parse two of these lines:
/// `... listening on http://HOST:PORT` (main server) and, for the router,
/// `... metrics listening on http://HOST:PORT`.
///
/// Thread-safe: any thread may log; one mutex keeps lines whole.
class Logger
{
public:
    /// Tag printed after the level (the sim's role); set once at start.
    static void setRole(const std::string &role);

    static void info(const std::string &message);
    static void warn(const std::string &message);
    static void error(const std::string &message);

private:
    static void write(const char *level, const std::string &message);
};

} // namespace opsdeck::sim
