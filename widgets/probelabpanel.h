#pragma once

#include "chartmarker.h"

#include <QVector>
#include <QWidget>

class QComboBox;
class QDoubleSpinBox;
class QGridLayout;
class QLabel;
class QPushButton;
class QScrollArea;
class QSplitter;
class QSpinBox;
class QTableView;
class ProbeChecksPanel;
class ProbeLatencyPanel;

namespace opsdeck::history {
class HotWindow;
}
namespace opsdeck::probes {
class ProbeLab;
}

/// The "Probe lab" tab: choose a cluster, start and stop rounds of fresh and
/// keep-alive probes (rounds, idle gap), see per path the fresh and reused
/// latency (p50 and p99 over the last minute), the recent probes with their
/// connection ids and phase timings ("Copy as curl" on any row), and the
/// checks (ProbeChecksPanel). Only views ProbeLab. Thread: GUI thread.
class ProbeLabPanel : public QWidget
{
    Q_OBJECT
public:
    ProbeLabPanel(opsdeck::probes::ProbeLab *lab, opsdeck::history::HotWindow *window,
                  QWidget *parent = nullptr);

    QComboBox *clusterBox() const { return m_clusterBox; }
    QSpinBox *roundsBox() const { return m_roundsBox; }
    QDoubleSpinBox *idleGapBox() const { return m_idleGapBox; }
    QPushButton *startButton() const { return m_startButton; }
    QPushButton *stopButton() const { return m_stopButton; }
    QPushButton *copyCurlButton() const { return m_copyButton; }
    QTableView *probeTable() const { return m_table; }
    ProbeChecksPanel *checksPanel() const { return m_checks; }
    const QVector<ProbeLatencyPanel *> &latencyPanels() const { return m_panels; }
    QString statusText() const;

    /// Starts probing with the spin boxes' settings (what Start does).
    void start();
    /// Puts "copy as curl" of the selected row (else the newest) on the
    /// clipboard; returns the command (empty when the table is empty).
    QString copySelectedAsCurl();
    void setMarkers(const QVector<ChartMarker> &markers);

protected:
    void resizeEvent(QResizeEvent *event) override;

private:
    void rebuildClusters();
    /// Puts the charts in as many columns as fit (at least ~380 px each).
    void layoutCharts();
    void rebuildCharts();
    void showProbing(bool probing);
    void showTableMenu(const QPoint &pos);

    opsdeck::probes::ProbeLab *m_lab;
    opsdeck::history::HotWindow *m_window;
    QComboBox *m_clusterBox;
    QSpinBox *m_roundsBox;
    QDoubleSpinBox *m_idleGapBox;
    QPushButton *m_startButton;
    QPushButton *m_stopButton;
    QPushButton *m_copyButton;
    QLabel *m_status;
    QGridLayout *m_chartGrid;
    QScrollArea *m_chartScroll;
    QSplitter *m_leftSplitter;
    int m_columns = 0;
    int m_sizedForHeight = 0; ///< the splitter height the chart rows were fitted to
    bool m_userSplit = false;
    QVector<ProbeLatencyPanel *> m_panels;
    QVector<ChartMarker> m_markers;
    QTableView *m_table;
    ProbeChecksPanel *m_checks;
};
