#pragma once

#include <QByteArray>
#include <QProcess>
#include <QTemporaryDir>
#include <QUrl>

namespace opsdeck::test {

/// A real tinyproxy (Debian package `tinyproxy`) on a free loopback port,
/// with its own config and log in a temporary folder; stopped (SIGTERM, then
/// SIGKILL) by the destructor.
class Tinyproxy
{
public:
    ~Tinyproxy();
    /// Starts it and waits (10 s at most) until its log says it accepts connections.
    bool start();
    /// `http://127.0.0.1:PORT`, the forward proxy URL.
    QUrl url() const;
    /// Its log so far (one line per request at LogLevel Info).
    QByteArray log() const;

private:
    QString logPath() const;
    QTemporaryDir m_dir;
    QProcess m_process;
    int m_port = 0;
};

} // namespace opsdeck::test
