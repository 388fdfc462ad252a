#include "hoststable.h"

#include "hostconnections.h"

#include <QHeaderView>
#include <algorithm>

using opsdeck::remote::SshConnectionState;

namespace {
enum Column
{
    NameColumn,
    ReachColumn,
    StateColumn,
    ColumnCount
};
}

HostsTable::HostsTable(opsdeck::hosts::HostConnections *hosts, QWidget *parent)
    : QTableWidget(0, ColumnCount, parent), m_hosts(hosts)
{
    setHorizontalHeaderLabels(
        {QStringLiteral("Host"), QStringLiteral("Reached as"), QStringLiteral("Connection")});
    horizontalHeader()->setSectionResizeMode(NameColumn, QHeaderView::ResizeToContents);
    horizontalHeader()->setSectionResizeMode(ReachColumn, QHeaderView::ResizeToContents);
    horizontalHeader()->setStretchLastSection(true);
    // Short names ("local") must not squeeze their headers against each other.
    horizontalHeader()->setMinimumSectionSize(
        fontMetrics().horizontalAdvance(QStringLiteral("Reached as")) + 32);
    verticalHeader()->hide();
    setSelectionBehavior(QAbstractItemView::SelectRows);
    setSelectionMode(QAbstractItemView::SingleSelection);
    setEditTriggers(QAbstractItemView::NoEditTriggers);
    setWordWrap(false);
    connect(m_hosts, &opsdeck::hosts::HostConnections::hostsChanged, this, &HostsTable::rebuild);
    connect(m_hosts, &opsdeck::hosts::HostConnections::stateChanged, this,
            [this](const QString &host) { refresh(host); });
    connect(this, &QTableWidget::currentCellChanged, this, [this](int row) {
        if (row >= 0)
            Q_EMIT hostSelected(item(row, NameColumn)->text());
    });
    rebuild();
}

QSize HostsTable::sizeHint() const
{
    const int rows = std::clamp(rowCount(), 1, 6);
    const int rowHeight = verticalHeader()->defaultSectionSize();
    return {QTableWidget::sizeHint().width(),
            horizontalHeader()->sizeHint().height() + rows * rowHeight + 2 * frameWidth()};
}

QString HostsTable::currentHost() const
{
    const int row = currentRow();
    return row >= 0 ? item(row, NameColumn)->text() : QString();
}

void HostsTable::rebuild()
{
    const QString previous = currentHost();
    const QStringList names = m_hosts->hostNames();
    setRowCount(static_cast<int>(names.size()));
    for (int row = 0; row < names.size(); ++row) {
        setItem(row, NameColumn, new QTableWidgetItem(names[row]));
        setItem(row, ReachColumn, new QTableWidgetItem(m_hosts->reachedAs(names[row])));
        setItem(row, StateColumn, new QTableWidgetItem);
        refresh(names[row]);
    }
    const qsizetype keep = names.indexOf(previous);
    if (!names.isEmpty())
        setCurrentCell(keep >= 0 ? static_cast<int>(keep) : 0, NameColumn);
}

void HostsTable::refresh(const QString &host)
{
    const QList<QTableWidgetItem *> found = findItems(host, Qt::MatchExactly);
    for (QTableWidgetItem *name : found) {
        if (name->column() != NameColumn)
            continue;
        QTableWidgetItem *state = item(name->row(), StateColumn);
        const QString text = m_hosts->describe(host);
        // One line in the cell; the whole reason (several lines) in the tooltip.
        state->setText(text.section(u'\n', 0, 0));
        state->setToolTip(text);
        const auto phase = m_hosts->state(host).phase;
        QColor color = palette().color(QPalette::Text);
        if (phase == SshConnectionState::Phase::Failed)
            color = QColor(0xc6, 0x28, 0x28);
        else if (phase == SshConnectionState::Phase::Connected)
            color = QColor(0x2e, 0x7d, 0x32);
        state->setForeground(color);
    }
}
