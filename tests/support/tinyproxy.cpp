#include "tinyproxy.h"

#include "testsupport.h"

#include <QFile>

using namespace Qt::StringLiterals;

namespace opsdeck::test {

Tinyproxy::~Tinyproxy()
{
    m_process.terminate();
    if (!m_process.waitForFinished(5000))
        m_process.kill();
    m_process.waitForFinished(5000);
}

bool Tinyproxy::start()
{
    m_port = freeTcpPort();
    QFile config(m_dir.filePath(u"tinyproxy.conf"_s));
    if (!m_dir.isValid() || !config.open(QIODevice::WriteOnly))
        return false;
    config.write(QStringLiteral("Port %1\nListen 127.0.0.1\nTimeout 30\nLogFile \"%2\"\n"
                                "LogLevel Info\nMaxClients 16\nAllow 127.0.0.1\n")
                     .arg(m_port)
                     .arg(logPath())
                     .toUtf8());
    config.close();
    m_process.start(u"tinyproxy"_s, {u"-d"_s, u"-c"_s, config.fileName()});
    return waitUntil([this] { return log().contains("Accepting connections"); },
                     std::chrono::seconds(10));
}

QUrl Tinyproxy::url() const
{
    return QUrl(u"http://127.0.0.1:%1"_s.arg(m_port));
}

QByteArray Tinyproxy::log() const
{
    QFile file(logPath());
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

QString Tinyproxy::logPath() const
{
    return m_dir.filePath(u"tinyproxy.log"_s);
}

} // namespace opsdeck::test
