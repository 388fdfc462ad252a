#include "hostpanel.h"

#include "barcelldelegate.h"
#include "gputablemodel.h"
#include "hostsignals.h"
#include "serviceprocesstablemodel.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QTableView>
#include <QVBoxLayout>

using opsdeck::remote::GpuTableModel;
using opsdeck::remote::HostSignalsSample;
using opsdeck::remote::ServiceProcessTableModel;

namespace {

QTableView *makeTable(QAbstractItemModel *model, QWidget *parent)
{
    auto *table = new QTableView(parent);
    table->setModel(model);
    table->setItemDelegate(new BarCellDelegate(GpuTableModel::FractionRole,
                                               ServiceProcessTableModel::WarningRole, table));
    table->verticalHeader()->setVisible(false);
    // resizeRowsToContents() may grow rows for wrapped notes, never shrink them below normal.
    table->verticalHeader()->setMinimumSectionSize(table->verticalHeader()->defaultSectionSize());
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->setSelectionBehavior(QAbstractItemView::SelectRows);
    table->horizontalHeader()->setStretchLastSection(true);
    table->setWordWrap(true);
    return table;
}

QLabel *sectionLabel(const QString &text, QWidget *parent)
{
    auto *label = new QLabel(text, parent);
    QFont font = label->font();
    font.setBold(true);
    label->setFont(font);
    return label;
}

void setWidths(QTableView *table, std::initializer_list<int> widths)
{
    int column = 0;
    for (int width : widths)
        table->setColumnWidth(column++, width);
}

} // namespace

HostPanel::HostPanel(QWidget *parent)
    : QWidget(parent), m_gpuModel(new GpuTableModel(this)),
      m_processModel(new ServiceProcessTableModel(this)), m_title(new QLabel(tr("Host"), this)),
      m_updated(new QLabel(tr("not sampled yet"), this)), m_error(new QLabel(this)),
      m_gpuStatus(new QLabel(this)), m_gpuTable(makeTable(m_gpuModel, this)),
      m_processTable(makeTable(m_processModel, this))
{
    QFont titleFont = m_title->font();
    titleFont.setBold(true);
    titleFont.setPointSizeF(titleFont.pointSizeF() * 1.2);
    m_title->setFont(titleFont);
    m_error->setWordWrap(true);
    m_error->setVisible(false);
    QPalette errorPalette = m_error->palette();
    errorPalette.setColor(QPalette::WindowText, BarCellDelegate::warningColor());
    m_error->setPalette(errorPalette);
    m_gpuStatus->setWordWrap(true);
    m_gpuStatus->setFrameShape(QFrame::StyledPanel);
    m_gpuStatus->setMargin(8);
    m_gpuStatus->setVisible(false);
    setWidths(m_gpuTable, {44, 220, 130, 190, 70});
    setWidths(m_processTable, {90, 70, 150, 110, 90, 180});
    m_gpuTable->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    fitGpuTableHeight();
    // Wrapped notes need their rows re-measured whenever the rows change.
    connect(m_processModel, &QAbstractItemModel::modelReset, m_processTable,
            &QTableView::resizeRowsToContents);

    auto *header = new QHBoxLayout;
    header->addWidget(m_title);
    header->addStretch();
    header->addWidget(m_updated);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(header);
    layout->addWidget(m_error);
    layout->addWidget(sectionLabel(tr("GPUs"), this));
    layout->addWidget(m_gpuStatus);
    layout->addWidget(m_gpuTable);
    layout->addWidget(sectionLabel(tr("Serving processes"), this));
    layout->addWidget(m_processTable, 1);
}

void HostPanel::setHostSignals(opsdeck::remote::HostSignals *hostSignals)
{
    if (m_hostSignals)
        disconnect(m_hostSignals, nullptr, this, nullptr);
    m_hostSignals = hostSignals;
    if (!hostSignals)
        return;
    m_title->setText(tr("Host %1").arg(hostSignals->hostName()));
    connect(hostSignals, &opsdeck::remote::HostSignals::sampled, this, &HostPanel::showSample);
    if (hostSignals->latest().sampledAt.isValid())
        showSample(hostSignals->latest());
}

void HostPanel::showSample(const HostSignalsSample &sample)
{
    m_title->setText(tr("Host %1").arg(sample.host));
    m_updated->setText(tr("updated %1 (poll took %2 ms)")
                           .arg(sample.sampledAt.toLocalTime().toString(QStringLiteral("HH:mm:ss")))
                           .arg(sample.elapsedMs));
    QStringList problems;
    if (!sample.error.isEmpty())
        problems << sample.error;
    problems << sample.gpuWarnings;
    m_error->setText(problems.join(QLatin1Char('\n')));
    m_error->setVisible(!problems.isEmpty());

    const QString status = sample.gpuStatusText();
    m_gpuStatus->setText(status);
    m_gpuStatus->setVisible(!status.isEmpty());
    m_gpuTable->setVisible(status.isEmpty());
    m_gpuModel->setGpus(sample.gpus);
    fitGpuTableHeight();
    m_processModel->setServices(sample.services);
}

void HostPanel::fitGpuTableHeight()
{
    // As tall as its rows (1 to 8; a 16-GPU host scrolls), so the processes
    // get the rest of the panel.
    const int rows = std::clamp(m_gpuModel->rowCount(), 1, 8);
    m_gpuTable->setFixedHeight(m_gpuTable->horizontalHeader()->sizeHint().height() +
                               rows * m_gpuTable->verticalHeader()->defaultSectionSize() +
                               2 * m_gpuTable->frameWidth());
}

QString HostPanel::gpuStatusText() const
{
    return m_gpuStatus->isVisibleTo(this) ? m_gpuStatus->text() : QString();
}

QString HostPanel::lastUpdateText() const
{
    return m_updated->text();
}

QString HostPanel::errorText() const
{
    return m_error->isVisibleTo(this) ? m_error->text() : QString();
}
