#pragma once

#include <QColor>
#include <QStyledItemDelegate>

/// Paints a cell as a bar when the model gives a fill for it (a double 0..1
/// under `fractionRole`; the DisplayRole text is drawn on the bar), and in a
/// warning colour when `warningRole` is true; else as usual. Used by HostPanel
/// for GPU utilization and memory. Thread: GUI.
class BarCellDelegate : public QStyledItemDelegate
{
    Q_OBJECT
public:
    BarCellDelegate(int fractionRole, int warningRole, QObject *parent = nullptr);

    void paint(QPainter *painter, const QStyleOptionViewItem &option,
               const QModelIndex &index) const override;

    /// The colour warnings are drawn in (dark red, readable on light and dark rows).
    static QColor warningColor() { return QColor(0xc6, 0x28, 0x28); }

private:
    int m_fractionRole;
    int m_warningRole;
};
