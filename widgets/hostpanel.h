#pragma once

#include "hostsignalssample.h"

#include <QPointer>
#include <QWidget>

class QLabel;
class QTableView;

namespace opsdeck::remote {
class GpuTableModel;
class HostSignals;
class ServiceProcessTableModel;
} // namespace opsdeck::remote

/// One host's GPU and serving-process signals (issue 5), from a HostSignals
/// poller: a GPU table (index, name, utilization % as a bar, memory used /
/// total GiB as a bar, temperature C, power W), or, when the host has no
/// nvidia-smi or it failed, that sentence plainly instead of an empty table;
/// a process table (service, pid, start time in local time and "up 2 h 3 min",
/// RSS MiB, what it is and notes such as "old process still running"); the
/// time of the last update and the poll's error. A view only: the tables show
/// GpuTableModel and ServiceProcessTableModel (models/remote). Thread: GUI.
class HostPanel : public QWidget
{
    Q_OBJECT
public:
    explicit HostPanel(QWidget *parent = nullptr);

    /// Shows `hostSignals`' samples from now on (its latest one at once);
    /// nullptr detaches. Not owned.
    void setHostSignals(opsdeck::remote::HostSignals *hostSignals);
    /// Shows one sample; what setHostSignals() connects.
    void showSample(const opsdeck::remote::HostSignalsSample &sample);

    // For tests and screenshots.
    QTableView *gpuTable() const { return m_gpuTable; }
    QTableView *processTable() const { return m_processTable; }
    opsdeck::remote::GpuTableModel *gpuModel() const { return m_gpuModel; }
    opsdeck::remote::ServiceProcessTableModel *processModel() const { return m_processModel; }
    /// The sentence shown instead of the GPU table; empty while the table shows.
    QString gpuStatusText() const;
    QString lastUpdateText() const;
    QString errorText() const;

private:
    void fitGpuTableHeight();

    QPointer<opsdeck::remote::HostSignals> m_hostSignals;
    opsdeck::remote::GpuTableModel *m_gpuModel;
    opsdeck::remote::ServiceProcessTableModel *m_processModel;
    QLabel *m_title;
    QLabel *m_updated;
    QLabel *m_error;
    QLabel *m_gpuStatus;
    QTableView *m_gpuTable;
    QTableView *m_processTable;
};
