#include "servicestatusmodel.h"

#include <algorithm>

namespace opsdeck::probes {

ServiceStatusModel::ServiceStatusModel(QObject *parent) : QAbstractTableModel(parent) {}

void ServiceStatusModel::setServices(const QVector<inventory::Service> &services)
{
    beginResetModel();
    m_rows.clear();
    for (const auto &service : services) {
        m_rows.append(ServiceStatus::unchecked(service));
    }
    endResetModel();
}

void ServiceStatusModel::updateStatus(const ServiceStatus &status)
{
    for (int row = 0; row < m_rows.size(); ++row) {
        if (m_rows[row].name != status.name)
            continue;
        // The smallest range of cells whose text changed, with the roles that
        // changed (libksysguard's SensorDataModel does the same): a poll that
        // only moved the latency repaints one cell, not the row.
        QVector<QVariant> before(ColumnCount);
        for (int column = 0; column < ColumnCount; ++column)
            before[column] = data(index(row, column), Qt::DisplayRole);
        const ServiceStatus old = m_rows[row];
        m_rows[row] = status;
        int first = ColumnCount;
        int last = -1;
        for (int column = 0; column < ColumnCount; ++column) {
            // "Since change" follows the clock; it changed when lastChange did.
            const bool changed = column == SinceChangeColumn
                                     ? old.lastChange != status.lastChange
                                     : before[column] != data(index(row, column), Qt::DisplayRole);
            if (changed) {
                first = std::min(first, column);
                last = column;
            }
        }
        QList<int> roles{StatusRole};
        if (last >= 0)
            roles << Qt::DisplayRole;
        if (old.state != status.state)
            roles << StateRole;
        if (old.latencyMs != status.latencyMs)
            roles << LatencyMsRole;
        if (old.lastChange != status.lastChange)
            roles << LastChangeRole;
        // Nothing shown changed: the whole status (StatusRole) still did.
        if (last < 0)
            first = last = NameColumn;
        Q_EMIT dataChanged(index(row, first), index(row, last), roles);
        return;
    }
}

int ServiceStatusModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int ServiceStatusModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QString ServiceStatusModel::address(const QUrl &url)
{
    return QStringLiteral("%1:%2")
        .arg(url.host())
        .arg(url.port(url.scheme() == u"https" ? 443 : 80));
}

QString ServiceStatusModel::sinceText(const QDateTime &when, const QDateTime &now)
{
    if (!when.isValid())
        return QStringLiteral("–");
    const qint64 seconds = std::max<qint64>(0, when.secsTo(now));
    if (seconds < 120)
        return QStringLiteral("%1 s").arg(seconds);
    if (seconds < 7200)
        return QStringLiteral("%1 min").arg(seconds / 60);
    return QStringLiteral("%1 h").arg(seconds / 3600);
}

QVariant ServiceStatusModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const ServiceStatus &status = m_rows.at(index.row());
    switch (role) {
    case StateRole:
        return static_cast<int>(status.state);
    case LatencyMsRole:
        return status.latencyMs ? QVariant(*status.latencyMs) : QVariant();
    case LastChangeRole:
        return status.lastChange;
    case StatusRole:
        return QVariant::fromValue(status);
    case Qt::DisplayRole:
        break;
    default:
        return {};
    }
    switch (index.column()) {
    case NameColumn:
        return status.name;
    case RoleColumn:
        return inventory::roleName(status.role);
    case AddressColumn:
        return address(status.url);
    case StateColumn:
        return stateName(status.state);
    case LatencyColumn:
        return status.latencyMs ? QStringLiteral("%1 ms").arg(*status.latencyMs, 0, 'f', 1)
                                : QStringLiteral("–");
    case SinceChangeColumn:
        return sinceText(status.lastChange, QDateTime::currentDateTimeUtc());
    case DetailColumn:
        return status.detail;
    default:
        return {};
    }
}

QVariant ServiceStatusModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case NameColumn:
        return QStringLiteral("Service");
    case RoleColumn:
        return QStringLiteral("Role");
    case AddressColumn:
        return QStringLiteral("Address");
    case StateColumn:
        return QStringLiteral("State");
    case LatencyColumn:
        return QStringLiteral("Last check");
    case SinceChangeColumn:
        return QStringLiteral("Since change");
    case DetailColumn:
        return QStringLiteral("Detail");
    default:
        return {};
    }
}

} // namespace opsdeck::probes
