#include "logdock.h"

#include <QPlainTextEdit>
#include <QScrollBar>
#include <QTextBlock>
#include <QTextCursor>
#include <QTextDocument>

LogDock::LogDock(QWidget *parent)
    : QDockWidget(QStringLiteral("Log"), parent), m_text(new QPlainTextEdit)
{
    setObjectName(QStringLiteral("logDock"));
    m_text->setReadOnly(true);
    m_text->setMaximumBlockCount(5000);
    // Wrapped: the end of a long line (a command, an error) stays readable.
    m_text->setLineWrapMode(QPlainTextEdit::WidgetWidth);
    m_text->setWordWrapMode(QTextOption::WrapAtWordBoundaryOrAnywhere);
    m_text->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    setWidget(m_text);
    // Follow new lines until the reader scrolls up; scrolling back down resumes.
    QScrollBar *bar = m_text->verticalScrollBar();
    connect(bar, &QScrollBar::actionTriggered, this,
            [this, bar] { m_follow = bar->sliderPosition() >= bar->maximum(); });
}

void LogDock::appendLine(const QString &level, const QString &line)
{
    // Each line gets its own whole format: appendPlainText() would carry the
    // colour of a warning above it over to the lines that follow.
    QTextCharFormat format;
    if (level == u"error" || level == u"critical")
        format.setForeground(QColor(0xc6, 0x28, 0x28));
    else if (level == u"warning")
        format.setForeground(QColor(0xe6, 0x51, 0x00));
    QTextCursor cursor(m_text->document());
    cursor.movePosition(QTextCursor::End);
    if (!m_text->document()->isEmpty())
        cursor.insertBlock(QTextBlockFormat(), format);
    cursor.insertText(line, format);
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

QColor LogDock::lineColor(int index) const
{
    const QTextBlock block = m_text->document()->findBlockByNumber(index);
    if (!block.isValid() || block.begin().atEnd())
        return {};
    const QTextCharFormat format = block.begin().fragment().charFormat();
    return format.hasProperty(QTextFormat::ForegroundBrush) ? format.foreground().color()
                                                            : QColor();
}
