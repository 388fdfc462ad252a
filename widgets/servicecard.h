#pragma once

#include "servicestatus.h"

#include <QFrame>

class QLabel;
class QToolButton;

/// One service at a glance: name, role, host:port, state (coloured), the
/// last check's latency in ms, and how long it has been in that state.
/// A view only: ServicesPanel feeds it from ServiceStatusModel. Its Restart…
/// button asks for the restart workflow (planned and confirmed elsewhere).
class ServiceCard : public QFrame
{
    Q_OBJECT
public:
    explicit ServiceCard(QWidget *parent = nullptr);

    void setStatus(const opsdeck::probes::ServiceStatus &status);
    /// Re-renders the "for N s" text against the current time.
    void refreshAge();
    const opsdeck::probes::ServiceStatus &status() const { return m_status; }
    /// Colour the state is shown in (also used by tests and the legend).
    static QColor stateColor(opsdeck::probes::ServiceState state);
    QToolButton *restartButton() const { return m_restart; }

Q_SIGNALS:
    void restartRequested(const QString &service);

private:
    opsdeck::probes::ServiceStatus m_status;
    QLabel *m_name;
    QLabel *m_role;
    QLabel *m_address;
    QLabel *m_state;
    QLabel *m_latency;
    QLabel *m_age;
    QToolButton *m_restart;
};
