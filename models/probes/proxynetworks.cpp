#include "proxynetworks.h"

#include <QNetworkAccessManager>
#include <QNetworkProxy>

namespace opsdeck::probes {

ProxyNetworks::ProxyNetworks(QObject *owner) : m_owner(owner) {}

QNetworkAccessManager &ProxyNetworks::forProxy(const QUrl &proxy)
{
    const QString id = proxy.isEmpty()
                           ? QString()
                           : proxy.host() + QLatin1Char(':') + QString::number(proxy.port(3128));
    if (QNetworkAccessManager *network = m_networks.value(id))
        return *network;
    auto *network = new QNetworkAccessManager(m_owner);
    if (proxy.isEmpty())
        network->setProxy(QNetworkProxy::NoProxy);
    else
        network->setProxy(QNetworkProxy(QNetworkProxy::HttpProxy, proxy.host(),
                                        static_cast<quint16>(proxy.port(3128))));
    m_networks.insert(id, network);
    return *network;
}

} // namespace opsdeck::probes
