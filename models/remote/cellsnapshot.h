#pragma once

#include <QAbstractItemModel>
#include <QList>
#include <QVariant>
#include <QVector>
#include <optional>
#include <utility>

namespace opsdeck::remote {

/// What a table model shows, cell by cell for the given roles, taken before
/// an update so that the model can signal only the smallest rectangle that
/// changed, with those roles (as KDE libksysguard's SensorDataModel does),
/// instead of a reset or whole rows on every poll. Only for updates that keep
/// the row and column counts. Thread: the model's.
class CellSnapshot
{
public:
    CellSnapshot(const QAbstractItemModel &model, QList<int> roles);

    /// The top-left and bottom-right cells that differ from the snapshot in
    /// `model` now; nullopt when nothing shown changed.
    std::optional<std::pair<QModelIndex, QModelIndex>>
    changedIn(const QAbstractItemModel &model) const;
    const QList<int> &roles() const { return m_roles; }

private:
    QList<int> m_roles;
    int m_rows;
    int m_columns;
    QVector<QVariant> m_values; ///< row by row, column by column, role by role
};

} // namespace opsdeck::remote
