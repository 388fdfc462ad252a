#pragma once

#include "auditentry.h"

#include <QAbstractTableModel>
#include <QDateTime>
#include <QStringList>
#include <QVector>
#include <optional>

namespace opsdeck::history {

/// The Audit view's table: the audit log's entries, newest first, filtered
/// by text (any column, case-insensitive), kind and a time (entries at or
/// after it). Columns: time (local), user, kind, host, action, workflow,
/// detail; a row's tooltip is its whole detail. shown() is what an export
/// writes: exactly the rows in view. Thread: GUI (a view's model).
class AuditTableModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column
    {
        Time,
        User,
        Kind,
        Host,
        Action,
        Workflow,
        Detail,
        ColumnCount
    };

    explicit AuditTableModel(QObject *parent = nullptr);

    /// Every entry of the log, in log order (AuditLog::read()).
    void setEntries(QVector<AuditEntry> entries);
    void setTextFilter(const QString &text);
    /// "" shows every kind.
    void setKindFilter(const QString &kind);
    void setSince(const std::optional<QDateTime> &since);

    /// The kinds present in the log, sorted (the view's kind choice).
    QStringList kinds() const;
    /// The entries in view, in log order (oldest first).
    QVector<AuditEntry> shown() const;
    int totalCount() const { return static_cast<int>(m_all.size()); }
    const AuditEntry &entry(int row) const { return m_all.at(m_rows.at(row)); }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    void refilter();
    bool matches(const AuditEntry &entry) const;

    QVector<AuditEntry> m_all;
    QVector<int> m_rows; ///< indexes into m_all, newest first
    QString m_text;
    QString m_kind;
    std::optional<QDateTime> m_since;
};

} // namespace opsdeck::history
