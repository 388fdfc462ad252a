#pragma once

#include "probe.h"

#include <QAbstractTableModel>
#include <QVector>

namespace opsdeck::probes {

/// One probe of the probe lab as the table shows it: what was seen and the
/// request that reproduces it ("copy as curl").
struct ProbeRow
{
    int round = 0;    ///< ProbeRounds' round, 0 for the model lookup and warm-ups
    QString pathName; ///< ProbePath::name, "via proxy"
    ProbeResult result;
    /// The request as sent, except that a real API key is replaced by a
    /// placeholder: the GUI never holds the secret, and curlCommandFor()
    /// only needs to know that there is one (it prints $OPSDECK_API_KEY).
    ProbeRequest request;
};

/// The recent probes of the probe lab, newest first, at most maxRows()
/// (older rows fall off the bottom). Columns: time, path, mode, connection
/// id (the local port), reused (yes / no / stale), DNS, connect, TLS, TTFB,
/// total and TTFT in ms (curl's -w fields, see ProbeResult), status, note.
/// Thread: the GUI thread.
class ProbeTableModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column
    {
        Time,
        Path,
        Mode,
        Connection,
        Reused,
        Dns,
        Connect,
        Tls,
        Ttfb,
        Total,
        Ttft,
        Status,
        Note,
        ColumnCount
    };

    explicit ProbeTableModel(QObject *parent = nullptr);

    /// Rows kept, newest first. 500: about 8 minutes of a 3-path lab at a
    /// 1 s idle gap, and still cheap to sort and draw.
    static constexpr int maxRows() { return 500; }

    void append(const ProbeRow &row);
    void clear();
    /// Row `row` (0 is the newest); an empty row when out of range.
    ProbeRow row(int row) const;
    /// "yes", "no" or "stale": connection reuse as curl's counters saw it.
    static QString reusedText(const ProbeResult &result);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    QVector<ProbeRow> m_rows; ///< newest first
};

} // namespace opsdeck::probes
