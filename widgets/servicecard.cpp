#include "servicecard.h"

#include "servicestatusmodel.h"

#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QToolButton>

using opsdeck::probes::ServiceState;

ServiceCard::ServiceCard(QWidget *parent)
    : QFrame(parent), m_name(new QLabel), m_role(new QLabel), m_address(new QLabel),
      m_state(new QLabel), m_latency(new QLabel), m_age(new QLabel), m_restart(new QToolButton)
{
    setFrameShape(QFrame::StyledPanel);
    setMinimumWidth(210);
    QFont nameFont = m_name->font();
    nameFont.setBold(true);
    nameFont.setPointSizeF(nameFont.pointSizeF() * 1.2);
    m_name->setFont(nameFont);
    m_role->setForegroundRole(QPalette::PlaceholderText);
    m_address->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_state->setAlignment(Qt::AlignCenter);
    m_state->setMinimumWidth(86);
    m_state->setAutoFillBackground(true);
    QFont stateFont = m_state->font();
    stateFont.setBold(true);
    m_state->setFont(stateFont);

    auto *grid = new QGridLayout(this);
    grid->setContentsMargins(10, 8, 10, 8);
    grid->setVerticalSpacing(3);
    m_restart->setText(QStringLiteral("Restart…"));
    m_restart->setToolTip(QStringLiteral("Plan a restart of this service: the plan, the evidence "
                                         "and the guards come first, nothing runs before"));
    connect(m_restart, &QToolButton::clicked, this,
            [this] { Q_EMIT restartRequested(m_status.name); });
    // Beside the role (short), so that the name keeps the card's width.
    auto *role = new QHBoxLayout;
    role->setSpacing(6);
    role->addWidget(m_role);
    role->addWidget(m_restart);
    role->addStretch(1);
    grid->addWidget(m_name, 0, 0);
    grid->addWidget(m_state, 0, 1, Qt::AlignRight);
    grid->addLayout(role, 1, 0);
    grid->addWidget(m_latency, 1, 1, Qt::AlignRight);
    grid->addWidget(m_address, 2, 0);
    grid->addWidget(m_age, 2, 1, Qt::AlignRight);

    // The latency and age change with every check: at a fixed size their new
    // text repaints the label alone instead of laying out the whole window
    // again (64 cards, once a second each).
    // Widths of the longest texts: a 10 min timeout, and sinceText()'s widest.
    const QFontMetrics metrics(m_latency->font());
    const auto fix = [&metrics](QLabel *label, const QString &widest) {
        label->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
        label->setFixedSize(metrics.horizontalAdvance(widest) + 2, label->sizeHint().height());
    };
    fix(m_latency, QStringLiteral("600000.0 ms"));
    fix(m_age, QStringLiteral("for 99999 min"));
}

QColor ServiceCard::stateColor(ServiceState state)
{
    switch (state) {
    case ServiceState::Healthy:
        return QColor(0x2e, 0x7d, 0x32);
    case ServiceState::Starting:
        return QColor(0xf9, 0xa8, 0x25);
    case ServiceState::Unhealthy:
        return QColor(0xe6, 0x51, 0x00);
    case ServiceState::Down:
        return QColor(0xc6, 0x28, 0x28);
    case ServiceState::Unresponsive:
        return QColor(0xad, 0x14, 0x57);
    case ServiceState::Unknown:
        break;
    }
    return QColor(0x75, 0x75, 0x75);
}

void ServiceCard::setStatus(const opsdeck::probes::ServiceStatus &status)
{
    m_status = status;
    m_name->setText(status.name);
    m_role->setText(opsdeck::inventory::roleName(status.role));
    const QString address = opsdeck::probes::ServiceStatusModel::address(status.url);
    m_address->setText(status.via.isEmpty()
                           ? address
                           : QStringLiteral("%1 · tunnelled via %2").arg(address, status.via));
    // Palette only when the state changes: setting it repaints and re-polishes.
    const QString stateText = opsdeck::probes::stateName(status.state).toUpper();
    if (m_state->text() != stateText) {
        m_state->setText(stateText);
        QPalette palette = m_state->palette();
        palette.setColor(QPalette::Window, stateColor(status.state));
        palette.setColor(QPalette::WindowText, Qt::white);
        m_state->setPalette(palette);
    }
    m_latency->setText(status.latencyMs ? QStringLiteral("%1 ms").arg(*status.latencyMs, 0, 'f', 1)
                                        : QStringLiteral("– ms"));
    setToolTip(
        QStringLiteral("%1\nhealth: %2\nlast check: %3")
            .arg(status.name,
                 status.url.toString() + QStringLiteral(" (health URL polled every second)") +
                     (status.via.isEmpty()
                          ? QString()
                          : QStringLiteral("\nreached through an SSH tunnel via host %1: "
                                           "requests go to %2")
                                .arg(status.via, status.tunnelUrl.toString())),
                 status.detail.isEmpty() ? QStringLiteral("not yet checked") : status.detail));
    refreshAge();
}

void ServiceCard::refreshAge()
{
    m_age->setText(QStringLiteral("for %1").arg(opsdeck::probes::ServiceStatusModel::sinceText(
        m_status.lastChange, QDateTime::currentDateTimeUtc())));
}
