#include "serviceprocesstablemodel.h"

#include "cellsnapshot.h"

namespace opsdeck::remote {

namespace {

QString processText(const ProcessSample &process, const ProcessSample *main)
{
    switch (process.kind) {
    case ProcessSample::Kind::Main:
        return process.isZombie() ? QStringLiteral("pid file's process (zombie)")
                                  : QStringLiteral("pid file's process");
    case ProcessSample::Kind::Child:
        return QStringLiteral("child");
    case ProcessSample::Kind::Parent:
        return QStringLiteral("parent");
    case ProcessSample::Kind::OldInstance:
        // One started after the pid file's process is not the old one.
        if (main && main->startedAt.isValid() && process.startedAt > main->startedAt)
            return QStringLiteral("another process on its --port");
        return QStringLiteral("old process still running");
    }
    return {};
}

QString rssText(qint64 bytes)
{
    return bytes < 0 ? QStringLiteral("n/a")
                     : QStringLiteral("%1 MiB").arg(double(bytes) / (1024.0 * 1024.0), 0, 'f', 1);
}

} // namespace

void ServiceProcessTableModel::setServices(const QVector<ServiceProcesses> &services)
{
    QVector<Row> rows;
    for (const auto &service : services) {
        const QStringList notes = service.notes();
        if (service.processes.isEmpty())
            rows.append({service.query.service, std::nullopt, notes, {}});
        for (int i = 0; i < service.processes.size(); ++i)
            rows.append({service.query.service, service.processes.at(i),
                         i == 0 ? notes : QStringList(),
                         processText(service.processes.at(i), service.mainProcess())});
    }
    if (rows.size() != m_rows.size()) {
        // Processes came or went: the rows themselves changed.
        beginResetModel();
        m_rows = std::move(rows);
        endResetModel();
        return;
    }
    // The same rows polled again: only the cells that changed (uptime, RSS).
    const CellSnapshot before(*this, {Qt::DisplayRole, Qt::ToolTipRole, WarningRole});
    m_rows = std::move(rows);
    if (const auto changed = before.changedIn(*this))
        Q_EMIT dataChanged(changed->first, changed->second, before.roles());
}

int ServiceProcessTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int ServiceProcessTableModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ServiceProcessTableModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Row &row = m_rows.at(index.row());
    const ProcessSample *process = row.process ? &*row.process : nullptr;
    const int column = index.column();
    if (role == Qt::DisplayRole) {
        if (column == Service)
            return row.service;
        if (column == Notes)
            return row.notes.join(QStringLiteral("; "));
        if (!process)
            return {};
        switch (column) {
        case Pid:
            return QString::number(process->pid);
        case Started:
            return process->startedAt.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"));
        case Up:
            return describeUptime(process->uptimeSeconds);
        case Rss:
            return rssText(process->rssBytes);
        case Process:
            return row.what;
        default:
            return {};
        }
    }
    if (role == Qt::ToolTipRole) {
        if (column == Started && process)
            return process->startedAt.toString(Qt::ISODate);
        if (column == Process && process)
            return process->args;
        if (column == Notes && !row.notes.isEmpty())
            return row.notes.join(QLatin1Char('\n'));
        return {};
    }
    if (role == WarningRole) {
        if (column == Notes)
            return !row.notes.isEmpty();
        if (column == Process && process)
            return process->kind == ProcessSample::Kind::OldInstance || process->isZombie();
        return false;
    }
    if (role == Qt::TextAlignmentRole)
        return static_cast<int>((column == Pid || column == Rss ? Qt::AlignRight : Qt::AlignLeft) |
                                Qt::AlignVCenter);
    return {};
}

QVariant ServiceProcessTableModel::headerData(int section, Qt::Orientation orientation,
                                              int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Service:
        return tr("Service");
    case Pid:
        return tr("PID");
    case Started:
        return tr("Started");
    case Up:
        return tr("Up");
    case Rss:
        return tr("RSS");
    case Process:
        return tr("Process");
    case Notes:
        return tr("Notes");
    default:
        return {};
    }
}

} // namespace opsdeck::remote
