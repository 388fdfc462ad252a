#pragma once

#include <QWidget>

class QLabel;
class QToolButton;

/// The line above a TimeSeriesChart's plot: what the view is doing
/// ("Live, up to the last 5 min", "Paused…", "Zoomed…") and the Pause and Live
/// buttons. Only shows the mode it is given and reports clicks; the chart
/// owns the mode. GUI thread.
class ChartLiveBar : public QWidget
{
    Q_OBJECT
public:
    enum class Mode
    {
        Live,    ///< the time axis follows the newest point
        Paused,  ///< frozen by the user; data still accepted
        Browsing ///< zoomed or panned away from live data
    };

    explicit ChartLiveBar(QWidget *parent = nullptr);

    /// `windowMs`: the live window, named in the Live text.
    void showMode(Mode mode, qint64 windowMs);
    /// Tooltip of the status text (the chart's source tooltip).
    void setStatusToolTip(const QString &text);
    QString statusText() const;
    /// What the chart shows when it is not live data: "last 1 h from
    /// Prometheus at 10:02"; shown instead of "Live, up to the last …" (the next
    /// showMode() uses it). Empty: live data.
    void setRangeText(const QString &text) { m_rangeText = text; }

Q_SIGNALS:
    void pauseToggled(bool paused);
    void liveClicked();

private:
    QString m_rangeText;
    QLabel *m_status;
    QToolButton *m_pauseButton;
    QToolButton *m_liveButton;
};
