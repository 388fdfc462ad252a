#include "probelabpanel.h"

#include "probecheckspanel.h"
#include "probelab.h"
#include "probelatencypanel.h"
#include "proberounds.h"
#include "timeserieschart.h"

#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QPushButton>
#include <QScrollArea>
#include <QSpinBox>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>
#include <algorithm>

using opsdeck::probes::ProbeLab;

ProbeLabPanel::ProbeLabPanel(ProbeLab *lab, opsdeck::history::HotWindow *window, QWidget *parent)
    : QWidget(parent), m_lab(lab), m_window(window), m_clusterBox(new QComboBox),
      m_roundsBox(new QSpinBox), m_idleGapBox(new QDoubleSpinBox),
      m_startButton(new QPushButton(QStringLiteral("Start probing"))),
      m_stopButton(new QPushButton(QStringLiteral("Stop"))),
      m_copyButton(new QPushButton(QStringLiteral("Copy as curl"))), m_status(new QLabel),
      m_chartGrid(new QGridLayout), m_chartScroll(new QScrollArea),
      m_leftSplitter(new QSplitter(Qt::Vertical)), m_table(new QTableView),
      m_checks(new ProbeChecksPanel(lab))
{
    const ProbeLab::Settings defaults;
    m_roundsBox->setRange(1, opsdeck::probes::ProbeRounds::kMaxRounds);
    m_roundsBox->setValue(defaults.rounds);
    m_roundsBox->setToolTip(QStringLiteral("Rounds of one fresh and one reused probe per path; "
                                           "a stall is declared after 3 stalling rounds in a row"));
    m_idleGapBox->setRange(0, opsdeck::probes::ProbeRounds::kMaxIdleGapS);
    m_idleGapBox->setDecimals(1);
    m_idleGapBox->setSuffix(QStringLiteral(" s"));
    m_idleGapBox->setValue(defaults.idleGapS);
    m_idleGapBox->setToolTip(QStringLiteral(
        "How long each kept-alive connection idles before its reused probe, like an agentic "
        "client thinking between calls"));
    m_clusterBox->setMinimumContentsLength(12);
    m_stopButton->setEnabled(false);
    m_status->setTextFormat(Qt::PlainText);

    auto *controls = new QHBoxLayout;
    controls->addWidget(new QLabel(QStringLiteral("Cluster")));
    controls->addWidget(m_clusterBox);
    controls->addSpacing(12);
    controls->addWidget(new QLabel(QStringLiteral("Rounds")));
    controls->addWidget(m_roundsBox);
    controls->addWidget(new QLabel(QStringLiteral("Idle gap")));
    controls->addWidget(m_idleGapBox);
    controls->addWidget(m_startButton);
    controls->addWidget(m_stopButton);
    controls->addSpacing(12);
    controls->addWidget(m_status, 1);

    // Charts above the table: a stall is seen in the charts first, then
    // read row by row in the table.
    auto *charts = new QWidget;
    m_chartGrid->setContentsMargins(0, 0, 0, 0);
    m_chartGrid->setSpacing(10);
    charts->setLayout(m_chartGrid);
    m_chartScroll->setWidget(charts);
    m_chartScroll->setWidgetResizable(true);
    m_chartScroll->setFrameShape(QFrame::NoFrame);
    m_chartScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);

    m_table->setModel(m_lab->table());
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setAlternatingRowColors(true);
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 6);
    // Widths from sample texts, not from the rows: rows arrive one by one,
    // and columns that jump as they come are hard to read.
    using Table = opsdeck::probes::ProbeTableModel;
    QHeaderView *header = m_table->horizontalHeader();
    header->setStretchLastSection(true);
    const QFontMetrics metrics = m_table->fontMetrics();
    const auto widthOf = [&](const char *sample, int column) {
        const QString title = m_lab->table()->headerData(column, Qt::Horizontal).toString();
        return std::max(metrics.horizontalAdvance(QString::fromLatin1(sample)),
                        metrics.horizontalAdvance(title)) +
               16;
    };
    const std::pair<int, const char *> samples[] = {
        {Table::Time, "00:00:00.000"}, {Table::Path, "router direct"}, {Table::Mode, "reused"},
        {Table::Connection, "65535"},  {Table::Reused, "stale"},       {Table::Dns, "99.9"},
        {Table::Connect, "999.9"},     {Table::Tls, "99.9"},           {Table::Ttfb, "99999"},
        {Table::Total, "99999"},       {Table::Ttft, "99999"},         {Table::Status, "timeout"}};
    for (const auto &[column, sample] : samples)
        header->resizeSection(column, widthOf(sample, column));
    m_table->setContextMenuPolicy(Qt::CustomContextMenu);
    m_copyButton->setToolTip(QStringLiteral(
        "A curl command that sends the selected probe again and prints the same timings; "
        "an API key is read from $OPSDECK_API_KEY, never written out"));
    auto *tableTitle = new QLabel(QStringLiteral("Recent probes, newest first (times in ms)"));
    QFont bold = tableTitle->font();
    bold.setBold(true);
    tableTitle->setFont(bold);
    auto *tableHeader = new QHBoxLayout;
    tableHeader->addWidget(tableTitle);
    tableHeader->addStretch();
    tableHeader->addWidget(m_copyButton);
    auto *tableBox = new QWidget;
    auto *tableLayout = new QVBoxLayout(tableBox);
    tableLayout->setContentsMargins(0, 0, 0, 0);
    tableLayout->addLayout(tableHeader);
    tableLayout->addWidget(m_table, 1);

    QSplitter *left = m_leftSplitter;
    left->addWidget(m_chartScroll);
    left->addWidget(tableBox);
    left->setStretchFactor(0, 1);
    left->setStretchFactor(1, 1);
    left->setChildrenCollapsible(false);

    auto *main = new QSplitter(Qt::Horizontal);
    main->addWidget(left);
    main->addWidget(m_checks);
    main->setStretchFactor(0, 3);
    main->setStretchFactor(1, 1);
    main->setChildrenCollapsible(false);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(controls);
    layout->addWidget(main, 1);

    // Once a person moved the divider, the charts keep the height they chose.
    connect(m_leftSplitter, &QSplitter::splitterMoved, this, [this] { m_userSplit = true; });
    connect(m_startButton, &QPushButton::clicked, this, &ProbeLabPanel::start);
    connect(m_stopButton, &QPushButton::clicked, m_lab, &ProbeLab::stop);
    connect(m_copyButton, &QPushButton::clicked, this, &ProbeLabPanel::copySelectedAsCurl);
    connect(m_table, &QWidget::customContextMenuRequested, this, &ProbeLabPanel::showTableMenu);
    connect(m_clusterBox, &QComboBox::activated, this, [this](int index) {
        m_lab->setCluster(m_clusterBox->itemText(index));
        rebuildCharts();
        m_checks->showCluster();
    });
    connect(m_lab, &ProbeLab::clustersChanged, this, &ProbeLabPanel::rebuildClusters);
    connect(m_lab, &ProbeLab::probingChanged, this, &ProbeLabPanel::showProbing);
    connect(m_lab, &ProbeLab::roundFinished, this, [this](int round, int rounds) {
        m_status->setText(QStringLiteral("round %1 of %2 done · %3 probes in the table")
                              .arg(round)
                              .arg(rounds)
                              .arg(m_lab->table()->rowCount()));
    });
    connect(m_lab, &ProbeLab::problemReported, this,
            [this](const QString &text) { m_status->setText(text); });
    rebuildClusters();
}

QString ProbeLabPanel::statusText() const
{
    return m_status->text();
}

void ProbeLabPanel::rebuildClusters()
{
    m_clusterBox->clear();
    m_clusterBox->addItems(m_lab->clusterNames());
    m_clusterBox->setCurrentText(m_lab->cluster());
    m_startButton->setEnabled(!m_lab->isProbing() && !m_lab->cluster().isEmpty());
    rebuildCharts();
    m_checks->showCluster();
}

void ProbeLabPanel::rebuildCharts()
{
    qDeleteAll(m_panels);
    m_panels.clear();
    const auto &paths = m_lab->paths();
    const int columns = paths.size() > 1 ? 2 : 1;
    for (int i = 0; i < paths.size(); ++i) {
        auto *panel = new ProbeLatencyPanel(paths[i], m_window);
        panel->setMarkers(m_markers);
        m_chartGrid->addWidget(panel, i / columns, i % columns);
        m_panels << panel;
    }
    m_columns = 0;
    layoutCharts();
    if (m_lab->isProbing())
        return;
    m_status->setText(paths.isEmpty() ? QStringLiteral("no cluster in the inventory to probe")
                                      : QStringLiteral("%1 paths into %2: press Start probing")
                                            .arg(paths.size())
                                            .arg(m_lab->cluster()));
}

void ProbeLabPanel::layoutCharts()
{
    if (m_panels.isEmpty())
        return;
    // All paths side by side where they fit (a wide screen: the four charts
    // in one row, the table tall); two rows of two on a laptop.
    // One row of every path where each chart keeps ~300 px (its legend
    // still reads); else rows of charts at least ~400 px wide, balanced (four
    // paths in two rows of two rather than three and one).
    const int count = int(m_panels.size());
    const int width = m_chartScroll->viewport()->width();
    int columns = count;
    if (width < count * 300) {
        const int fit = std::clamp(width / 400, 1, count);
        const int rows = (count + fit - 1) / fit;
        columns = (count + rows - 1) / rows;
    }
    if (columns != m_columns) {
        m_columns = columns;
        for (ProbeLatencyPanel *panel : std::as_const(m_panels))
            m_chartGrid->removeWidget(panel);
        for (int c = 0; c < 4; ++c)
            m_chartGrid->setColumnStretch(c, c < columns ? 1 : 0);
        for (int i = 0; i < count; ++i) {
            m_chartGrid->addWidget(m_panels[i], i / columns, i % columns);
            m_panels[i]->chart()->setCompactLegend(columns > 2);
        }
        m_sizedForHeight = 0;
    }
    const int total = m_leftSplitter->height();
    if (!m_userSplit && total != m_sizedForHeight && total > 200) {
        // Whole rows of charts only (the rest scroll), taking up to two thirds
        // of the height: the table's rows are the evidence.
        const int rows = (int(m_panels.size()) + columns - 1) / columns;
        const int spacing = m_chartGrid->spacing();
        // The height the rows need at this width: a stats line that wraps
        // (heightForWidth) is taller than the minimum hint says, and a row
        // cut at the bottom loses its time axis.
        QWidget *inner = m_chartScroll->widget();
        int innerHeight = inner->minimumSizeHint().height();
        if (inner->hasHeightForWidth())
            innerHeight =
                std::max(innerHeight, inner->heightForWidth(m_chartScroll->viewport()->width()));
        const int rowHeight = (innerHeight + spacing) / rows;
        const int shownRows = std::clamp(total * 2 / 3 / rowHeight, 1, rows);
        // + a little: the grid's rows come out a few px taller than the hint.
        int charts = shownRows * rowHeight - spacing + 16;
        if (shownRows == rows) // all fit: taller charts, up to half the height
            charts = std::max(charts, total / 2);
        charts = std::min(charts, total - 120);
        m_leftSplitter->setSizes({charts, total - charts});
        m_sizedForHeight = total;
    }
}

void ProbeLabPanel::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    // After the splitters and the scroll area have their new sizes.
    QMetaObject::invokeMethod(this, &ProbeLabPanel::layoutCharts, Qt::QueuedConnection);
}

void ProbeLabPanel::setMarkers(const QVector<ChartMarker> &markers)
{
    m_markers = markers;
    for (ProbeLatencyPanel *panel : std::as_const(m_panels))
        panel->setMarkers(markers);
}

void ProbeLabPanel::start()
{
    ProbeLab::Settings settings;
    settings.rounds = m_roundsBox->value();
    settings.idleGapS = m_idleGapBox->value();
    if (m_lab->start(settings))
        m_status->setText(QStringLiteral("probing %1: looking up the model, warming up "
                                         "keep-alive connections …")
                              .arg(m_lab->cluster()));
}

void ProbeLabPanel::showProbing(bool probing)
{
    m_startButton->setEnabled(!probing && !m_lab->cluster().isEmpty());
    m_stopButton->setEnabled(probing);
    m_clusterBox->setEnabled(!probing);
    m_roundsBox->setEnabled(!probing);
    m_idleGapBox->setEnabled(!probing);
    if (!probing)
        m_status->setText(QStringLiteral("stopped after %1 of %2 rounds · %3 probes in the table")
                              .arg(m_lab->roundsDone())
                              .arg(m_lab->roundsPlanned())
                              .arg(m_lab->table()->rowCount()));
}

QString ProbeLabPanel::copySelectedAsCurl()
{
    const QModelIndexList selected = m_table->selectionModel()->selectedRows();
    const int row = selected.isEmpty() ? 0 : selected.first().row();
    const QString command = m_lab->curlCommand(row);
    if (!command.isEmpty())
        QApplication::clipboard()->setText(command);
    return command;
}

void ProbeLabPanel::showTableMenu(const QPoint &pos)
{
    const QModelIndex index = m_table->indexAt(pos);
    if (!index.isValid())
        return;
    m_table->selectRow(index.row());
    auto *menu = new QMenu(this);
    menu->setAttribute(Qt::WA_DeleteOnClose);
    menu->addAction(QStringLiteral("Copy as curl"), this, &ProbeLabPanel::copySelectedAsCurl);
    menu->popup(m_table->viewport()->mapToGlobal(pos));
}
