#pragma once

#include <QHash>
#include <QString>
#include <QUrl>

class QNetworkAccessManager;
class QObject;

namespace opsdeck::probes {

/// One QNetworkAccessManager per distinct forward proxy. Qt 6 sets proxies per
/// manager, not per request, and services of one inventory may each name
/// their own (or none). Managers are created on first use with the owner as
/// parent; proxies never come from the environment: the direct manager has
/// NoProxy set explicitly.
/// Thread: the owner's thread (the managers live there).
class ProxyNetworks
{
public:
    explicit ProxyNetworks(QObject *owner);

    /// The manager for `proxy` (`http://HOST:PORT`); an empty URL: direct.
    QNetworkAccessManager &forProxy(const QUrl &proxy);

private:
    QObject *m_owner;
    QHash<QString, QNetworkAccessManager *> m_networks;
};

} // namespace opsdeck::probes
