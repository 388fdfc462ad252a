#include "logdock.h"

#include <QPlainTextEdit>
#include <QScrollBar>

LogDock::LogDock(QWidget *parent)
    : QDockWidget(QStringLiteral("Log"), parent), m_text(new QPlainTextEdit)
{
    setObjectName(QStringLiteral("logDock"));
    m_text->setReadOnly(true);
    m_text->setMaximumBlockCount(5000);
    m_text->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_text->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    setWidget(m_text);
    // Follow new lines until the reader scrolls up; scrolling back down resumes.
    QScrollBar *bar = m_text->verticalScrollBar();
    connect(bar, &QScrollBar::actionTriggered, this,
            [this, bar] { m_follow = bar->sliderPosition() >= bar->maximum(); });
}

void LogDock::appendLine(const QString &level, const QString &line)
{
    if (level == u"error" || level == u"critical")
        m_text->appendHtml(
            QStringLiteral("<span style=\"color:#c62828\">%1</span>").arg(line.toHtmlEscaped()));
    else if (level == u"warning")
        m_text->appendHtml(
            QStringLiteral("<span style=\"color:#e65100\">%1</span>").arg(line.toHtmlEscaped()));
    else
        m_text->appendPlainText(line);
    if (m_follow) {
        // To the start of the last line: the newest line shows from its time stamp on.
        m_text->moveCursor(QTextCursor::End);
        m_text->moveCursor(QTextCursor::StartOfLine);
        m_text->ensureCursorVisible();
    }
}

QString LogDock::text() const
{
    return m_text->toPlainText();
}
