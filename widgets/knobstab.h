#pragma once

#include <QWidget>
#include <functional>

class KnobColorProxy;
class KnobEditDialog;
class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QTableView;

namespace opsdeck::knobs {
class ServiceKnobs;
struct ChangedSince;
} // namespace opsdeck::knobs

/// The Knobs tab: for the chosen service, every knob of its serve script
/// (value, line, kind, catalog help as tooltip, whether the running process
/// differs); edit a value, add a knob, comment one out or remove it, restore
/// a backup — each previewed as a diff in a KnobEditDialog and applied only
/// when the inventory is armed (backup, audit, atomic write; nothing
/// restarts); "what changed since" a time on the service's host. A view of
/// ServiceKnobs.
class KnobsTab : public QWidget
{
    Q_OBJECT
public:
    explicit KnobsTab(opsdeck::knobs::ServiceKnobs *knobs, QWidget *parent = nullptr);

    /// The inventory changed: the services listed again, the first selected.
    void reload();

    QComboBox *serviceBox() const { return m_service; }
    QTableView *table() const { return m_table; }
    QLabel *stateLabel() const { return m_state; }
    QPushButton *editButton() const { return m_edit; }
    QPushButton *commentButton() const { return m_comment; }
    QComboBox *backupBox() const { return m_backups; }
    QPushButton *restoreButton() const { return m_restore; }
    QLineEdit *sinceEdit() const { return m_since; }
    QPlainTextEdit *changedView() const { return m_changed; }
    /// The open edit dialog; nullptr when none is.
    KnobEditDialog *dialog() const { return m_dialog; }

private:
    QString selectedKnob() const;
    void openDialog(KnobEditDialog *dialog);
    void planThenShow(const std::function<void()> &plan);
    void showChanged(const opsdeck::knobs::ChangedSince &changed);
    void updateState(const QString &problem = {});

    opsdeck::knobs::ServiceKnobs *m_knobs;
    QComboBox *m_service;
    QLabel *m_script;
    QLabel *m_state;
    QTableView *m_table;
    KnobColorProxy *m_proxy;
    QPushButton *m_edit;
    QPushButton *m_add;
    QPushButton *m_comment;
    QPushButton *m_remove;
    QComboBox *m_backups;
    QPushButton *m_restore;
    QLineEdit *m_since;
    QPlainTextEdit *m_changed;
    KnobEditDialog *m_dialog = nullptr;
    bool m_planning = false; ///< a comment/remove/restore plan is on its way
    QString m_driftProblem;
    int m_drifted = 0;
};
