#pragma once

#include <QDockWidget>

class QPlainTextEdit;

/// The window's log: every spdlog line of this process (through
/// opsdeck::logging::LogRelay), newest at the bottom, the last 5,000 kept.
class LogDock : public QDockWidget
{
    Q_OBJECT
public:
    explicit LogDock(QWidget *parent = nullptr);
    void appendLine(const QString &level, const QString &line);
    QString text() const;

private:
    QPlainTextEdit *m_text;
    bool m_follow = true;
};
