#include "knobstab.h"

#include "knobcolorproxy.h"
#include "knobeditdialog.h"
#include "serviceknobs.h"

#include <QComboBox>
#include <QDateTime>
#include <QFontDatabase>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

using namespace opsdeck;

KnobsTab::KnobsTab(knobs::ServiceKnobs *knobs, QWidget *parent)
    : QWidget(parent), m_knobs(knobs), m_service(new QComboBox), m_script(new QLabel),
      m_state(new QLabel), m_table(new QTableView), m_proxy(new KnobColorProxy(this)),
      m_edit(new QPushButton(QStringLiteral("Set value…"))),
      m_add(new QPushButton(QStringLiteral("Add knob…"))),
      m_comment(new QPushButton(QStringLiteral("Comment out…"))),
      m_remove(new QPushButton(QStringLiteral("Remove…"))), m_backups(new QComboBox),
      m_restore(new QPushButton(QStringLiteral("Restore…"))), m_since(new QLineEdit),
      m_changed(new QPlainTextEdit)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 6, 0, 0);
    auto *top = new QHBoxLayout;
    top->addWidget(new QLabel(QStringLiteral("Service")));
    m_service->setMinimumContentsLength(14);
    top->addWidget(m_service);
    m_script->setTextInteractionFlags(Qt::TextSelectableByMouse);
    top->addWidget(m_script, 1);
    auto *refresh = new QPushButton(QStringLiteral("Read again"));
    top->addWidget(refresh);
    layout->addLayout(top);
    m_state->setWordWrap(true);
    m_state->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_state);

    m_proxy->setSourceModel(m_knobs->model());
    m_table->setModel(m_proxy);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setWordWrap(false);
    // Names are long (SGLANG_DISAGGREGATION_BOOTSTRAP_TIMEOUT): never cut them.
    for (const int column : {knobs::KnobTableModel::Name, knobs::KnobTableModel::Value,
                             knobs::KnobTableModel::Line, knobs::KnobTableModel::Kind})
        m_table->horizontalHeader()->setSectionResizeMode(column, QHeaderView::ResizeToContents);
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 8);

    auto *actions = new QHBoxLayout;
    for (QPushButton *button : {m_edit, m_add, m_comment, m_remove})
        actions->addWidget(button);
    actions->addSpacing(16);
    actions->addWidget(new QLabel(QStringLiteral("Backups")));
    m_backups->setMinimumContentsLength(28);
    m_backups->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    actions->addWidget(m_backups, 1);
    actions->addWidget(m_restore);

    auto *knobsBox = new QWidget;
    auto *knobsLayout = new QVBoxLayout(knobsBox);
    knobsLayout->setContentsMargins(0, 0, 0, 0);
    knobsLayout->addWidget(m_table, 1);
    knobsLayout->addLayout(actions);

    auto *changedBox = new QGroupBox(QStringLiteral("What changed on this host since"));
    auto *changedLayout = new QVBoxLayout(changedBox);
    auto *sinceRow = new QHBoxLayout;
    m_since->setText(QStringLiteral("12:00"));
    m_since->setToolTip(QStringLiteral("HH:MM today (host time), 2h / 30m / 1d ago, or ISO 8601"));
    m_since->setMaximumWidth(220);
    auto *show = new QPushButton(QStringLiteral("Show"));
    sinceRow->addWidget(m_since);
    sinceRow->addWidget(show);
    sinceRow->addStretch(1);
    changedLayout->addLayout(sinceRow);
    m_changed->setReadOnly(true);
    m_changed->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_changed->setPlaceholderText(QStringLiteral(
        "Files under the host's watched folders changed since the time, and each serve "
        "script's knobs against its backup from then (one find -newermt on the host)."));
    changedLayout->addWidget(m_changed);

    auto *split = new QSplitter(Qt::Vertical);
    split->addWidget(knobsBox);
    split->addWidget(changedBox);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 1);
    layout->addWidget(split, 1);

    connect(m_service, &QComboBox::currentTextChanged, this, [this](const QString &name) {
        if (!name.isEmpty())
            m_knobs->select(name);
    });
    connect(refresh, &QPushButton::clicked, m_knobs, &knobs::ServiceKnobs::refresh);
    connect(m_knobs, &knobs::ServiceKnobs::loaded, this,
            [this](const QString &service, const QString &script) {
                const inventory::Service *s = m_knobs->selected();
                m_script->setText(QStringLiteral("%1 on %2").arg(script, s ? s->host : QString()));
                m_drifted = 0;
                m_driftProblem = QStringLiteral("reading the running process of %1…").arg(service);
                updateState();
            });
    connect(m_knobs, &knobs::ServiceKnobs::driftRead, this,
            [this](int drifted, const QString &problem) {
                m_drifted = drifted;
                m_driftProblem = problem;
                updateState();
            });
    connect(m_knobs, &knobs::ServiceKnobs::backupsChanged, this, [this] {
        m_backups->clear();
        for (const knobs::KnobFiles::Backup &backup : m_knobs->backups()) {
            const QString when = QDateTime::fromMSecsSinceEpoch(backup.modifiedMsecs)
                                     .toString(QStringLiteral("yyyy-MM-dd HH:mm"));
            m_backups->addItem(
                QStringLiteral("%1  %2 (%3, %4 knobs differ)")
                    .arg(when, backup.path.mid(backup.path.lastIndexOf(u'/') + 1),
                         backup.byOpsDeck ? QStringLiteral("OpsDeck") : QStringLiteral("by hand"))
                    .arg(backup.changes.size()),
                backup.path);
        }
        m_restore->setEnabled(m_backups->count() > 0);
        m_backups->setPlaceholderText(QStringLiteral("no backups beside the script"));
    });
    connect(m_knobs, &knobs::ServiceKnobs::problem, this, [this](const QString &text) {
        m_planning = false;
        if (!m_dialog)
            updateState(text);
    });
    connect(m_knobs, &knobs::ServiceKnobs::planned, this,
            [this](const knobs::KnobFiles::Plan &plan) {
                if (!m_planning)
                    return; // the edit dialog's own preview
                m_planning = false;
                openDialog(new KnobEditDialog(m_knobs, plan, this));
            });
    connect(m_knobs, &knobs::ServiceKnobs::changedSinceRead, this, &KnobsTab::showChanged);
    connect(m_knobs, &knobs::ServiceKnobs::inventoryChanged, this, &KnobsTab::reload);

    connect(m_edit, &QPushButton::clicked, this, [this] {
        const QString name = selectedKnob();
        if (name.isEmpty())
            return updateState(QStringLiteral("Choose a knob in the table first."));
        QString value;
        for (const knobs::Knob &knob : m_knobs->model()->knobs())
            if (knob.name == name)
                value = knob.value;
        openDialog(new KnobEditDialog(m_knobs, name, value, this));
    });
    connect(m_add, &QPushButton::clicked, this,
            [this] { openDialog(new KnobEditDialog(m_knobs, QString(), QString(), this)); });
    for (QPushButton *button : {m_comment, m_remove})
        connect(button, &QPushButton::clicked, this, [this, button] {
            const QString name = selectedKnob();
            if (name.isEmpty())
                return updateState(QStringLiteral("Choose a knob in the table first."));
            knobs::ScriptEdit edit;
            edit.name = name;
            edit.operation = button == m_comment ? knobs::ScriptEdit::Operation::Comment
                                                 : knobs::ScriptEdit::Operation::Unset;
            planThenShow([this, edit] { m_knobs->planEdit(edit); });
        });
    connect(m_restore, &QPushButton::clicked, this, [this] {
        const QString path = m_backups->currentData().toString();
        if (!path.isEmpty())
            planThenShow([this, path] { m_knobs->planRestore(path); });
    });
    connect(show, &QPushButton::clicked, this, [this] { m_knobs->changedSince(m_since->text()); });
    connect(m_since, &QLineEdit::returnPressed, this,
            [this] { m_knobs->changedSince(m_since->text()); });
    reload();
}

void KnobsTab::reload()
{
    const QSignalBlocker blocker(m_service);
    m_service->clear();
    m_service->addItems(m_knobs->services());
    m_script->setText(m_knobs->services().isEmpty()
                          ? QStringLiteral("No service of the inventory has a serve_script.")
                          : QString());
    m_backups->clear();
    m_changed->clear();
    m_drifted = 0;
    m_driftProblem.clear();
    updateState();
    if (m_service->count() > 0)
        m_knobs->select(m_service->currentText());
}

QString KnobsTab::selectedKnob() const
{
    const QModelIndexList rows = m_table->selectionModel()->selectedRows();
    return rows.isEmpty() ? QString()
                          : rows.first().data(knobs::KnobTableModel::NameRole).toString();
}

void KnobsTab::openDialog(KnobEditDialog *dialog)
{
    if (m_dialog)
        m_dialog->close();
    m_dialog = dialog;
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QObject::destroyed, this, [this, dialog] {
        if (m_dialog == dialog)
            m_dialog = nullptr;
    });
    dialog->open();
}

void KnobsTab::planThenShow(const std::function<void()> &plan)
{
    m_planning = true;
    plan();
}

void KnobsTab::showChanged(const knobs::ChangedSince &changed)
{
    QStringList lines;
    lines.append(QStringLiteral("since %1: %2 files changed")
                     .arg(QDateTime::fromMSecsSinceEpoch(changed.sinceMsecs)
                              .toString(QStringLiteral("yyyy-MM-dd HH:mm:ss")))
                     .arg(changed.total));
    for (const knobs::ChangedSince::File &file : changed.files)
        lines.append(QStringLiteral("  %1  %2  (%3 bytes)")
                         .arg(QDateTime::fromMSecsSinceEpoch(file.modifiedMsecs)
                                  .toString(QStringLiteral("yyyy-MM-dd HH:mm:ss")),
                              file.path)
                         .arg(file.size));
    if (changed.total > changed.files.size())
        lines.append(QStringLiteral("  ... and %1 more").arg(changed.total - changed.files.size()));
    for (const QString &folder : changed.missing)
        lines.append(
            QStringLiteral("  %1 is not a folder on the host: nothing watched in it").arg(folder));
    // The selected service's knobs against its backup from then.
    const knobs::KnobFiles::Backup *then =
        knobs::KnobFiles::backupAsOf(m_knobs->backups(), changed.sinceMsecs);
    if (const inventory::Service *service = m_knobs->selected()) {
        if (!then) {
            lines.append(
                QStringLiteral("%1: no backup of its script from then").arg(service->name));
        } else {
            lines.append(QStringLiteral("%1 against %2:").arg(service->name, then->path));
            for (const knobs::KnobChange &change : then->changes)
                lines.append(QStringLiteral("    ") + change.text());
            if (then->changes.isEmpty())
                lines.append(QStringLiteral("    no knob changed"));
        }
    }
    for (const knobs::ChangedSince::Git &git : changed.git)
        lines.append(QStringLiteral("git %1: HEAD %2, %3 dirty")
                         .arg(git.topLevel, git.head.left(12))
                         .arg(git.dirty.size()));
    m_changed->setPlainText(lines.join(u'\n'));
}

void KnobsTab::updateState(const QString &problem)
{
    QStringList parts;
    if (!problem.isEmpty())
        parts.append(
            QStringLiteral("<span style='color:#b71c1c'>%1</span>").arg(problem.toHtmlEscaped()));
    if (!m_knobs->armed())
        parts.append(QStringLiteral("Read-only: %1 is not armed (armed: false). Changes can be "
                                    "previewed, not applied.")
                         .arg(m_knobs->inventoryPath().toHtmlEscaped()));
    if (m_drifted > 0)
        parts.append(QStringLiteral("<span style='color:#b71c1c'><b>%1 knob(s) differ from the "
                                    "running process: restart the service for them to take "
                                    "effect.</b></span>")
                         .arg(m_drifted));
    if (!m_driftProblem.isEmpty())
        parts.append(m_driftProblem.toHtmlEscaped());
    m_state->setText(parts.join(QStringLiteral("<br>")));
    m_state->setVisible(!parts.isEmpty());
}
