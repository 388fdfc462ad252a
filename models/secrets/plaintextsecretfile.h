#pragma once

#include "secretresult.h"

#include <QString>

namespace opsdeck::secrets {

/// The opt-in fallback when no keychain is available: one JSON file of
/// `{"<key>": "<base64 value>"}`, created with mode 0600 and rewritten whole
/// (through a temp file and rename, so a crash leaves the old or the new
/// version). Base64 is not protection: only the file mode is, which is why
/// SecretStore uses it only when settings switch it on, and warns.
/// A change (write, remove) holds `<file>.lock` (settings::PrivateLock) from
/// its read to its rename, so that two processes changing it at once both
/// land; a holder stopped for over 10 s fails the change, naming its pid.
/// Thread: any, one instance per thread.
class PlaintextSecretFile
{
public:
    explicit PlaintextSecretFile(QString path);

    SecretResult read(const QString &key) const;
    SecretResult write(const QString &key, const QByteArray &value);
    SecretResult remove(const QString &key);

    QString path() const { return m_path; }

private:
    QString m_path;
};

} // namespace opsdeck::secrets
