#pragma once

#include "serviceprocesses.h"

#include <QAbstractTableModel>
#include <QVector>

namespace opsdeck::remote {

/// The serving processes of one host sample as a table for HostPanel: one
/// row per process (Main first), or one row for a service with none (its pid
/// file notes say why). Columns: service, pid, started at (local time,
/// yyyy-MM-dd HH:mm:ss; the tooltip has UTC ISO 8601), up ("up 2 h 3 min"),
/// RSS in MiB (bytes / 1048576, one decimal), what the process is ("pid
/// file's process", "child", "old process still running"), notes (the
/// service's ServiceProcesses::notes(), on its first row). WarningRole is true
/// for cells an on-call engineer must not miss (an old instance, a zombie,
/// notes). Thread: GUI.
class ServiceProcessTableModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column
    {
        Service,
        Pid,
        Started,
        Up,
        Rss,
        Process,
        Notes,
        ColumnCount
    };
    static constexpr int WarningRole = Qt::UserRole + 2;

    using QAbstractTableModel::QAbstractTableModel;

    void setServices(const QVector<ServiceProcesses> &services);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    struct Row
    {
        QString service;
        std::optional<ProcessSample> process; ///< none: the service has no process
        QStringList notes;                    ///< on the service's first row only
        QString what; ///< the Process column: "pid file's process", "child", ...
    };
    QVector<Row> m_rows;
};

} // namespace opsdeck::remote
