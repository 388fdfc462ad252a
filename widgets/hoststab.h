#pragma once

#include "sshconnectionstate.h"

#include <QList>
#include <QPair>
#include <QWidget>

class HostKeyDialog;
class HostPanel;
class HostsTable;
class LogPanel;
class QComboBox;

namespace opsdeck::remote {
class HostSignals;
class LogTail;
} // namespace opsdeck::remote
namespace opsdeck::hosts {
class HostConnections;
}

/// The Hosts tab (issue 5): every host with its connection state across the
/// top; below, for the selected host, its GPUs and serving processes beside
/// the log of a service on it. Puts the unknown-host-key question (HostKeyDialog) to the
/// operator, one dialog at a time, and passes the answer to HostConnections.
class HostsTab : public QWidget
{
    Q_OBJECT
public:
    explicit HostsTab(opsdeck::hosts::HostConnections *hosts, QWidget *parent = nullptr);

    HostsTable *table() const { return m_table; }
    HostPanel *hostPanel() const { return m_hostPanel; }
    /// The selected host's GPU and process poller; polls only while the tab is shown.
    opsdeck::remote::HostSignals *hostSignals() const { return m_signals; }
    /// The services of the selected host that have a `log`, and the log shown.
    QComboBox *logServiceBox() const { return m_logService; }
    LogPanel *logPanel() const { return m_logPanel; }
    opsdeck::remote::LogTail *logTail() const { return m_logTail; }
    /// The open unknown-key dialog, nullptr when none is open.
    HostKeyDialog *hostKeyDialog() const { return m_dialog; }

protected:
    void showEvent(QShowEvent *event) override;
    void hideEvent(QHideEvent *event) override;

private:
    void selectHost(const QString &host);
    void selectLog(int index);
    void askHostKey(const QString &host, const opsdeck::remote::SshConnectionState &state);
    void askNext();

    opsdeck::hosts::HostConnections *m_hosts;
    HostsTable *m_table;
    HostPanel *m_hostPanel;
    opsdeck::remote::HostSignals *m_signals = nullptr;
    QComboBox *m_logService;
    LogPanel *m_logPanel;
    opsdeck::remote::LogTail *m_logTail = nullptr;
    QString m_host; ///< the selected host
    HostKeyDialog *m_dialog = nullptr;
    /// Questions that came while a dialog was open, asked in turn.
    QList<QPair<QString, opsdeck::remote::SshConnectionState>> m_waiting;
};
