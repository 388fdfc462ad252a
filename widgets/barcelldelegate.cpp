#include "barcelldelegate.h"

#include <QApplication>
#include <QPainter>
#include <QStyleOptionProgressBar>

BarCellDelegate::BarCellDelegate(int fractionRole, int warningRole, QObject *parent)
    : QStyledItemDelegate(parent), m_fractionRole(fractionRole), m_warningRole(warningRole)
{
}

void BarCellDelegate::paint(QPainter *painter, const QStyleOptionViewItem &option,
                            const QModelIndex &index) const
{
    const QVariant fraction = index.data(m_fractionRole);
    if (!fraction.isValid()) {
        QStyleOptionViewItem copy(option);
        if (index.data(m_warningRole).toBool()) {
            copy.palette.setColor(QPalette::Text, warningColor());
            copy.palette.setColor(QPalette::HighlightedText, warningColor().lighter(180));
        }
        QStyledItemDelegate::paint(painter, copy, index);
        return;
    }
    QStyleOptionProgressBar bar;
    bar.initFrom(option.widget);
    bar.rect = option.rect.adjusted(3, 3, -3, -3);
    bar.minimum = 0;
    bar.maximum = 1000;
    bar.progress = static_cast<int>(std::clamp(fraction.toDouble(), 0.0, 1.0) * 1000);
    bar.text = index.data(Qt::DisplayRole).toString();
    bar.textVisible = true;
    bar.textAlignment = Qt::AlignCenter;
    bar.state |= QStyle::State_Horizontal;
    QStyle *style = option.widget ? option.widget->style() : QApplication::style();
    style->drawControl(QStyle::CE_ProgressBar, &bar, painter, option.widget);
}
