#include "proberequestfactory.h"

#include "httprequestsettings.h"
#include "secretstore.h"

#include <algorithm>

using namespace Qt::StringLiterals;

namespace opsdeck::probes {

namespace {

inventory::Service entryOf(const ProbePath &path)
{
    inventory::Service service;
    service.name = path.entryService;
    service.role = path.entryRole;
    service.url = path.baseUrl;
    service.http = path.http;
    return service;
}

} // namespace

ProbeRequestFactory::ProbeRequestFactory(ProbePath path, HttpRequestSettings http)
    : m_path(std::move(path)), m_http(std::move(http))
{
}

ProbeRequestFactory::ProbeRequestFactory(ProbePath path, QByteArray apiKey)
    : ProbeRequestFactory(path, HttpRequestSettings::withoutSecrets(entryOf(path)))
{
    m_http.problem.clear();
    m_http.apiKey = std::move(apiKey);
}

ProbeRequestFactory ProbeRequestFactory::resolve(const ProbePath &path, secrets::SecretStore &store,
                                                 std::chrono::milliseconds deadline)
{
    return ProbeRequestFactory(path, HttpRequestSettings::resolve(entryOf(path), store, deadline));
}

ProbeRequestFactory ProbeRequestFactory::withoutSecrets(const ProbePath &path)
{
    return ProbeRequestFactory(path, HttpRequestSettings::withoutSecrets(entryOf(path)));
}

QVector<ProbeRequestFactory> ProbeRequestFactory::forPaths(const QVector<ProbePath> &paths)
{
    // Upper bound of one API-key lookup in the keychain.
    constexpr auto secretDeadline = std::chrono::seconds(10);
    QVector<ProbeRequestFactory> factories;
    for (const ProbePath &path : paths)
        factories << (path.http.apiKeySecret.isEmpty()
                          ? withoutSecrets(path)
                          : resolve(path, secrets::SecretStore::shared(), secretDeadline));
    return factories;
}

int ProbeRequestFactory::timeoutMs() const
{
    const int ms = m_overrideTimeoutMs > 0 ? m_overrideTimeoutMs
                                           : m_http.effectiveTimeoutMs(m_defaultTimeoutMs);
    return std::clamp(ms, 1, 600'000);
}

ProbeRequest ProbeRequestFactory::request(ProbeKind kind, ConnectionMode mode,
                                          const QUrl &url) const
{
    // The service's settings applied the one way every client of the engine does.
    ProbeRequest request = m_http.request(url, m_defaultTimeoutMs, ProbeRequest().maxBytes);
    request.kind = kind;
    request.mode = mode;
    request.timeoutMs = timeoutMs(); // probe rounds may bound it tighter
    request.label = m_path.name;
    return request;
}

ProbeRequest ProbeRequestFactory::get(ConnectionMode mode, const QString &path) const
{
    return request(ProbeKind::Get, mode, inventory::withPath(m_path.baseUrl, path));
}

ProbeRequest ProbeRequestFactory::health(ConnectionMode mode) const
{
    const QUrl url = m_path.healthUrl.isEmpty() ? inventory::withPath(m_path.baseUrl, u"/health"_s)
                                                : m_path.healthUrl;
    return request(ProbeKind::Get, mode, url);
}

ProbeRequest ProbeRequestFactory::models(ConnectionMode mode) const
{
    return request(ProbeKind::Get, mode, inventory::withPath(m_path.baseUrl, u"/v1/models"_s));
}

ProbeRequest ProbeRequestFactory::chat(ConnectionMode mode, const QString &model, bool stream,
                                       int maxTokens) const
{
    ProbeRequest chat = request(stream ? ProbeKind::ChatStream : ProbeKind::Chat, mode,
                                inventory::withPath(m_path.baseUrl, u"/v1/chat/completions"_s));
    chat.body = ChatApi::body(model, stream, maxTokens);
    return chat;
}

void ProbeRequestFactory::wipe()
{
    m_http.wipe();
}

} // namespace opsdeck::probes
