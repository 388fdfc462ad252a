#include "cellsnapshot.h"

#include <algorithm>

namespace opsdeck::remote {

CellSnapshot::CellSnapshot(const QAbstractItemModel &model, QList<int> roles)
    : m_roles(std::move(roles)), m_rows(model.rowCount()), m_columns(model.columnCount())
{
    m_values.reserve(qsizetype(m_rows) * m_columns * m_roles.size());
    for (int row = 0; row < m_rows; ++row)
        for (int column = 0; column < m_columns; ++column)
            for (const int role : std::as_const(m_roles))
                m_values << model.data(model.index(row, column), role);
}

std::optional<std::pair<QModelIndex, QModelIndex>>
CellSnapshot::changedIn(const QAbstractItemModel &model) const
{
    int top = m_rows, bottom = -1, left = m_columns, right = -1;
    qsizetype at = 0;
    for (int row = 0; row < m_rows; ++row)
        for (int column = 0; column < m_columns; ++column) {
            bool same = true;
            for (const int role : m_roles)
                same = m_values[at++] == model.data(model.index(row, column), role) && same;
            if (same)
                continue;
            top = std::min(top, row);
            bottom = std::max(bottom, row);
            left = std::min(left, column);
            right = std::max(right, column);
        }
    if (bottom < 0)
        return std::nullopt;
    return std::pair{model.index(top, left), model.index(bottom, right)};
}

} // namespace opsdeck::remote
