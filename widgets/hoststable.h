#pragma once

#include <QTableWidget>

namespace opsdeck::hosts {
class HostConnections;
}

/// Every inventory host and its connection state (issue 5: "per-host
/// connection state shown in the window"): name, how it is reached
/// (local, or user@address:port over ssh) and "connected",
/// "authenticating", "failed: <reason>", "reconnecting in N s". The row of
/// a failed host is red and its tooltip holds the whole reason. A view of
/// HostConnections only.
class HostsTable : public QTableWidget
{
    Q_OBJECT
public:
    explicit HostsTable(opsdeck::hosts::HostConnections *hosts, QWidget *parent = nullptr);

    /// Tall enough for up to 6 hosts without scrolling, so the panels below
    /// keep their room.
    QSize sizeHint() const override;

    /// The host of the current row; empty when none.
    QString currentHost() const;

Q_SIGNALS:
    void hostSelected(const QString &host);

private:
    void rebuild();
    void refresh(const QString &host);

    opsdeck::hosts::HostConnections *m_hosts;
};
