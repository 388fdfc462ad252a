#pragma once

#include "servicestatus.h"

#include <QAbstractTableModel>
#include <QVector>

namespace opsdeck::probes {

/// One row per service, in inventory order, with the latest observed state.
/// The services panel's cards and the CLI read it; it emits dataChanged only
/// for the row that changed. Thread: GUI thread; feed it the poller's
/// statuses (ServicePoller::answered through a queued connection).
class ServiceStatusModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column
    {
        NameColumn,
        RoleColumn,
        AddressColumn,
        StateColumn,
        LatencyColumn,
        SinceChangeColumn,
        DetailColumn,
        ColumnCount
    };
    enum Role
    {
        StateRole = Qt::UserRole + 1,
        LatencyMsRole,
        LastChangeRole,
        StatusRole
    };

    explicit ServiceStatusModel(QObject *parent = nullptr);

    /// Resets the rows to these services, all Unknown.
    void setServices(const QVector<inventory::Service> &services);
    /// Takes a check result; ignored when no row has that name (stale).
    void updateStatus(const ServiceStatus &status);
    const ServiceStatus &status(int row) const { return m_rows.at(row); }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    /// "host:port" of a URL, as the cards show it.
    static QString address(const QUrl &url);
    /// "12 s", "4 min", "2 h" since `when` (relative to `now`).
    static QString sinceText(const QDateTime &when, const QDateTime &now);

private:
    QVector<ServiceStatus> m_rows;
};

} // namespace opsdeck::probes
