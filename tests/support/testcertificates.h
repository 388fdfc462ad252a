#pragma once

#include <QString>
#include <QTemporaryDir>

namespace opsdeck::test {

/// A test CA and server certificates signed by it, made with the openssl CLI
/// in a temporary folder (removed with the object): `ca.pem` (+ `ca.key`),
/// `loopback.pem`/`.key` for IP 127.0.0.1, and `wrong-name.pem`/`.key` for
/// DNS wrong.example (a certificate the CA signed for another name).
class TestCertificates
{
public:
    /// Makes them; false with error() set when openssl failed.
    bool make();
    QString path(const QString &name) const { return m_dir.filePath(name); }
    QString error() const { return m_error; }

private:
    bool server(const QString &name, const QString &altName);
    bool openssl(const QStringList &args);

    QTemporaryDir m_dir;
    QString m_error;
};

} // namespace opsdeck::test
