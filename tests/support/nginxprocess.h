#pragma once

#include <QByteArray>
#include <QProcess>
#include <QTemporaryDir>
#include <QUrl>

namespace opsdeck::test {

/// A real nginx (Debian package `nginx-light`) as a reverse proxy on a free
/// loopback port in front of one upstream, with its own config, prefix, pid
/// and logs in a temporary folder, in the foreground (`daemon off`); stopped
/// (SIGTERM, then SIGKILL) by the destructor.
///
/// Its upstream block keeps idle connections (`keepalive 8`, HTTP/1.1, no
/// `Connection: close` upstream): the pooling that makes a router's
/// keep-alive stall reach a client on a fresh connection through nginx.
class NginxProcess
{
public:
    ~NginxProcess();
    /// Starts it in front of `upstream` (http://HOST:PORT) and waits (10 s at
    /// most) until its port accepts a connection. `readTimeoutS` is
    /// proxy_read_timeout (nginx answers 504 after it).
    bool start(const QUrl &upstream, int readTimeoutS = 60);
    /// `http://127.0.0.1:PORT`.
    QUrl url() const;
    /// Its error log and stderr so far, for a failed test.
    QByteArray log();

private:
    QTemporaryDir m_dir;
    QProcess m_process;
    int m_port = 0;
};

} // namespace opsdeck::test
