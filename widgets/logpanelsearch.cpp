// LogPanel's search: case-insensitive substring over the shown lines,
// the selected match kept by its absolute line while lines are appended.
#include "logpanel.h"
#include "logtail.h"

#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QTextBlock>
#include <QToolButton>
#include <algorithm>

namespace {
// Past this many highlighted matches a redraw gets slow; the count stays exact.
constexpr int maxHighlights = 5000;
} // namespace

void LogPanel::updateSearch(bool keepCurrent)
{
    const QString needle = m_search->text();
    // The selected match as an absolute line and column, to find it again
    // after the document gained (and maybe dropped) lines.
    qint64 currentLine = -1;
    int currentColumn = -1;
    if (keepCurrent && m_current >= 0 && m_current < m_matches.size()) {
        currentLine = m_currentLine;
        currentColumn = m_matches[m_current].column;
    }
    m_matches.clear();
    m_current = -1;
    if (!needle.isEmpty()) {
        for (QTextBlock block = m_text->document()->begin(); block.isValid();
             block = block.next()) {
            const QString text = block.text();
            for (qsizetype at = text.indexOf(needle, 0, Qt::CaseInsensitive); at >= 0;
                 at = text.indexOf(needle, at + needle.size(), Qt::CaseInsensitive))
                m_matches.append({block.blockNumber(), static_cast<int>(at)});
        }
    }
    if (currentLine >= 0) {
        const qint64 block = currentLine - shownFromLine();
        for (int i = 0; i < m_matches.size(); ++i) {
            if (m_matches[i].block == block && m_matches[i].column == currentColumn) {
                m_current = i;
                break;
            }
        }
    }
    if (m_current < 0 && !m_matches.isEmpty() && !keepCurrent) {
        // Logs are read from the newest line up: start at the last match.
        selectMatch(static_cast<int>(m_matches.size()) - 1);
        return;
    }
    highlight();
}

void LogPanel::findNext()
{
    if (!m_matches.isEmpty())
        selectMatch(m_current < 0 ? 0 : (m_current + 1) % static_cast<int>(m_matches.size()));
}

void LogPanel::findPrevious()
{
    if (m_matches.isEmpty())
        return;
    const int count = static_cast<int>(m_matches.size());
    selectMatch(m_current <= 0 ? count - 1 : m_current - 1);
}

void LogPanel::selectMatch(int index)
{
    m_current = index;
    const Match &match = m_matches[index];
    m_currentLine = shownFromLine() + match.block;
    QTextCursor cursor(m_text->document()->findBlockByNumber(match.block));
    cursor.setPosition(cursor.block().position() + match.column);
    m_text->setTextCursor(cursor);
    m_text->ensureCursorVisible();
    highlight();
}

void LogPanel::highlight()
{
    const int count = static_cast<int>(m_matches.size());
    const int length = static_cast<int>(m_search->text().size());
    QTextCharFormat other;
    other.setBackground(QColor(0xff, 0xf1, 0x76));
    other.setForeground(Qt::black);
    QTextCharFormat current = other;
    current.setBackground(QColor(0xff, 0x98, 0x00));
    // Around the selected match when there are too many to draw.
    const int centre = std::max(m_current, 0);
    const int first = std::clamp(centre - maxHighlights / 2, 0, std::max(0, count - maxHighlights));
    const int last = std::min(count, first + maxHighlights);
    QList<QTextEdit::ExtraSelection> selections;
    selections.reserve(last - first);
    for (int i = first; i < last; ++i) {
        QTextEdit::ExtraSelection selection;
        selection.cursor = QTextCursor(m_text->document()->findBlockByNumber(m_matches[i].block));
        const int start = selection.cursor.block().position() + m_matches[i].column;
        selection.cursor.setPosition(start);
        selection.cursor.setPosition(start + length, QTextCursor::KeepAnchor);
        selection.format = i == m_current ? current : other;
        selections.append(selection);
    }
    m_text->setExtraSelections(selections);

    if (m_search->text().isEmpty())
        m_matchLabel->setText(QString());
    else if (count == 0)
        m_matchLabel->setText(tr("no match"));
    else
        m_matchLabel->setText(tr("%1 of %2").arg(m_current + 1).arg(count));
    m_previous->setEnabled(count > 0);
    m_next->setEnabled(count > 0);
}
