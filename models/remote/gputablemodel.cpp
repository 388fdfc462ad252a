#include "gputablemodel.h"

#include "cellsnapshot.h"

namespace opsdeck::remote {

namespace {

QString orNa(const std::optional<double> &value, int decimals, const QString &unit)
{
    return value ? QStringLiteral("%1 %2").arg(*value, 0, 'f', decimals).arg(unit)
                 : QStringLiteral("n/a");
}

QString memoryText(const GpuSample &gpu)
{
    if (!gpu.memoryUsedMiB || !gpu.memoryTotalMiB)
        return orNa(gpu.memoryUsedMiB ? std::optional<double>(*gpu.memoryUsedMiB / 1024.0)
                                      : std::nullopt,
                    1, QStringLiteral("GiB"));
    return QStringLiteral("%1 / %2 GiB")
        .arg(*gpu.memoryUsedMiB / 1024.0, 0, 'f', 1)
        .arg(*gpu.memoryTotalMiB / 1024.0, 0, 'f', 1);
}

QString powerText(const GpuSample &gpu)
{
    if (gpu.powerDrawW && gpu.powerLimitW)
        return QStringLiteral("%1 / %2 W")
            .arg(*gpu.powerDrawW, 0, 'f', 0)
            .arg(*gpu.powerLimitW, 0, 'f', 0);
    return orNa(gpu.powerDrawW, 0, QStringLiteral("W"));
}

QVariant display(const GpuSample &gpu, int column)
{
    switch (column) {
    case GpuTableModel::Index:
        return gpu.index >= 0 ? QString::number(gpu.index) : QStringLiteral("?");
    case GpuTableModel::Name:
        return gpu.name;
    case GpuTableModel::Utilization:
        return orNa(gpu.utilizationPercent, 0, QStringLiteral("%"));
    case GpuTableModel::Memory:
        return memoryText(gpu);
    case GpuTableModel::Temperature:
        return orNa(gpu.temperatureC, 0, QStringLiteral("\u00b0C"));
    case GpuTableModel::Power:
        return powerText(gpu);
    default:
        return {};
    }
}

QVariant fraction(const GpuSample &gpu, int column)
{
    if (column == GpuTableModel::Utilization && gpu.utilizationPercent)
        return std::clamp(*gpu.utilizationPercent / 100.0, 0.0, 1.0);
    if (column == GpuTableModel::Memory && gpu.memoryUsedMiB && gpu.memoryTotalMiB &&
        *gpu.memoryTotalMiB > 0)
        return std::clamp(*gpu.memoryUsedMiB / *gpu.memoryTotalMiB, 0.0, 1.0);
    return {};
}

} // namespace

void GpuTableModel::setGpus(const QVector<GpuSample> &gpus)
{
    if (gpus.size() != m_gpus.size()) {
        beginResetModel();
        m_gpus = gpus;
        endResetModel();
        return;
    }
    // GPUs that idle between polls repaint nothing.
    const CellSnapshot before(*this, {Qt::DisplayRole, FractionRole, Qt::ToolTipRole});
    m_gpus = gpus;
    if (const auto changed = before.changedIn(*this))
        Q_EMIT dataChanged(changed->first, changed->second, before.roles());
}

int GpuTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_gpus.size());
}

int GpuTableModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant GpuTableModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const GpuSample &gpu = m_gpus.at(index.row());
    switch (role) {
    case Qt::DisplayRole:
        return display(gpu, index.column());
    case FractionRole:
        return fraction(gpu, index.column());
    case Qt::ToolTipRole:
        if (index.column() == Name)
            return gpu.unavailable.isEmpty() ? gpu.uuid
                                             : gpu.uuid + QStringLiteral("\nnot available: ") +
                                                   gpu.unavailable.join(QStringLiteral(", "));
        return {};
    case Qt::TextAlignmentRole:
        return static_cast<int>((index.column() == Name ? Qt::AlignLeft
                                 : index.column() == Utilization || index.column() == Memory
                                     ? Qt::AlignHCenter
                                     : Qt::AlignRight) |
                                Qt::AlignVCenter);
    default:
        return {};
    }
}

QVariant GpuTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Index:
        return tr("GPU");
    case Name:
        return tr("Name");
    case Utilization:
        return tr("Utilization");
    case Memory:
        return tr("Memory used / total");
    case Temperature:
        return tr("Temp");
    case Power:
        return tr("Power");
    default:
        return {};
    }
}

} // namespace opsdeck::remote
