// ProbeLab's worker threads: probe rounds and checks. They touch only their
// arguments and the (thread-safe) engine; results reach the lab through
// queued calls, so the GUI thread never waits on a probe or the keychain.
#include "batchcheck.h"
#include "checkhistory.h"
#include "historystore.h"
#include "probeengine.h"
#include "probelab.h"
#include "probelabjob.h"
#include "proberounds.h"
#include "secretstore.h"
#include "stagedverification.h"

#include <QDateTime>
#include <spdlog/spdlog.h>

using namespace Qt::StringLiterals;

namespace opsdeck::probes {

namespace {

/// The request that reproduces `result`, built from the path's settings.
/// The API key is replaced by a placeholder: the GUI never holds a secret,
/// and curlCommandFor() reads the key from $OPSDECK_API_KEY anyway.
ProbeRequest requestFor(const ProbeRequestFactory &factory, const ProbeResult &result,
                        const QString &model, int timeoutMs)
{
    ProbeRequest request =
        result.kind == ProbeKind::Get
            ? factory.health(result.mode)
            : factory.chat(result.mode, model, result.kind == ProbeKind::ChatStream);
    request.url = result.url; // health or /v1/models
    request.timeoutMs = timeoutMs;
    request.label = result.label;
    if (!request.apiKey.isEmpty())
        request.apiKey = QByteArrayLiteral("(in the keychain)");
    return request;
}

/// Adds `marker` to the database at `databasePath` (opened on this thread).
bool addMarker(const QString &databasePath, const history::Marker &marker)
{
    if (databasePath.isEmpty())
        return false;
    QString error;
    if (history::HistoryStore::addMarkerTo(databasePath, marker, &error))
        return true;
    spdlog::error("probe lab: marker not saved: {}", error.toStdString());
    return false;
}

secrets::SecretStore *storeFor(const inventory::Inventory &inventory, const QString &clusterName)
{
    const inventory::Cluster *cluster = inventory.cluster(clusterName);
    if (!cluster)
        return nullptr;
    for (const QString &name :
         cluster->prefill + cluster->decode + QStringList{cluster->router, cluster->proxy})
        if (const auto *service = inventory.service(name);
            service && !service->http.apiKeySecret.isEmpty())
            return &secrets::SecretStore::shared();
    return nullptr;
}

} // namespace

void ProbeLab::runRounds(const std::shared_ptr<Job> &job, const Settings &settings,
                         const QVector<ProbePath> &paths, const QString &databasePath)
{
    QVector<ProbeRequestFactory> factories = ProbeRequestFactory::forPaths(paths);
    for (qsizetype i = 0; i < factories.size(); ++i)
        if (!factories[i].problem().isEmpty())
            QMetaObject::invokeMethod(
                this, [this, text = factories[i].problem()] { Q_EMIT problemReported(text); },
                Qt::QueuedConnection);
    ProbeRounds::Settings roundSettings;
    roundSettings.rounds = settings.rounds;
    roundSettings.idleGapS = settings.idleGapS;
    roundSettings.timeoutMs = settings.timeoutMs;
    const int timeoutMs = settings.timeoutMs > 0 ? settings.timeoutMs
                                                 : ProbeRounds::defaultTimeoutMs(settings.idleGapS);
    ProbeRounds rounds(*m_engine, factories, roundSettings);
    rounds.setResultCallback([&](int round, int pathIndex, const ProbeResult &result) {
        ProbeRow row;
        row.round = round;
        row.pathName = paths.value(pathIndex).name;
        row.result = result;
        row.result.body.clear(); // the table shows timings, not answers
        if (pathIndex >= 0 && pathIndex < factories.size())
            row.request = requestFor(factories[pathIndex], result, rounds.model(), timeoutMs);
        QMetaObject::invokeMethod(
            this, [this, round, pathIndex, row] { noteResult(round, pathIndex, row); },
            Qt::QueuedConnection);
    });
    bool reported = false;
    rounds.setRoundCallback([&](int round, const StallDiagnoser &diagnoser) {
        QMetaObject::invokeMethod(
            this,
            [this, round] {
                m_roundsDone = round;
                Q_EMIT roundFinished(round, m_settings.rounds);
            },
            Qt::QueuedConnection);
        const std::optional<Diagnosis> diagnosis = diagnoser.diagnosis();
        if (!diagnosis || reported)
            return;
        reported = true;
        history::Marker marker;
        marker.timeMs = diagnosis->lastStallMs > 0 ? diagnosis->lastStallMs
                                                   : QDateTime::currentMSecsSinceEpoch();
        marker.kind = QStringLiteral("diagnosis");
        marker.text = diagnosis->headline();
        marker.service = diagnosis->hop;
        const bool recorded = addMarker(databasePath, marker);
        QMetaObject::invokeMethod(
            this, [this, d = *diagnosis, recorded] { noteDiagnosis(d, recorded); },
            Qt::QueuedConnection);
        // How long the stall really lasts: one reused probe with a long
        // deadline (Stop cancels it); the rounds go on after it.
        Diagnosis measured = *diagnosis;
        rounds.measureStall(measured, settings.measureStallS);
        if (measured.stallS < 0 && measured.stallLowerBoundS < 0)
            return;
        marker.timeMs = QDateTime::currentMSecsSinceEpoch();
        marker.text = measured.markerText();
        const bool measuredRecorded = addMarker(databasePath, marker);
        QMetaObject::invokeMethod(
            this, [this, measured, measuredRecorded] { noteDiagnosis(measured, measuredRecorded); },
            Qt::QueuedConnection);
    });
    if (job->attach([&rounds] { rounds.stop(); })) {
        rounds.run();
        job->detach();
    }
    for (ProbeRequestFactory &factory : factories)
        factory.wipe();
    QMetaObject::invokeMethod(
        this,
        [this] {
            m_probing = false;
            Q_EMIT probingChanged(false);
        },
        Qt::QueuedConnection);
}

void ProbeLab::runCheck(const std::shared_ptr<Job> &job, bool verification, int n,
                        const QString &confirmation, const inventory::Inventory &inventory,
                        const QString &cluster, const QString &databasePath)
{
    BatchCheck::Settings batchSettings;
    batchSettings.n = n;
    batchSettings.confirmation = confirmation;
    BatchCheck::Callbacks callbacks;
    callbacks.sampled = [this, job](const RunningSample &sample) {
        qint64 start = job->batchStartMs.load();
        if (start == 0) {
            start = QDateTime::currentMSecsSinceEpoch() - sample.offsetMs;
            job->batchStartMs.store(start);
        }
        QMetaObject::invokeMethod(
            this,
            [this, t = start + sample.offsetMs, running = sample.running] {
                Q_EMIT runningSampled(t, running);
            },
            Qt::QueuedConnection);
    };
    callbacks.requestFinished = [this](const BatchRequestOutcome &, int finished, int total) {
        QMetaObject::invokeMethod(
            this, [this, finished, total] { Q_EMIT batchProgressed(finished, total); },
            Qt::QueuedConnection);
    };
    secrets::SecretStore *store = storeFor(inventory, cluster);
    const auto done = [this] {
        m_checking = false;
        Q_EMIT checkFinished();
    };
    const auto save = [&](const std::function<bool(history::HistoryStore &)> &record) {
        if (databasePath.isEmpty())
            return;
        history::HistoryStore history(databasePath);
        if (history.open() && record(history))
            QMetaObject::invokeMethod(
                this, [this] { Q_EMIT markerAdded(); }, Qt::QueuedConnection);
        else
            spdlog::error("probe lab: check not saved: {}", history.lastError().toStdString());
    };

    // The same ending for either check: run it (cancellable through the job),
    // save what it found, hand the result to the window, free the lab.
    const auto runToEnd = [&](auto &check, const QString &clusterName, const auto &record,
                              const auto &emitResult) {
        decltype(check.run()) result;
        if (job->attach([&check] { check.cancel(); })) {
            result = check.run();
            job->detach();
        } else {
            result.cluster = clusterName;
            result.cancelled = true;
            result.error = QStringLiteral("cancelled");
        }
        if (!result.confirmationRequired)
            save([&](history::HistoryStore &h) { return record(h, result); });
        QMetaObject::invokeMethod(
            this,
            [result, done, emitResult] {
                emitResult(result);
                done();
            },
            Qt::QueuedConnection);
    };

    if (verification) {
        StagedVerification::Settings settings;
        settings.batch = batchSettings;
        StagedVerification check(*m_engine, inventory, cluster, settings, store);
        StagedVerification::Callbacks stageCallbacks;
        stageCallbacks.batch = callbacks;
        stageCallbacks.stageStarted = [this](int index, const VerificationStage &stage) {
            QMetaObject::invokeMethod(
                this, [this, index, stage] { Q_EMIT stageStarted(index, stage); },
                Qt::QueuedConnection);
        };
        stageCallbacks.stageFinished = [this](int index, const VerificationStage &stage) {
            QMetaObject::invokeMethod(
                this, [this, index, stage] { Q_EMIT stageFinished(index, stage); },
                Qt::QueuedConnection);
        };
        check.setCallbacks(stageCallbacks);
        runToEnd(
            check, cluster,
            [&](history::HistoryStore &h, const VerificationResult &result) {
                return history::recordVerification(h, result).has_value();
            },
            [this](const VerificationResult &result) { Q_EMIT verificationFinished(result); });
        return;
    }
    BatchCheck check(*m_engine, inventory, cluster, batchSettings, store);
    check.setCallbacks(callbacks);
    runToEnd(
        check, cluster,
        [&](history::HistoryStore &h, const BatchCheckResult &result) {
            return history::recordBatchCheck(h, result).has_value();
        },
        [this](const BatchCheckResult &result) { Q_EMIT batchFinished(result); });
}

} // namespace opsdeck::probes
