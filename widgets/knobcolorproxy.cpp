#include "knobcolorproxy.h"

#include "knobtablemodel.h"

#include <QBrush>
#include <QColor>

using opsdeck::knobs::KnobTableModel;

QVariant KnobColorProxy::data(const QModelIndex &index, int role) const
{
    if (role == Qt::ForegroundRole) {
        if (index.column() == KnobTableModel::Drift &&
            index.data(KnobTableModel::DriftedRole).toBool())
            return QBrush(QColor(0xb7, 0x1c, 0x1c));
        if (index.column() == KnobTableModel::Name &&
            index.data(KnobTableModel::WarnedRole).toBool())
            return QBrush(QColor(0xb2, 0x6a, 0x00));
    }
    return QIdentityProxyModel::data(index, role);
}
