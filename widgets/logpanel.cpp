#include "logpanel.h"

#include "logstartbanner.h"
#include "logtail.h"

#include <QCheckBox>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPlainTextEdit>
#include <QScrollBar>
#include <QTextBlock>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>

using opsdeck::remote::LogStartBanner;
using opsdeck::remote::LogTail;

bool LogPanel::wrapsLines() const
{
    return m_text->lineWrapMode() != QPlainTextEdit::NoWrap;
}

LogPanel::LogPanel(QWidget *parent)
    : QWidget(parent), m_banners(LogStartBanner::patterns(LogStartBanner::defaults())),
      m_follow(new QCheckBox(tr("Follow"), this)),
      m_sinceRestart(new QCheckBox(tr("Since restart"), this)),
      m_wrap(new QCheckBox(tr("Wrap"), this)), m_search(new QLineEdit(this)),
      m_previous(new QToolButton(this)), m_next(new QToolButton(this)),
      m_matchLabel(new QLabel(this)), m_restartLabel(new QLabel(this)),
      m_text(new QPlainTextEdit(this)), m_status(new QLabel(this)), m_error(new QLabel(this))
{
    m_follow->setChecked(true);
    m_follow->setToolTip(tr("Read what the log gained every 2 s while this panel is shown"));
    m_sinceRestart->setToolTip(tr("Only the lines since the serving process last started"));
    m_search->setPlaceholderText(tr("Search (case-insensitive)"));
    m_search->setClearButtonEnabled(true);
    m_previous->setText(QStringLiteral("\u25b2"));
    m_previous->setToolTip(tr("Previous (earlier) match"));
    m_next->setText(QStringLiteral("\u25bc"));
    m_next->setToolTip(tr("Next (later) match"));
    m_matchLabel->setMinimumWidth(
        fontMetrics().horizontalAdvance(QStringLiteral("00000 of 00000")));

    m_text->setReadOnly(true);
    // Wrapped by default: a line cut at the right edge hides the end of an error.
    m_wrap->setChecked(true);
    m_wrap->setToolTip(tr("Wrap long lines; off: one line per row, scroll sideways"));
    m_text->setLineWrapMode(QPlainTextEdit::WidgetWidth);
    m_text->setWordWrapMode(QTextOption::WrapAtWordBoundaryOrAnywhere);
    m_text->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_text->setPlaceholderText(tr("No log selected"));
    m_text->setMaximumBlockCount(opsdeck::remote::LogBuffer::defaultMaxLines);
    m_restartLabel->setWordWrap(true);
    m_restartLabel->setVisible(false);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_error->setWordWrap(true);
    m_error->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_error->setStyleSheet(QStringLiteral("color: #c62828;"));
    m_error->setVisible(false);

    auto *toolbar = new QHBoxLayout;
    toolbar->addWidget(m_follow);
    toolbar->addWidget(m_sinceRestart);
    toolbar->addWidget(m_wrap);
    toolbar->addStretch(1);
    toolbar->addWidget(m_search, 2);
    toolbar->addWidget(m_previous);
    toolbar->addWidget(m_next);
    toolbar->addWidget(m_matchLabel);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(toolbar);
    layout->addWidget(m_restartLabel);
    layout->addWidget(m_text, 1);
    layout->addWidget(m_status);
    layout->addWidget(m_error);

    connect(m_follow, &QCheckBox::toggled, this, [this] {
        updateFollowing();
        updateStatus();
    });
    connect(m_sinceRestart, &QCheckBox::toggled, this, &LogPanel::rebuild);
    connect(m_wrap, &QCheckBox::toggled, this, [this](bool wrap) {
        m_text->setLineWrapMode(wrap ? QPlainTextEdit::WidgetWidth : QPlainTextEdit::NoWrap);
    });
    connect(m_search, &QLineEdit::textChanged, this, [this] { updateSearch(false); });
    connect(m_search, &QLineEdit::returnPressed, this, &LogPanel::findNext);
    connect(m_next, &QToolButton::clicked, this, &LogPanel::findNext);
    connect(m_previous, &QToolButton::clicked, this, &LogPanel::findPrevious);
    updateSearch(false);
    updateStatus();
}

void LogPanel::setLogTail(LogTail *tail)
{
    if (m_tail == tail)
        return;
    if (m_tail) {
        disconnect(m_tail, nullptr, this, nullptr);
        m_tail->setFollowing(false);
    }
    m_tail = tail;
    m_restartLine = -1;
    m_text->setPlaceholderText(m_tail ? tr("No lines read yet") : tr("No log selected"));
    if (m_tail) {
        m_text->setMaximumBlockCount(m_tail->buffer().maxLines());
        m_restartLine = m_tail->buffer().lastLineMatching(m_banners);
        connect(m_tail, &LogTail::linesAdded, this, &LogPanel::onLinesAdded);
        connect(m_tail, &LogTail::readFinished, this, &LogPanel::updateStatus);
        connect(m_tail, &QObject::destroyed, this, [this] {
            rebuild();
            updateStatus();
        });
        if (isVisible() && m_tail->buffer().offset() < 0 && !m_tail->reading())
            m_tail->refresh();
    }
    rebuild();
    updateFollowing();
    updateStatus();
}

void LogPanel::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    if (m_tail && m_tail->buffer().offset() < 0 && !m_tail->reading())
        m_tail->refresh();
    updateFollowing();
}

void LogPanel::hideEvent(QHideEvent *event)
{
    QWidget::hideEvent(event);
    updateFollowing();
}

void LogPanel::updateFollowing()
{
    if (m_tail)
        m_tail->setFollowing(m_follow->isChecked() && isVisible());
}

qint64 LogPanel::shownFromLine() const
{
    if (!m_tail)
        return 0;
    const bool empty = m_text->document()->isEmpty();
    return m_tail->buffer().endLine() - (empty ? 0 : m_text->document()->blockCount());
}

void LogPanel::rebuild()
{
    QStringList lines;
    if (m_tail) {
        const auto &buffer = m_tail->buffer();
        if (m_restartLine < buffer.firstLine())
            m_restartLine = -1;
        qint64 from = buffer.firstLine();
        if (m_sinceRestart->isChecked() && m_restartLine >= 0)
            from = m_restartLine;
        lines.reserve(static_cast<qsizetype>(buffer.endLine() - from));
        for (qint64 n = from; n < buffer.endLine(); ++n)
            lines.append(buffer.line(n));
    }
    m_text->setPlainText(lines.join(u'\n'));
    scrollToEndIf(true);
    updateSearch(false);
    updateStatus();
}

void LogPanel::onLinesAdded(qint64 firstLine, int count)
{
    if (!m_tail || count <= 0)
        return;
    const auto &buffer = m_tail->buffer();
    if (m_restartLine < buffer.firstLine())
        m_restartLine = -1; // dropped over the line cap
    const qint64 found = buffer.lastLineMatching(m_banners, firstLine);
    if (found >= 0) {
        m_restartLine = found;
        if (m_sinceRestart->isChecked()) {
            rebuild();
            return;
        }
    }
    const bool wasAtEnd = atEnd();
    QStringList lines;
    for (qint64 n = std::max(firstLine, buffer.firstLine()); n < buffer.endLine(); ++n)
        lines.append(buffer.line(n));
    m_text->appendPlainText(lines.join(u'\n'));
    scrollToEndIf(wasAtEnd);
    updateSearch(true);
    updateStatus();
}

bool LogPanel::atEnd() const
{
    const QScrollBar *bar = m_text->verticalScrollBar();
    return bar->value() >= bar->maximum();
}

void LogPanel::scrollToEndIf(bool wasAtEnd)
{
    if (wasAtEnd)
        m_text->verticalScrollBar()->setValue(m_text->verticalScrollBar()->maximum());
}

QString LogPanel::statusText() const
{
    return m_status->text();
}

QString LogPanel::errorText() const
{
    return m_error->isVisibleTo(this) ? m_error->text() : QString();
}

QString LogPanel::sinceRestartText() const
{
    return m_restartLabel->isVisibleTo(this) ? m_restartLabel->text() : QString();
}

QString LogPanel::matchText() const
{
    return m_matchLabel->text();
}

void LogPanel::updateStatus()
{
    if (!m_tail) {
        m_status->setText(tr("No log selected"));
        m_error->setVisible(false);
        m_restartLabel->setVisible(false);
        return;
    }
    const auto &buffer = m_tail->buffer();
    QStringList parts{m_tail->hostName() + u':' + m_tail->path()};
    if (buffer.fileSize() >= 0)
        parts.append(QLocale::c().formattedDataSize(buffer.fileSize(), 1));
    if (m_tail->lastUpdated().isValid())
        parts.append(
            tr("updated %1").arg(m_tail->lastUpdated().toString(QStringLiteral("HH:mm:ss"))));
    else
        parts.append(m_tail->reading()         ? tr("reading\u2026")
                     : m_tail->readCount() > 0 ? tr("nothing read")
                                               : tr("not read yet"));
    if (buffer.droppedLines() > 0)
        parts.append(tr("%1 lines dropped").arg(buffer.droppedLines()));
    if (!m_follow->isChecked())
        parts.append(tr("not following"));
    m_status->setText(parts.join(QStringLiteral(" \u00b7 ")));

    const QString error = m_tail->errorText();
    m_error->setText(m_tail->following() ? tr("%1 (checking again every %2 s)")
                                               .arg(error)
                                               .arg(m_tail->pollInterval().count() / 1000.0)
                                         : error);
    m_error->setVisible(!error.isEmpty());

    m_restartLabel->setVisible(m_sinceRestart->isChecked());
    if (m_restartLine >= 0) {
        m_restartLabel->setText(tr("Since restart: from the last start line, %1")
                                    .arg(buffer.line(m_restartLine).left(160)));
    } else {
        QStringList names;
        for (const LogStartBanner &banner : LogStartBanner::defaults())
            names.append(banner.name);
        m_restartLabel->setText(
            tr("No start line in the %1 kept lines (looked for: %2); showing all of them.")
                .arg(buffer.lineCount())
                .arg(names.join(QStringLiteral(", "))));
    }
}
