#include "nginxprocess.h"

#include "testsupport.h"

#include <QDir>
#include <QFile>
#include <QTcpSocket>

using namespace Qt::StringLiterals;

namespace opsdeck::test {

namespace {

// Debian's nginx lives in /usr/sbin, which a test's PATH may leave out.
QString nginxProgram()
{
    return QFile::exists(u"/usr/sbin/nginx"_s) ? u"/usr/sbin/nginx"_s : u"nginx"_s;
}

} // namespace

NginxProcess::~NginxProcess()
{
    m_process.terminate();
    if (!m_process.waitForFinished(5000))
        m_process.kill();
    m_process.waitForFinished(5000);
}

bool NginxProcess::start(const QUrl &upstream, int readTimeoutS)
{
    m_port = freeTcpPort();
    const QString prefix = m_dir.path();
    QDir(prefix).mkpath(u"logs"_s);
    QFile config(m_dir.filePath(u"nginx.conf"_s));
    if (!m_dir.isValid() || !config.open(QIODevice::WriteOnly))
        return false;
    // Temp paths inside the prefix: the default ones under /var/lib/nginx
    // need root and are shared with a system nginx.
    config.write(
        QStringLiteral("daemon off;\nmaster_process off;\nworker_processes 1;\npid %1/nginx.pid;\n"
                       "error_log %1/logs/error.log info;\n"
                       "events { worker_connections 64; }\n"
                       "http {\n"
                       "  access_log %1/logs/access.log;\n"
                       "  client_body_temp_path %1/body; proxy_temp_path %1/proxy;\n"
                       "  fastcgi_temp_path %1/fastcgi; uwsgi_temp_path %1/uwsgi; "
                       "scgi_temp_path %1/scgi;\n"
                       "  upstream router { server %2:%3; keepalive 8; }\n"
                       "  server {\n"
                       "    listen 127.0.0.1:%4;\n"
                       "    location / {\n"
                       "      proxy_pass http://router;\n"
                       "      proxy_http_version 1.1;\n"
                       "      proxy_set_header Connection \"\";\n"
                       "      proxy_buffering off;\n"
                       "      proxy_read_timeout %5s;\n"
                       "    }\n"
                       "  }\n"
                       "}\n")
            .arg(prefix, upstream.host())
            .arg(upstream.port())
            .arg(m_port)
            .arg(readTimeoutS)
            .toUtf8());
    config.close();
    m_process.setProcessChannelMode(QProcess::MergedChannels);
    m_process.start(nginxProgram(), {u"-p"_s, prefix, u"-c"_s, config.fileName()});
    if (!m_process.waitForStarted(5000))
        return false;
    return waitUntil(
               [this] {
                   if (m_process.state() != QProcess::Running)
                       return true; // exited: fail below, with its log
                   QTcpSocket socket;
                   socket.connectToHost(u"127.0.0.1"_s, quint16(m_port));
                   return socket.waitForConnected(200);
               },
               std::chrono::seconds(10)) &&
           m_process.state() == QProcess::Running;
}

QUrl NginxProcess::url() const
{
    return QUrl(u"http://127.0.0.1:%1"_s.arg(m_port));
}

QByteArray NginxProcess::log()
{
    QFile error(m_dir.filePath(u"logs/error.log"_s));
    return m_process.readAll() + (error.open(QIODevice::ReadOnly) ? error.readAll() : QByteArray());
}

} // namespace opsdeck::test
