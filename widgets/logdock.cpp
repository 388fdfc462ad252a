#include "logdock.h"

#include <QPlainTextEdit>
#include <QScrollBar>

LogDock::LogDock(QWidget *parent) : QDockWidget(QStringLiteral("Log"), parent), m_text(new QPlainTextEdit)
{
    setObjectName(QStringLiteral("logDock"));
    m_text->setReadOnly(true);
    m_text->setMaximumBlockCount(5000);
    m_text->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_text->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    setWidget(m_text);
}

void LogDock::appendLine(const QString &level, const QString &line)
{
    QScrollBar *bar = m_text->verticalScrollBar();
    const bool atBottom = bar->value() == bar->maximum();
    if (level == u"error" || level == u"critical")
        m_text->appendHtml(QStringLiteral("<span style=\"color:#c62828\">%1</span>").arg(line.toHtmlEscaped()));
    else if (level == u"warning")
        m_text->appendHtml(QStringLiteral("<span style=\"color:#e65100\">%1</span>").arg(line.toHtmlEscaped()));
    else
        m_text->appendPlainText(line);
    if (atBottom)
        bar->setValue(bar->maximum()); // follow unless the reader scrolled up
}

QString LogDock::text() const { return m_text->toPlainText(); }
