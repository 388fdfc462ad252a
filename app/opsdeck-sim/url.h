#pragma once

#include <optional>
#include <string>

namespace opsdeck::sim {

/// An `http://host:port[/path]` URL as given on the command line.
/// Only plain http is supported (the sim talks to loopback services).
class Url
{
public:
    /// nullopt for anything but http://HOST[:PORT][/PATH]; port defaults to 80.
    static std::optional<Url> parse(const std::string &text);

    const std::string &host() const { return m_host; }
    int port() const { return m_port; }
    /// Path prefix without trailing slash ("" for none).
    const std::string &path() const { return m_path; }
    /// `http://host:port`, what httplib::Client takes.
    std::string origin() const;

private:
    std::string m_host;
    int m_port = 80;
    std::string m_path;
};

} // namespace opsdeck::sim
