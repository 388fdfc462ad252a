#include "hostkeydialog.h"

#include "sshconnectionstate.h"

#include <QDialogButtonBox>
#include <QFontDatabase>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

// The part of sshd's host key file name for a key type: ssh-ed25519 ->
// ed25519, ecdsa-sha2-nistp256 -> ecdsa, ssh-rsa -> rsa.
static QString keyFileType(const QString &keyType)
{
    if (keyType.startsWith(QLatin1String("ssh-")))
        return keyType.mid(4);
    if (keyType.startsWith(QLatin1String("ecdsa")))
        return QStringLiteral("ecdsa");
    return QStringLiteral("*");
}

HostKeyDialog::HostKeyDialog(const QString &host, const opsdeck::remote::SshConnectionState &state,
                             QWidget *parent)
    : QDialog(parent), m_host(host), m_fingerprint(state.hostKeyFingerprint)
{
    setWindowTitle(QStringLiteral("Unknown host key — %1").arg(host));
    auto *layout = new QVBoxLayout(this);
    auto *intro =
        new QLabel(QStringLiteral("<b>%1</b> (%2) presents a host key that is not in known_hosts. "
                                  "OpsDeck has not connected.")
                       .arg(host.toHtmlEscaped(), state.hostEntry.toHtmlEscaped()),
                   this);
    intro->setWordWrap(true);
    layout->addWidget(intro);

    auto *key = new QLabel(QStringLiteral("%1\n%2").arg(state.hostKeyType, m_fingerprint), this);
    key->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    key->setTextInteractionFlags(Qt::TextSelectableByMouse);
    key->setObjectName(QStringLiteral("fingerprint"));
    layout->addWidget(key);

    auto *howTo = new QLabel(
        QStringLiteral("Accept only if this is the fingerprint the host itself prints, read "
                       "through a channel you trust (console, provisioning record):\n"
                       "  ssh-keygen -l -f /etc/ssh/ssh_host_%1_key.pub\n"
                       "Accepting saves exactly this key to known_hosts and writes your answer "
                       "to the audit log. If the host should already be known, refuse: the key "
                       "may belong to someone else.")
            .arg(keyFileType(state.hostKeyType)),
        this);
    howTo->setWordWrap(true);
    layout->addWidget(howTo);

    auto *buttons = new QDialogButtonBox(this);
    m_refuse = buttons->addButton(QStringLiteral("Refuse"), QDialogButtonBox::RejectRole);
    m_accept = buttons->addButton(QStringLiteral("Accept and save"), QDialogButtonBox::AcceptRole);
    m_refuse->setDefault(true);
    // The box emits clicked(button) before rejected(), so the flag is set
    // before finished() is handled.
    connect(buttons, &QDialogButtonBox::clicked, this,
            [this](QAbstractButton *button) { m_refused = button == m_refuse; });
    m_refuse->setFocus();
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);
    setMinimumWidth(560);
}
