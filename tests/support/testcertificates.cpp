#include "testcertificates.h"

#include <QFile>
#include <QProcess>

using namespace Qt::StringLiterals;

namespace opsdeck::test {

bool TestCertificates::make()
{
    return m_dir.isValid() &&
           openssl({u"req"_s, u"-x509"_s, u"-newkey"_s, u"rsa:2048"_s, u"-nodes"_s, u"-keyout"_s,
                    path(u"ca.key"_s), u"-out"_s, path(u"ca.pem"_s), u"-days"_s, u"2"_s, u"-subj"_s,
                    u"/CN=OpsDeck Test CA"_s}) &&
           server(u"loopback"_s, u"IP:127.0.0.1"_s) &&
           server(u"wrong-name"_s, u"DNS:wrong.example"_s);
}

bool TestCertificates::server(const QString &name, const QString &altName)
{
    QFile ext(path(name + u".ext"_s));
    if (!ext.open(QIODevice::WriteOnly))
        return false;
    ext.write("subjectAltName=" + altName.toLatin1() + '\n');
    ext.close();
    return openssl({u"req"_s, u"-newkey"_s, u"rsa:2048"_s, u"-nodes"_s, u"-keyout"_s,
                    path(name + u".key"_s), u"-out"_s, path(name + u".csr"_s), u"-subj"_s,
                    u"/CN=opsdeck-test"_s}) &&
           openssl({u"x509"_s, u"-req"_s, u"-in"_s, path(name + u".csr"_s), u"-CA"_s,
                    path(u"ca.pem"_s), u"-CAkey"_s, path(u"ca.key"_s), u"-CAcreateserial"_s,
                    u"-out"_s, path(name + u".pem"_s), u"-days"_s, u"2"_s, u"-extfile"_s,
                    ext.fileName()});
}

bool TestCertificates::openssl(const QStringList &args)
{
    QProcess process;
    process.start(u"openssl"_s, args);
    if (process.waitForFinished(60000) && process.exitCode() == 0)
        return true;
    m_error = QString::fromUtf8(process.readAllStandardError());
    return false;
}

} // namespace opsdeck::test
