#pragma once

#include <QWidget>

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QTableView;

namespace opsdeck::history {
class AuditTableModel;
}

/// The Audit view: the audit log's entries, newest first (AuditTableModel),
/// filtered by text, kind and "since" (the CLI's --since forms: ISO 8601 or
/// 30m, 2h, 1d), and exported as JSON (`opsdeck-cli audit --json`'s shape)
/// or Markdown, exactly the rows in view. Read when shown and on Reload.
class AuditTab : public QWidget
{
    Q_OBJECT
public:
    explicit AuditTab(QWidget *parent = nullptr);

    /// The log to show (the session's audit.jsonl); read now.
    void setLogPath(const QString &path);
    void reload();
    /// Writes the rows in view to `path`; false with `error` naming the file.
    bool exportTo(const QString &path, bool markdown, QString *error) const;

    opsdeck::history::AuditTableModel *model() const { return m_model; }
    QLineEdit *filterEdit() const { return m_filter; }
    QComboBox *kindBox() const { return m_kind; }
    QLineEdit *sinceEdit() const { return m_since; }
    QLabel *statusLabel() const { return m_status; }

protected:
    void showEvent(QShowEvent *event) override;

private:
    void applySince();
    void exportAs(bool markdown);
    void showCount();

    QString m_path;
    opsdeck::history::AuditTableModel *m_model;
    QLineEdit *m_filter;
    QComboBox *m_kind;
    QLineEdit *m_since;
    QTableView *m_table;
    QLabel *m_status;
    QPushButton *m_reload;
    QPushButton *m_json;
    QPushButton *m_markdown;
};
