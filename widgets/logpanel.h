#pragma once

#include "logtail.h"

#include <QPointer>
#include <QRegularExpression>
#include <QVector>
#include <QWidget>

class QCheckBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QToolButton;

/// Shows one service's log as a LogTail reads it: monospace, newest at the
/// bottom (kept at the bottom while the view is scrolled there), at most the
/// tail's line cap. Toolbar: Follow (poll every 2 s while the panel is
/// visible), Since restart (only the lines from the last start banner on,
/// LogStartBanner::defaults(); says so plainly when none is kept), search
/// (case-insensitive substring, ▲ ▼, "3 of 17", matches highlighted).
/// Status line: "host:path · size · updated HH:MM:SS · N lines dropped",
/// and the read error (missing file, failed command) in red beneath.
/// Which service's log to show is the caller's choice (setLogTail).
/// Only views the tail. Thread: GUI thread.
class LogPanel : public QWidget
{
    Q_OBJECT
public:
    explicit LogPanel(QWidget *parent = nullptr);

    /// Shows `tail` (not owned; nullptr: nothing). Reads it once when shown,
    /// and follows it while Follow is on and the panel is visible.
    void setLogTail(opsdeck::remote::LogTail *tail);
    opsdeck::remote::LogTail *logTail() const { return m_tail; }

    QCheckBox *followBox() const { return m_follow; }
    QCheckBox *sinceRestartBox() const { return m_sinceRestart; }
    /// Long lines wrap (on by default) so that every line can be read whole.
    QCheckBox *wrapBox() const { return m_wrap; }
    bool wrapsLines() const;
    QLineEdit *searchField() const { return m_search; }
    QPlainTextEdit *textView() const { return m_text; }

    /// Moves to the next (later) / previous (earlier) match, wrapping around.
    void findNext();
    void findPrevious();
    int matchCount() const { return static_cast<int>(m_matches.size()); }
    /// 1-based number of the selected match; 0 when there is none.
    int currentMatch() const { return m_current + 1; }
    /// The text beside the arrows: "3 of 17", "no match", empty without a search.
    QString matchText() const;
    QString statusText() const;
    QString errorText() const;
    /// The line above the text in "since restart" view (empty otherwise).
    QString sinceRestartText() const;
    /// Absolute line number (LogBuffer) of the first line shown.
    qint64 shownFromLine() const;

protected:
    void showEvent(QShowEvent *event) override;
    void hideEvent(QHideEvent *event) override;

private:
    struct Match
    {
        int block;
        int column;
    };
    void updateFollowing();
    void rebuild();
    void onLinesAdded(qint64 firstLine, int count);
    void updateStatus();
    void updateSearch(bool keepCurrent);
    void selectMatch(int index);
    void highlight();
    void scrollToEndIf(bool wasAtEnd);
    bool atEnd() const;

    QPointer<opsdeck::remote::LogTail> m_tail;
    QList<QRegularExpression> m_banners;
    QCheckBox *m_follow;
    QCheckBox *m_sinceRestart;
    QCheckBox *m_wrap;
    QLineEdit *m_search;
    QToolButton *m_previous;
    QToolButton *m_next;
    QLabel *m_matchLabel;
    QLabel *m_restartLabel;
    QPlainTextEdit *m_text;
    QLabel *m_status;
    QLabel *m_error;
    qint64 m_restartLine = -1; ///< absolute number of the last start banner kept; -1: none
    qint64 m_shownFrom = 0;    ///< absolute number the view starts at
    QVector<Match> m_matches;
    int m_current = -1;
    qint64 m_currentLine = -1; ///< absolute line of the selected match
};
