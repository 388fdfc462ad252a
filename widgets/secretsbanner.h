#pragma once

#include <QLabel>

namespace opsdeck::secrets {
class SecretStore;
}

/// The window's warning while the plaintext secrets fallback is switched on
/// (issue 5: "a warning in the UI and the log"): amber, always visible while
/// SecretStore::plaintextFallbackEnabled(), naming the file secrets go to
/// instead of the keychain and how to switch it off; after the fallback is
/// actually used it also says which key went to the file and when. Hidden
/// while the setting is off. Only views the store (its settingsChanged() and
/// plaintextFallbackUsed() signals); never sees a secret's value.
/// GUI thread; `store` lives in it (SecretStore::shared()) and outlives this.
class SecretsBanner : public QLabel
{
    Q_OBJECT
public:
    explicit SecretsBanner(opsdeck::secrets::SecretStore *store, QWidget *parent = nullptr);

private:
    void refresh();

    opsdeck::secrets::SecretStore *m_store;
    QString m_lastUse; ///< "ssh/gpu-1/root was written to it at 14:02:11"; empty before any use
};
