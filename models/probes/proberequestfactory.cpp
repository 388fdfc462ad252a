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

ProbeRequestFactory::ProbeRequestFactory(ProbePath path, QByteArray apiKey, QString problem)
    : m_path(std::move(path)), m_apiKey(std::move(apiKey)), m_problem(std::move(problem))
{
}

ProbeRequestFactory ProbeRequestFactory::resolve(const ProbePath &path, secrets::SecretStore &store,
                                                 std::chrono::milliseconds deadline)
{
    HttpRequestSettings settings = HttpRequestSettings::resolve(entryOf(path), store, deadline);
    ProbeRequestFactory factory(path, settings.apiKey, settings.problem);
    settings.wipe();
    return factory;
}

ProbeRequestFactory ProbeRequestFactory::withoutSecrets(const ProbePath &path)
{
    const HttpRequestSettings settings = HttpRequestSettings::withoutSecrets(entryOf(path));
    return ProbeRequestFactory(path, {}, settings.problem);
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
    int ms = m_overrideTimeoutMs > 0     ? m_overrideTimeoutMs
             : m_path.http.timeoutMs > 0 ? m_path.http.timeoutMs
                                         : m_defaultTimeoutMs;
    return std::clamp(ms, 1, 600'000);
}

ProbeRequest ProbeRequestFactory::request(ProbeKind kind, ConnectionMode mode,
                                          const QUrl &url) const
{
    ProbeRequest request;
    request.kind = kind;
    request.mode = mode;
    request.url = url;
    request.apiKey = m_apiKey;
    request.caFile = m_path.http.caFile;
    request.verifyTls = m_path.http.verifyTls;
    request.proxy = m_path.http.proxy;
    request.timeoutMs = timeoutMs();
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
    secrets::SecretStore::wipe(m_apiKey);
}

} // namespace opsdeck::probes
