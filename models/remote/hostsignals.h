#pragma once

#include "hostsignalssample.h"
#include "serviceprocessquery.h"
#include "transport.h"

#include <QObject>
#include <QPointer>
#include <QProcessEnvironment>
#include <QTimer>
#include <chrono>

namespace opsdeck::remote {

/// Polls one host for its GPU and serving-process signals: every interval
/// (default 5 s) it runs ONE short bash script (HostSignalsScript) through the
/// host's Transport, never more than one at a time (SshTransport runs one
/// command at a time per host, so a slow poll must not queue others behind
/// it: a poll due while one runs is skipped). Each poll is bounded by a
/// deadline (default 10 s; nvidia-smi itself gets half of it, at least 1 s).
///
/// Results arrive as sampled(): GPUs (utilization %, memory MiB, temperature
/// C, power W), or "no nvidia-smi on <host>", or nvidia-smi's error; the
/// processes of each service (pid, absolute start time UTC, RSS bytes, notes
/// such as "old process 99 still running"); the time of the sample. A poll that
/// fails as a whole (timeout, SSH down, unknown result) gives a sample whose
/// `error` names the host and why.
///
/// Thread: GUI thread (or any thread with an event loop, the transport's);
/// never blocks: Transport::run + commandFinished. The transport is not owned
/// and may be deleted first (polling then stops).
class HostSignals : public QObject
{
    Q_OBJECT
public:
    HostSignals(Transport *transport, QVector<ServiceProcessQuery> services,
                QObject *parent = nullptr);
    /// Cancels a poll still running.
    ~HostSignals() override;

    QString hostName() const;
    const QVector<ServiceProcessQuery> &services() const { return m_services; }

    /// Time between polls, ms (default 5000). Takes effect at the next poll.
    void setInterval(std::chrono::milliseconds interval);
    std::chrono::milliseconds interval() const;
    /// Deadline of one poll, ms (default 10000): the script is killed after it.
    void setDeadline(std::chrono::milliseconds deadline) { m_deadline = deadline; }
    /// Added to the poll command's environment (CommandRequest::environment);
    /// tests put a fake nvidia-smi first on PATH with it.
    void setEnvironment(const QProcessEnvironment &environment) { m_environment = environment; }
    /// The `--query-gpu` fields asked for (default NvidiaSmiCsv::defaultFields());
    /// unknown ones are read and ignored.
    void setGpuFields(const QStringList &fields) { m_gpuFields = fields; }

    /// Polls now, then every interval.
    void start();
    void stop();
    bool isActive() const { return m_timer.isActive(); }
    /// Polls now unless a poll is running. Returns false when one was running.
    bool pollNow();

    /// The last sample (GpuState::Unknown and no services before the first).
    const HostSignalsSample &latest() const { return m_latest; }

Q_SIGNALS:
    void sampled(const opsdeck::remote::HostSignalsSample &sample);

private:
    void finished(quint64 id, const CommandResult &result);
    int nvidiaSmiTimeoutS() const;

    QPointer<Transport> m_transport;
    QString m_hostName;
    QVector<ServiceProcessQuery> m_services;
    QTimer m_timer;
    std::chrono::milliseconds m_deadline = std::chrono::seconds(10);
    QProcessEnvironment m_environment;
    QStringList m_gpuFields;
    quint64 m_running = 0; ///< id of the poll in flight, 0 when none
    HostSignalsSample m_latest;
};

} // namespace opsdeck::remote
