#include "inventorychecker.h"

#include "visibletext.h"
#include "yamlmapping.h"

#include <QHash>
#include <QSet>
#include <algorithm>

using namespace Qt::StringLiterals;

namespace opsdeck::inventory::detail {

InventoryChecker::InventoryChecker(InventoryDiagnostics &diagnostics, const Inventory &inventory)
    : m_diagnostics(diagnostics), m_inventory(inventory)
{
}

void InventoryChecker::check()
{
    checkUniqueNames(m_inventory.hosts, u"hosts"_s, u"host"_s);
    checkUniqueNames(m_inventory.services, u"services"_s, u"service"_s);
    checkUniqueNames(m_inventory.clusters, u"clusters"_s, u"cluster"_s);
    checkServiceHosts();
    for (int i = 0; i < m_inventory.clusters.size(); ++i)
        checkCluster(i);
}

template <typename Item>
void InventoryChecker::checkUniqueNames(const QVector<Item> &items, const QString &list,
                                        const QString &what)
{
    QHash<QString, QString> firstField;
    for (int i = 0; i < items.size(); ++i) {
        const QString &name = items[i].name;
        const QString field = u"%1[%2].name"_s.arg(list).arg(i);
        if (name.isEmpty())
            continue;
        // A newline in a name would forge lines in status's table and the
        // logs; a bidi override would reorder what a person reads.
        const auto bad = std::find_if(name.cbegin(), name.cend(),
                                      [](QChar c) { return !c.isPrint() || c == u'\u2028'; });
        if (name.size() > 253) {
            m_diagnostics.add(
                field, u"a %1 name is at most 253 characters (this one has %2)"_s.arg(what).arg(
                           name.size()));
            continue;
        }
        if (bad != name.cend()) {
            m_diagnostics.add(field,
                              u"a %1 name must be printable text without control "
                              "characters: '%2' has %3"_s.arg(what, logging::visibleText(name),
                                                              logging::visibleText(QString(*bad))));
            continue;
        }
        // Names become parts of file and secret names (a cluster's lock file,
        // http/<service>/api-key): a '/' would reach outside them.
        if (name.contains(u'/') || name == u"." || name == u"..") {
            m_diagnostics.add(field,
                              u"a %1 name must not contain '/' nor be '.' or '..' (it "
                              "becomes part of file and secret names): '%2'"_s.arg(what, name));
            continue;
        }
        if (const auto first = firstField.constFind(name); first != firstField.constEnd()) {
            const QString line = QString::number(m_diagnostics.position(*first).line);
            m_diagnostics.add(field,
                              u"duplicate %1 name '%2' (first at line %3)"_s.arg(what, name, line));
            continue;
        }
        firstField.insert(name, field);
    }
}

void InventoryChecker::checkServiceHosts()
{
    QStringList hostNames;
    for (const Host &host : m_inventory.hosts) {
        if (!host.name.isEmpty())
            hostNames.append(host.name);
    }
    hostNames.removeDuplicates();
    const QString known = hostNames.isEmpty() ? u"the inventory declares no hosts"_s
                                              : u"hosts: "_s + hostNames.join(u", "_s);
    for (int i = 0; i < m_inventory.services.size(); ++i) {
        const Service &service = m_inventory.services[i];
        const QString field = u"services[%1].host"_s.arg(i);
        if (service.host.isEmpty() || m_diagnostics.failed(field) || m_inventory.host(service.host))
            continue;
        m_diagnostics.add(field, u"no host named '%1' (%2)"_s.arg(service.host, known));
    }
    checkServiceVia(known);
}

void InventoryChecker::checkServiceVia(const QString &known)
{
    for (int i = 0; i < m_inventory.services.size(); ++i) {
        const Service &service = m_inventory.services[i];
        const QString field = u"services[%1].via"_s.arg(i);
        if (service.via.isEmpty() || m_diagnostics.failed(field))
            continue;
        const Host *host = m_inventory.host(service.via);
        if (!host)
            m_diagnostics.add(field, u"no host named '%1' (%2)"_s.arg(service.via, known));
        else if (host->kind != HostKind::Ssh)
            // A tunnel is an SSH port forward: a local host has no session to forward through.
            m_diagnostics.add(field, u"host '%1' is %2: via needs an ssh host"_s.arg(
                                         service.via, hostKindName(host->kind)));
        else if (service.url.scheme() == u"https"_s ||
                 service.metricsUrlOverride.scheme() == u"https"_s)
            // The tunnel's end is 127.0.0.1, which no certificate names: every
            // request would fail its TLS check. Better said at load than at 3 am.
            m_diagnostics.add(field, u"https through a tunnel is not supported (the certificate "
                                     "names the service's host, the tunnel is 127.0.0.1): use "
                                     "http, or reach the service directly"_s);
    }
}

void InventoryChecker::checkCluster(int index)
{
    const Cluster &cluster = m_inventory.clusters[index];
    const QString path = u"clusters[%1]."_s.arg(index);
    checkMembers(path + u"prefill"_s, cluster.prefill, Role::Prefill);
    checkMembers(path + u"decode"_s, cluster.decode, Role::Decode);
    if (!cluster.router.isEmpty())
        checkMember(path + u"router"_s, cluster.router, Role::Router);
    if (!cluster.proxy.isEmpty())
        checkMember(path + u"proxy"_s, cluster.proxy, Role::Proxy);
}

void InventoryChecker::checkMembers(const QString &field, const QStringList &names, Role expected)
{
    // `names` holds only the entries that read well, so indexes are recovered
    // from the remembered item paths rather than from positions in the list.
    QSet<QString> seen;
    int item = 0;
    for (const QString &name : names) {
        QString itemField = u"%1[%2]"_s.arg(field).arg(item);
        while (m_diagnostics.failed(itemField))
            itemField = u"%1[%2]"_s.arg(field).arg(++item);
        ++item;
        if (seen.contains(name)) {
            m_diagnostics.add(itemField, u"service '%1' is listed twice"_s.arg(name));
            continue;
        }
        seen.insert(name);
        checkMember(itemField, name, expected);
    }
}

void InventoryChecker::checkMember(const QString &field, const QString &name, Role expected)
{
    if (m_diagnostics.failed(field))
        return;
    int index = -1;
    for (int i = 0; i < m_inventory.services.size() && index < 0; ++i) {
        if (m_inventory.services[i].name == name)
            index = i;
    }
    if (index < 0) {
        QStringList candidates;
        for (const Service &service : m_inventory.services) {
            if (service.role == expected && !service.name.isEmpty())
                candidates.append(service.name);
        }
        const QString hint =
            candidates.isEmpty()
                ? u"there is no %1 service"_s.arg(roleName(expected))
                : u"%1 services: %2"_s.arg(roleName(expected), candidates.join(u", "_s));
        m_diagnostics.add(field, u"no service named '%1' (%2)"_s.arg(name, hint));
        return;
    }
    const Service &service = m_inventory.services[index];
    // A role that failed to read defaults to engine; comparing it would only echo that error.
    if (m_diagnostics.failed(u"services[%1].role"_s.arg(index)) || service.role == expected)
        return;
    m_diagnostics.add(field, u"service '%1' has role %2 (expected %3)"_s.arg(
                                 name, roleName(service.role), roleName(expected)));
}

} // namespace opsdeck::inventory::detail
