#pragma once

#include <QProcess>
#include <QStringList>
#include <QTemporaryDir>
#include <chrono>

namespace opsdeck::test {

/// A real Prometheus server (Debian's /usr/bin/prometheus) for one test, on
/// 127.0.0.1 and a free port, with its own config file (global
/// scrape_interval and evaluation_interval 1 s, one job `opsdeck` whose
/// static targets are given as host:port) and its own TSDB in a temporary
/// directory. start() waits for /-/ready; the destructor stops it (SIGTERM,
/// then SIGKILL after a bounded wait) and removes the directory.
/// Thread: the test's thread (Qt events are processed while waiting).
class PrometheusProcess
{
public:
    PrometheusProcess() = default;
    PrometheusProcess(const PrometheusProcess &) = delete;
    PrometheusProcess &operator=(const PrometheusProcess &) = delete;
    ~PrometheusProcess();

    /// Returns false, with the reason and Prometheus' log in errorText(), when
    /// it did not answer 200 on /-/ready before `deadline` (a port taken in
    /// the meantime is retried on another free port, up to 3 times).
    bool start(const QStringList &targets,
               std::chrono::milliseconds deadline = std::chrono::seconds(30));
    /// SIGTERM, wait up to `deadline`, then SIGKILL; returns its exit code (-1 when killed).
    int stop(std::chrono::milliseconds deadline = std::chrono::seconds(10));

    int port() const { return m_port; }
    /// `http://127.0.0.1:PORT`.
    QString url() const;
    /// What went wrong, and everything Prometheus logged so far.
    QString errorText();

private:
    bool startOnce(const QStringList &targets, std::chrono::milliseconds deadline);
    bool ready();

    QTemporaryDir m_dir;
    QProcess m_process;
    QByteArray m_log;
    QString m_reason;
    int m_port = 0;
};

} // namespace opsdeck::test
