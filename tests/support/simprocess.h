#pragma once

#include <QProcess>
#include <QProcessEnvironment>
#include <QStringList>
#include <QVector>
#include <chrono>

class QNetworkAccessManager;
class QNetworkReply;

namespace opsdeck::test {

/// One opsdeck-sim process for a test. start() launches it with `args`
/// (add `--port 0` to let the sim pick a free port) and waits until it logs
/// its "listening on http://HOST:PORT" line; the destructor sends SIGTERM and
/// then SIGKILL after a deadline, so no test leaves a process behind.
class SimProcess
{
public:
    SimProcess() = default;
    SimProcess(const SimProcess &) = delete;
    SimProcess &operator=(const SimProcess &) = delete;
    ~SimProcess();

    /// Returns false (with the sim's stderr in errorText()) when the sim did
    /// not report listening before `deadline`.
    bool start(const QStringList &args,
               const QProcessEnvironment &env = QProcessEnvironment::systemEnvironment(),
               std::chrono::milliseconds deadline = std::chrono::seconds(15));
    /// Sends SIGTERM and waits for the exit; returns the exit code (-1 when killed).
    int stop(std::chrono::milliseconds deadline = std::chrono::seconds(10));

    /// Port the sim's main server listens on (from its log line).
    int port() const { return m_port; }
    /// Port of a side server announced as "<what> listening on http://HOST:PORT"
    /// after the main line (the router's "metrics"); 0 when not logged.
    int sidePort(const QString &what);
    /// `http://127.0.0.1:PORT`.
    QString url() const;
    qint64 pid() const { return m_process.processId(); }
    /// Everything the sim wrote to stderr so far.
    QString errorText();

private:
    QProcess m_process;
    QByteArray m_stderr;
    int m_port = 0;
};

/// Arguments for a sim of `role` (engine, prefill, decode...) on a port it
/// picks, ready at once (`--ready-delay 0`), followed by `extra`.
QStringList simArgs(const QString &role, const QStringList &extra = {});
/// An engine whose scheduler queues every request and never runs one
/// (`--fault scheduler-stuck`): waiting grows, running stays 0.
QStringList stuckEngineArgs();
/// Inventory YAML of one host `local` and one service `engine` at `engine`'s
/// URL, then `alerts` (by default no end-to-end probes: nothing answers chat
/// through a router) and `extra` lines.
QString engineInventory(const SimProcess &engine, const QString &extra = {},
                        const QString &alerts = QStringLiteral("alerts: {e2e_interval_s: 0}\n"));
/// Sends `count` small chat completions (max_tokens 4, not streamed) to
/// `sim` through `network`; the replies belong to the caller. A stuck
/// scheduler queues them until they are aborted.
QVector<QNetworkReply *> sendChats(QNetworkAccessManager &network, const SimProcess &sim,
                                   int count);

} // namespace opsdeck::test
