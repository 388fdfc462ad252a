#include "secretsbanner.h"

#include "apppaths.h"
#include "secretstore.h"

#include <QDir>
#include <QTime>

using opsdeck::secrets::SecretStore;

SecretsBanner::SecretsBanner(SecretStore *store, QWidget *parent) : QLabel(parent), m_store(store)
{
    setObjectName(QStringLiteral("secretsBanner"));
    setWordWrap(true);
    // Paths are long and the operator may want to copy them.
    setTextFormat(Qt::PlainText);
    setTextInteractionFlags(Qt::TextSelectableByMouse);
    setContentsMargins(10, 6, 10, 6);
    setAutoFillBackground(true);
    // A risk the operator chose, not an outage: amber like the stall banner.
    QPalette colours = palette();
    colours.setColor(QPalette::Window, QColor(0xff, 0xf3, 0xe0));
    colours.setColor(QPalette::WindowText, QColor(0x8a, 0x3b, 0x00));
    setPalette(colours);

    connect(store, &SecretStore::settingsChanged, this, &SecretsBanner::refresh);
    connect(store, &SecretStore::plaintextFallbackUsed, this,
            [this](const QString &key, const QString &operation, const QString &) {
                const QString done =
                    operation == QLatin1String("write")  ? QStringLiteral("written to")
                    : operation == QLatin1String("read") ? QStringLiteral("read from")
                                                         : QStringLiteral("deleted from");
                m_lastUse = QStringLiteral("No keychain answered: %1 was %2 this file at %3.")
                                .arg(key, done, QTime::currentTime().toString(u"HH:mm:ss"));
                refresh();
            });
    refresh();
}

void SecretsBanner::refresh()
{
    if (!m_store->plaintextFallbackEnabled()) {
        m_lastUse.clear();
        clear();
        hide();
        return;
    }
    QString text = QStringLiteral("Warning: secrets are stored in a plaintext file instead of the "
                                  "keychain whenever no keychain answers: %1 (mode 0600; only the "
                                  "file mode protects it).")
                       .arg(QDir::toNativeSeparators(m_store->plaintextFilePath()));
    if (!m_lastUse.isEmpty())
        text += QLatin1Char(' ') + m_lastUse;
    text +=
        QStringLiteral("\nTo switch it off: set plaintext_fallback=false under [secrets] in %1, "
                       "restart OpsDeck, and keep secrets in the keychain "
                       "(opsdeck-cli secret set KEY).")
            .arg(QDir::toNativeSeparators(opsdeck::settings::AppPaths::configFile()));
    setText(text);
    show();
}
