#pragma once

#include <QColor>
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
    /// Colour line `index` (0 = oldest kept) is drawn in: red for errors,
    /// orange for warnings, the palette's text colour (an invalid QColor:
    /// none set) for the rest.
    QColor lineColor(int index) const;

private:
    QPlainTextEdit *m_text;
    bool m_follow = true;
};
