#pragma once

#include "gpusample.h"

#include <QAbstractTableModel>
#include <QVector>

namespace opsdeck::remote {

/// The GPUs of one host sample as a table for HostPanel: one row per GPU.
/// DisplayRole gives the text shown ("100 %", "15.5 / 15.9 GiB" in GiB =
/// MiB / 1024, "67 °C", "612 / 700 W", "n/a" for a value nvidia-smi did not
/// give); FractionRole gives the bar's fill (0..1) for Utilization and Memory,
/// invalid when unknown. Thread: GUI (it is a model views read).
class GpuTableModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column
    {
        Index,
        Name,
        Utilization,
        Memory,
        Temperature,
        Power,
        ColumnCount
    };
    static constexpr int FractionRole = Qt::UserRole + 1;

    using QAbstractTableModel::QAbstractTableModel;

    /// Replaces the rows; the same GPU count updates the cells in place (dataChanged).
    void setGpus(const QVector<GpuSample> &gpus);
    const QVector<GpuSample> &gpus() const { return m_gpus; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    QVector<GpuSample> m_gpus;
};

} // namespace opsdeck::remote
