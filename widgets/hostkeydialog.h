#pragma once

#include <QDialog>

class QPushButton;

namespace opsdeck::remote {
struct SshConnectionState;
}

/// The question OpsDeck puts when a host presents a key that known_hosts
/// does not hold (issue 5, host keys): the host, the key type and its
/// SHA256 fingerprint, and how to check it out of band. "Refuse" is the
/// default button; only "Accept and save" (accepted()) trusts the key, and
/// only that exact fingerprint. A changed key never reaches this dialog:
/// it is refused with no override. A view only: the caller acts on the answer.
class HostKeyDialog : public QDialog
{
    Q_OBJECT
public:
    HostKeyDialog(const QString &host, const opsdeck::remote::SshConnectionState &state,
                  QWidget *parent = nullptr);

    QString host() const { return m_host; }
    QString fingerprint() const { return m_fingerprint; }
    QPushButton *acceptButton() const { return m_accept; }
    QPushButton *refuseButton() const { return m_refuse; }
    /// True once "Refuse" was pressed: closing the dialog (Escape, the window
    /// closing) is no answer and is not audited as one.
    bool refusedByOperator() const { return m_refused; }

private:
    QString m_host;
    QString m_fingerprint;
    QPushButton *m_accept;
    QPushButton *m_refuse;
    bool m_refused = false;
};
