#include "url.h"

#include <charconv>

namespace opsdeck::sim {

std::optional<Url> Url::parse(const std::string &text)
{
    const std::string scheme = "http://";
    if (text.rfind(scheme, 0) != 0)
        return std::nullopt;
    const std::string rest = text.substr(scheme.size());
    const size_t slash = rest.find('/');
    const std::string authority = rest.substr(0, slash);
    Url url;
    if (slash != std::string::npos) {
        url.m_path = rest.substr(slash);
        while (!url.m_path.empty() && url.m_path.back() == '/')
            url.m_path.pop_back();
    }
    const size_t colon = authority.rfind(':');
    if (colon == std::string::npos) {
        url.m_host = authority;
    } else {
        url.m_host = authority.substr(0, colon);
        const std::string port = authority.substr(colon + 1);
        const auto [ptr, ec] = std::from_chars(port.data(), port.data() + port.size(), url.m_port);
        if (ec != std::errc() || ptr != port.data() + port.size() || url.m_port <= 0 ||
            url.m_port > 65535)
            return std::nullopt;
    }
    if (url.m_host.empty())
        return std::nullopt;
    return url;
}

std::string Url::origin() const
{
    return "http://" + m_host + ":" + std::to_string(m_port);
}

} // namespace opsdeck::sim
