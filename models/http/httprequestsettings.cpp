#include "httprequestsettings.h"

#include "secretstore.h"

using namespace Qt::StringLiterals;

namespace opsdeck::probes {

HttpRequestSettings HttpRequestSettings::withoutSecrets(const inventory::Service &service)
{
    HttpRequestSettings settings;
    settings.service = service.name;
    settings.verifyTls = service.http.verifyTls;
    settings.timeoutMs = service.http.timeoutMs;
    settings.proxy = service.http.proxy;
    if (!service.http.caFile.isEmpty()) {
        settings.caFile = service.http.caFile;
        settings.caCertificates = QSslCertificate::fromPath(
            service.http.caFile, QSsl::Pem, QSslCertificate::PatternSyntax::FixedString);
        if (settings.caCertificates.isEmpty())
            settings.problem = u"service %1: ca_file %2 cannot be read or holds no PEM "
                               "certificate"_s.arg(service.name, service.http.caFile);
    }
    if (!service.http.apiKeySecret.isEmpty() && settings.problem.isEmpty())
        settings.problem = u"service %1: API key %2 needs the secret store"_s.arg(
            service.name, service.http.apiKeySecret);
    return settings;
}

HttpRequestSettings HttpRequestSettings::resolve(const inventory::Service &service,
                                                 secrets::SecretStore &store,
                                                 std::chrono::milliseconds deadline)
{
    inventory::Service withoutKey = service;
    withoutKey.http.apiKeySecret.clear();
    HttpRequestSettings settings = withoutSecrets(withoutKey);
    const QString &name = service.http.apiKeySecret;
    if (name.isEmpty() || !settings.problem.isEmpty())
        return settings;
    secrets::SecretResult result = store.readBlocking(name, deadline);
    if (result.ok() && !result.value.isEmpty()) {
        settings.apiKey = result.value;
        secrets::SecretStore::wipe(result.value);
        return settings;
    }
    secrets::SecretStore::wipe(result.value);
    if (result.status == secrets::SecretResult::Status::NotFound || result.ok())
        settings.problem =
            u"service %1: API key %2 is not in the secret store (store it with 'opsdeck-cli "
            "secret set %2')"_s.arg(service.name, name);
    else
        settings.problem =
            u"service %1: API key %2 cannot be read: %3"_s.arg(service.name, name, result.error);
    return settings;
}

void HttpRequestSettings::wipe()
{
    secrets::SecretStore::wipe(apiKey);
}

ProbeRequest HttpRequestSettings::request(const QUrl &url, int defaultTimeoutMs,
                                          qint64 maxBytes) const
{
    ProbeRequest request;
    request.url = url;
    request.apiKey = apiKey;
    request.caFile = caFile;
    request.verifyTls = verifyTls;
    request.proxy = proxy;
    request.timeoutMs = effectiveTimeoutMs(defaultTimeoutMs);
    request.maxBytes = maxBytes;
    return request;
}

} // namespace opsdeck::probes
