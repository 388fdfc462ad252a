#include "chartlivebar.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QToolButton>

namespace {

QString spanText(qint64 ms)
{
    constexpr qint64 minuteMs = 60 * 1000;
    if (ms < 2 * minuteMs)
        return QStringLiteral("%1 s").arg(ms / 1000);
    if (ms < 2 * 60 * minuteMs)
        return QStringLiteral("%1 min").arg(ms / minuteMs);
    if (ms < 2 * 24 * 60 * minuteMs)
        return QStringLiteral("%1 h").arg(ms / (60 * minuteMs));
    return QStringLiteral("%1 days").arg(ms / (24 * 60 * minuteMs));
}

} // namespace

ChartLiveBar::ChartLiveBar(QWidget *parent)
    : QWidget(parent), m_status(new QLabel), m_pauseButton(new QToolButton),
      m_liveButton(new QToolButton)
{
    m_status->setTextFormat(Qt::PlainText);
    m_pauseButton->setText(QStringLiteral("Pause"));
    m_pauseButton->setCheckable(true);
    m_pauseButton->setToolTip(QStringLiteral("Freeze the view; new data is still recorded"));
    m_liveButton->setText(QStringLiteral("Live"));
    m_liveButton->setToolTip(QStringLiteral("Follow live data again (or double-click the plot)"));
    for (QToolButton *button : {m_pauseButton, m_liveButton})
        button->setAutoRaise(true);
    connect(m_pauseButton, &QToolButton::toggled, this, &ChartLiveBar::pauseToggled);
    connect(m_liveButton, &QToolButton::clicked, this, &ChartLiveBar::liveClicked);

    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(6, 0, 6, 0);
    layout->addWidget(m_status, 1);
    layout->addWidget(m_pauseButton);
    layout->addWidget(m_liveButton);
}

void ChartLiveBar::showMode(Mode mode, qint64 windowMs)
{
    {
        // Showing the mode must not report it back as a click.
        const QSignalBlocker blocker(m_pauseButton);
        m_pauseButton->setChecked(mode == Mode::Paused);
    }
    m_liveButton->setEnabled(mode != Mode::Live);
    switch (mode) {
    case Mode::Live:
        m_status->setText(m_rangeText.isEmpty()
                              ? QStringLiteral("Live, up to the last %1").arg(spanText(windowMs))
                              : m_rangeText);
        break;
    case Mode::Paused:
        m_status->setText(QStringLiteral("Paused: new data is still recorded"));
        break;
    case Mode::Browsing:
        m_status->setText(QStringLiteral("Zoomed: double-click or Live to follow"));
        break;
    }
}

QString ChartLiveBar::statusText() const
{
    return m_status->text();
}

void ChartLiveBar::setStatusToolTip(const QString &text)
{
    m_status->setToolTip(text);
}
