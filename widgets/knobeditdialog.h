#pragma once

#include "knobfiles.h"

#include <QDialog>
#include <optional>

class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;

namespace opsdeck::knobs {
class ServiceKnobs;
}

/// One change to a serve script, previewed before it is applied: the knob
/// and its new value (set), or a prepared plan (comment out, remove,
/// restore); the unified diff and the knob changes; the typed confirmation
/// of a service tagged production; Apply only when the inventory is armed,
/// saying why otherwise. Applying backs up, audits and writes (ServiceKnobs);
/// nothing restarts. Opened with open(), never exec().
class KnobEditDialog : public QDialog
{
    Q_OBJECT
public:
    /// `name` empty: a new knob is added (its name is typed); `value` its current value.
    KnobEditDialog(opsdeck::knobs::ServiceKnobs *knobs, const QString &name, const QString &value,
                   QWidget *parent = nullptr);
    /// A plan made elsewhere (comment out, remove, restore): shown at once.
    KnobEditDialog(opsdeck::knobs::ServiceKnobs *knobs, const opsdeck::knobs::KnobFiles::Plan &plan,
                   QWidget *parent = nullptr);

    QLineEdit *nameEdit() const { return m_name; }
    QLineEdit *valueEdit() const { return m_value; }
    QLineEdit *confirmEdit() const { return m_confirm; }
    QPushButton *previewButton() const { return m_preview; }
    QPushButton *applyButton() const { return m_apply; }
    QPlainTextEdit *diffView() const { return m_diff; }
    QLabel *statusLabel() const { return m_status; }

private:
    void build(bool editing);
    void preview();
    void showPlan(const opsdeck::knobs::KnobFiles::Plan &plan);
    void updateApply();
    void apply();

    opsdeck::knobs::ServiceKnobs *m_knobs;
    std::optional<opsdeck::knobs::KnobFiles::Plan> m_plan;
    bool m_waiting = false;
    QString m_error; ///< what the last preview or apply said went wrong
    QLineEdit *m_name = nullptr;
    QLineEdit *m_value = nullptr;
    QLabel *m_help = nullptr;
    QPushButton *m_preview = nullptr;
    QPlainTextEdit *m_diff = nullptr;
    QLabel *m_changes = nullptr;
    QLabel *m_confirmLabel = nullptr;
    QLineEdit *m_confirm = nullptr;
    QLabel *m_status = nullptr;
    QPushButton *m_apply = nullptr;
};
