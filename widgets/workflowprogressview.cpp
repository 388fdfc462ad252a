#include "workflowprogressview.h"

#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QTimer>
#include <QTreeWidget>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;
using opsdeck::workflows::WorkflowPlan;
using opsdeck::workflows::WorkflowRunner;

namespace {

enum Column
{
    Number,
    Title,
    Host,
    State,
    Elapsed
};

QString seconds(qint64 ms)
{
    return u"%1 s"_s.arg(double(ms) / 1000.0, 0, 'f', 1);
}

} // namespace

WorkflowProgressView::WorkflowProgressView(QWidget *parent)
    : QWidget(parent), m_title(new QLabel), m_steps(new QTreeWidget), m_output(new QPlainTextEdit),
      m_result(new QLabel), m_cancel(new QPushButton(u"Cancel"_s)),
      m_rollback(new QPushButton(u"Roll back…"_s)), m_ticker(new QTimer(this))
{
    m_steps->setColumnCount(5);
    m_steps->setHeaderLabels({u"#"_s, u"Step"_s, u"Host"_s, u"State"_s, u"Time"_s});
    m_steps->setRootIsDecorated(false);
    m_steps->setUniformRowHeights(true);
    m_steps->header()->setStretchLastSection(false);
    m_steps->header()->setSectionResizeMode(Title, QHeaderView::Stretch);
    for (int column : {Number, Host, State, Elapsed})
        m_steps->header()->setSectionResizeMode(column, QHeaderView::ResizeToContents);
    m_output->setReadOnly(true);
    m_output->setMaximumBlockCount(5000);
    m_output->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_output->setPlaceholderText(u"the steps' output appears here"_s);
    m_result->setWordWrap(true);
    m_result->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_result->setObjectName(u"workflowResult"_s);
    // The outcome, the journal and the audit, and what to do next: never clipped.
    m_result->setMinimumHeight(m_result->fontMetrics().lineSpacing() * 4 + 4);
    m_result->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    m_rollback->hide();
    m_rollback->setToolTip(u"Plan restore-knob from the backups this workflow made, then the "
                           "restart it needs: shown and confirmed like any workflow"_s);

    auto *buttons = new QHBoxLayout;
    buttons->addStretch(1);
    buttons->addWidget(m_rollback);
    buttons->addWidget(m_cancel);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_title);
    layout->addWidget(m_steps, 3);
    layout->addWidget(m_output, 2);
    layout->addWidget(m_result);
    layout->addLayout(buttons);

    connect(m_cancel, &QPushButton::clicked, this, &WorkflowProgressView::cancelRequested);
    connect(m_rollback, &QPushButton::clicked, this, &WorkflowProgressView::rollbackRequested);
    connect(m_ticker, &QTimer::timeout, this, &WorkflowProgressView::tick);
}

void WorkflowProgressView::begin(const QString &id, const WorkflowPlan &plan, int from)
{
    m_id = id;
    m_steps->clear();
    m_items.clear();
    m_running.clear();
    m_output->clear();
    m_title->setText(
        u"<b>%1</b> of %2 — workflow %3"_s.arg(opsdeck::workflows::workflowKindName(plan.kind),
                                               plan.confirmationTarget().toHtmlEscaped(), id));
    for (const opsdeck::workflows::WorkflowStep *step : plan.leaves()) {
        auto *item = new QTreeWidgetItem(m_steps);
        item->setText(Number, QString::number(step->n));
        item->setText(Title, step->title);
        item->setToolTip(Title, step->commands.join(u'\n'));
        item->setText(Host, step->host);
        item->setText(State, step->n < from ? u"done before"_s : u"waiting"_s);
        m_items.insert(step->n, item);
    }
    m_result->setText(u"Running …"_s);
    m_cancel->setText(u"Cancel"_s);
    m_cancel->setEnabled(true);
    m_rollback->hide();
    m_ticker->start(500);
}

void WorkflowProgressView::stepStarted(int n, const QString &title)
{
    m_running[n].start();
    if (QTreeWidgetItem *item = m_items.value(n)) {
        item->setText(State, u"running"_s);
        item->setForeground(State, QColor(0x15, 0x65, 0xc0));
        m_steps->scrollToItem(item);
    }
    m_output->appendPlainText(u"%1. %2"_s.arg(n).arg(title));
}

void WorkflowProgressView::stepOutput(int n, const QString &line)
{
    m_output->appendPlainText(u"   %1| %2"_s.arg(n).arg(line));
}

void WorkflowProgressView::stepFinished(int n, bool ok, const QString &detail, qint64 ms)
{
    m_running.remove(n);
    if (QTreeWidgetItem *item = m_items.value(n)) {
        item->setText(State, ok ? u"ok"_s : u"FAILED"_s);
        item->setForeground(State, ok ? QColor(0x2e, 0x7d, 0x32) : QColor(0xc6, 0x28, 0x28));
        item->setText(Elapsed, seconds(ms));
        item->setToolTip(State, detail);
    }
    m_output->appendPlainText(
        u"%1. %2 in %3: %4"_s.arg(n).arg(ok ? u"ok"_s : u"FAILED"_s, seconds(ms), detail));
}

void WorkflowProgressView::finish(WorkflowRunner::Outcome outcome, const QString &detail,
                                  const QString &auditPath, bool rollback)
{
    m_ticker->stop();
    for (auto it = m_items.cbegin(); it != m_items.cend(); ++it)
        if (it.value()->text(State) == u"waiting")
            it.value()->setText(State, u"not run"_s);
    const bool ok = outcome == WorkflowRunner::Outcome::Succeeded;
    const QString said = WorkflowRunner::outcomeName(outcome);
    QString next;
    if (!ok)
        next = rollback
                   ? u" A serve script was edited: Roll back restores it from its backup and "
                     "restarts what needs it."_s
                   : u" Nothing was rolled back. `opsdeck-cli workflow resume --id %1` runs it "
                     "again from the step that did not end well; `workflow abandon --id %1` "
                     "ends it."_s.arg(m_id);
    m_result->setText(
        u"<b style=\"color:%1\">Workflow %2</b>: %3<br>Journal %4; every step is in "
        "the audit log %5 (Audit tab, filter %4) and its markers on the charts.%6"_s.arg(
            ok ? u"#2e7d32"_s : u"#c62828"_s, said, detail.toHtmlEscaped(), m_id,
            auditPath.toHtmlEscaped(), next.toHtmlEscaped()));
    m_cancel->setText(u"Close"_s);
    m_rollback->setVisible(!ok && rollback);
}

QString WorkflowProgressView::stateOf(int n) const
{
    const QTreeWidgetItem *item = m_items.value(n);
    return item ? item->text(State) : QString();
}

void WorkflowProgressView::tick()
{
    for (auto it = m_running.cbegin(); it != m_running.cend(); ++it)
        if (QTreeWidgetItem *item = m_items.value(it.key()))
            item->setText(Elapsed, seconds(it.value().elapsed()));
}
