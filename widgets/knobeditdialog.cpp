#include "knobeditdialog.h"

#include "knobcatalog.h"
#include "serviceknobs.h"

#include <QDialogButtonBox>
#include <QFontDatabase>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QVBoxLayout>

using namespace opsdeck;

KnobEditDialog::KnobEditDialog(knobs::ServiceKnobs *knobs, const QString &name,
                               const QString &value, QWidget *parent)
    : QDialog(parent), m_knobs(knobs)
{
    build(true);
    m_name->setText(name);
    m_name->setReadOnly(!name.isEmpty());
    m_value->setText(value);
    const std::optional<knobs::KnobInfo> info = knobs::KnobCatalog::builtIn().info(name);
    m_help->setText(info             ? info->help()
                    : name.isEmpty() ? QStringLiteral("A new knob: an environment variable "
                                                      "(NAME) or a launch flag (--name).")
                                     : QStringLiteral("Not in OpsDeck's catalog of known "
                                                      "knobs."));
    setWindowTitle(name.isEmpty() ? QStringLiteral("Add a knob")
                                  : QStringLiteral("Set %1").arg(name));
    m_value->setFocus();
}

KnobEditDialog::KnobEditDialog(knobs::ServiceKnobs *knobs, const knobs::KnobFiles::Plan &plan,
                               QWidget *parent)
    : QDialog(parent), m_knobs(knobs)
{
    build(false);
    setWindowTitle(plan.what);
    showPlan(plan);
}

void KnobEditDialog::build(bool editing)
{
    setMinimumSize(720, 520);
    auto *layout = new QVBoxLayout(this);
    const knobs::ServiceKnobs *k = m_knobs;
    const inventory::Service *service = k->selected();
    auto *target =
        new QLabel(service ? QStringLiteral("<b>%1</b> on %2 — %3")
                                 .arg(service->name.toHtmlEscaped(), service->host.toHtmlEscaped(),
                                      service->serveScript.toHtmlEscaped())
                           : QString());
    target->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(target);
    if (editing) {
        auto *form = new QFormLayout;
        m_name = new QLineEdit;
        m_name->setPlaceholderText(QStringLiteral("SGLANG_... or --flag"));
        m_value = new QLineEdit;
        m_value->setPlaceholderText(QStringLiteral("new value (quoted for bash by OpsDeck)"));
        form->addRow(QStringLiteral("Knob"), m_name);
        form->addRow(QStringLiteral("Value"), m_value);
        layout->addLayout(form);
        m_help = new QLabel;
        m_help->setWordWrap(true);
        layout->addWidget(m_help);
        m_preview = new QPushButton(QStringLiteral("Preview the change"));
        layout->addWidget(m_preview, 0, Qt::AlignLeft);
        connect(m_preview, &QPushButton::clicked, this, &KnobEditDialog::preview);
        connect(m_value, &QLineEdit::returnPressed, this, &KnobEditDialog::preview);
    }
    m_diff = new QPlainTextEdit;
    m_diff->setReadOnly(true);
    m_diff->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_diff->setPlaceholderText(QStringLiteral("The unified diff shows here before anything is "
                                              "written."));
    layout->addWidget(m_diff, 1);
    m_changes = new QLabel;
    m_changes->setWordWrap(true);
    m_changes->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_changes);
    const QString needed = k->confirmationNeeded();
    m_confirmLabel =
        new QLabel(QStringLiteral("%1 is tagged production: type its name to apply").arg(needed));
    m_confirm = new QLineEdit;
    m_confirm->setPlaceholderText(needed);
    m_confirmLabel->setVisible(!needed.isEmpty());
    m_confirm->setVisible(!needed.isEmpty());
    layout->addWidget(m_confirmLabel);
    layout->addWidget(m_confirm);
    m_status = new QLabel;
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_status);
    auto *buttons = new QDialogButtonBox;
    m_apply = buttons->addButton(QStringLiteral("Back up and apply"), QDialogButtonBox::AcceptRole);
    buttons->addButton(QDialogButtonBox::Close);
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_apply, &QPushButton::clicked, this, &KnobEditDialog::apply);
    connect(m_confirm, &QLineEdit::textChanged, this, &KnobEditDialog::updateApply);
    connect(m_knobs, &knobs::ServiceKnobs::planned, this, [this](const knobs::KnobFiles::Plan &p) {
        if (m_waiting)
            showPlan(p);
    });
    connect(m_knobs, &knobs::ServiceKnobs::problem, this, [this](const QString &text) {
        if (!m_waiting)
            return;
        m_waiting = false;
        m_error = text;
        updateApply();
    });
    connect(m_knobs, &knobs::ServiceKnobs::applied, this,
            [this](const knobs::KnobFiles::Applied &result) {
                if (!m_waiting)
                    return;
                m_waiting = false;
                if (result.ok && result.error.isEmpty()) {
                    accept();
                    return;
                }
                m_error = result.error;
                updateApply();
            });
    updateApply();
}

void KnobEditDialog::preview()
{
    knobs::ScriptEdit edit;
    edit.name = m_name->text().trimmed();
    edit.value = m_value->text();
    m_plan.reset();
    m_waiting = true;
    m_error.clear();
    updateApply();
    m_status->setText(QStringLiteral("Reading the script…"));
    m_knobs->planEdit(edit);
}

void KnobEditDialog::showPlan(const knobs::KnobFiles::Plan &plan)
{
    m_waiting = false;
    m_plan = plan;
    m_diff->setPlainText(plan.diff);
    QStringList changes;
    for (const knobs::KnobChange &change : plan.changes)
        changes.append(change.text().toHtmlEscaped());
    m_changes->setText(
        QStringLiteral("<b>Knobs that change:</b> %1<br>A running service sees "
                       "the change only after its next restart; nothing is "
                       "restarted here. The script is backed up first.")
            .arg(changes.isEmpty() ? QStringLiteral("none") : changes.join(QStringLiteral(", "))));
    m_error.clear();
    updateApply();
}

void KnobEditDialog::updateApply()
{
    const QString needed = m_knobs->confirmationNeeded();
    QString why;
    if (!m_knobs->armed())
        why = QStringLiteral("Preview only: %1 is not armed (armed: false), so OpsDeck changes "
                             "nothing on its hosts.")
                  .arg(m_knobs->inventoryPath());
    else if (!m_plan)
        why = QStringLiteral("Preview the change first.");
    else if (!needed.isEmpty() && m_confirm->text() != needed)
        why = QStringLiteral("Type %1 to confirm.").arg(needed);
    m_apply->setEnabled(why.isEmpty() && !m_waiting);
    m_apply->setToolTip(why);
    m_status->setText(m_error.isEmpty() ? why : m_error);
}

void KnobEditDialog::apply()
{
    if (!m_plan)
        return;
    m_waiting = true;
    m_error.clear();
    m_apply->setEnabled(false);
    m_status->setText(QStringLiteral("Backing up, auditing and writing…"));
    m_knobs->apply(*m_plan, m_confirm->text());
}
