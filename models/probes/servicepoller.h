#pragma once

#include "loadsample.h"
#include "servicestatus.h"

#include <QHash>
#include <QObject>
#include <QVector>

class QNetworkAccessManager;
class QNetworkReply;
class QTimer;

namespace opsdeck::probes {

/// Polls every service's health URL once per interval, and the decode
/// services' batch size (/v1/loads, else /metrics summed over dp ranks).
///
/// Thread: a worker object. Move it to its own thread (PollerThread does)
/// and call its slots through queued connections; it emits compact results
/// (one ServiceStatus per check, one LoadSample per decode poll), never whole
/// pages. A check still in flight is not started again (no pile-up when a
/// service hangs); results of a superseded service list are dropped.
class ServicePoller : public QObject
{
    Q_OBJECT
public:
    struct Settings
    {
        int intervalMs = 1000;                  ///< between checks of one service, ms
        int timeoutMs = 2000;                   ///< whole-request timeout, ms (slow headers count)
        qint64 maxPageBytes = 16 * 1024 * 1024; ///< /metrics pages larger than this are refused
        bool pollDecodeLoad = true; ///< also read decode services' running/waiting requests
        bool logTransitions =
            true; ///< log state changes (the console's poller; not one-off checks)
    };

    explicit ServicePoller(QObject *parent = nullptr);
    ~ServicePoller() override;

public Q_SLOTS:
    /// Replaces the watched services (any thread, via a queued call).
    /// Decode services (role decode or engine) also have their load polled.
    void setServices(const QVector<opsdeck::inventory::Service> &services);
    void setSettings(const opsdeck::probes::ServicePoller::Settings &settings);
    void start();
    void stop();
    /// Runs one round now (health of every service and decode load).
    void pollNow();

Q_SIGNALS:
    void statusChecked(const opsdeck::probes::ServiceStatus &status);
    void loadSampled(const opsdeck::probes::LoadSample &sample);
    /// A decode service's load could not be read (bad page, no gauge...).
    void loadFailed(const QString &service, const QString &reason);

private:
    struct Watched;
    void checkHealth(Watched &watched);
    void pollLoad(Watched &watched);
    void healthAnswered(quint64 generation, const QString &name, QNetworkReply *reply);
    void loadAnswered(quint64 generation, const QString &name, QNetworkReply *reply);
    QNetworkReply *get(const QUrl &url, qint64 maxBytes);
    Watched *find(quint64 generation, const QString &name) const;

    Settings m_settings;
    QNetworkAccessManager *m_network = nullptr;
    QTimer *m_timer = nullptr;
    quint64 m_generation = 0;
    QVector<Watched *> m_watched;
};

} // namespace opsdeck::probes

Q_DECLARE_METATYPE(opsdeck::probes::ServicePoller::Settings)
