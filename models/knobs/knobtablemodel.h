#pragma once

#include "knobdrift.h"
#include "servescript.h"

#include <QAbstractTableModel>
#include <QHash>

namespace opsdeck::knobs {

/// The knobs of one serve script for the Knobs tab: one row per knob as bash
/// ends with it (ServeScript::knobs()), with its value, line, kind and drift
/// against the running process; the catalog's help and the script's warnings
/// on that line as the tooltip. Thread: GUI.
class KnobTableModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column
    {
        Name,
        Value,
        Line,
        Kind,
        Drift,
        ColumnCount
    };
    /// The knob's name (on any column).
    static constexpr int NameRole = Qt::UserRole;
    /// True when the running process differs from the script (a restart is needed).
    static constexpr int DriftedRole = Qt::UserRole + 1;
    /// True when the script has a warning on the knob's line.
    static constexpr int WarnedRole = Qt::UserRole + 2;

    using QAbstractTableModel::QAbstractTableModel;

    /// A newly read script: rows replaced; drift cleared until setDrift().
    void setScript(const ServeScript &script);
    /// The process compared: `compared` false (no process, or unread) shows
    /// `why` in the drift column.
    void setDrift(const QVector<KnobDrift> &drift, bool compared, const QString &why);
    void clear();

    const QVector<Knob> &knobs() const { return m_knobs; }
    /// Knobs whose running value differs from the script (a restart is needed).
    int driftCount() const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    QVector<Knob> m_knobs;
    QHash<int, QStringList> m_warnings; ///< by line
    QHash<QString, KnobDrift> m_drift;
    bool m_compared = false;
    QString m_why;
};

} // namespace opsdeck::knobs
