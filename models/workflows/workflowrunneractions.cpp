// The actions of WorkflowRunner's leaves: stop, start, the waits, the HTTP
// checks and the staged verification.
#include "knobfiles.h"
#include "managedprocess.h"
#include "probeengine.h"
#include "workerthread.h"
#include "workflowrunner.h"
#include "workflowrunnerleaf.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace opsdeck::workflows {

QString seen(const probes::ProbeResult &result)
{
    return result.status > 0
               ? QStringLiteral("HTTP %1").arg(result.status)
               : (result.error.isEmpty() ? QStringLiteral("no answer") : result.error);
}

QUrl workerUrl(const inventory::Service &router, const QString &id)
{
    // The id as one path segment, every reserved character encoded (a URL's
    // "/" and ":" too), kept encoded: never a path that leaves /workers/.
    return QUrl::fromEncoded(router.urlWithPath(QStringLiteral("/workers/")).toEncoded() +
                                 QUrl::toPercentEncoding(id),
                             QUrl::StrictMode);
}

bool sameEndpoint(const QUrl &a, const QUrl &b)
{
    const auto path = [](const QUrl &url) {
        const QString p = url.path(QUrl::FullyDecoded);
        return p.endsWith(u'/') ? p.chopped(1) : p;
    };
    return a.scheme() == b.scheme() && a.host() == b.host() && a.port() == b.port() &&
           path(a) == path(b);
}

namespace {

using inventory::Service;

// The router's /workers entry for `worker` (by port, else the only one of its type).
QJsonObject workerEntry(const QByteArray &workersJson, const QUrl &worker, const QString &type)
{
    const QJsonArray workers =
        QJsonDocument::fromJson(workersJson).object().value(QStringLiteral("workers")).toArray();
    QJsonObject only;
    int ofType = 0;
    for (const QJsonValue &value : workers) {
        const QJsonObject entry = value.toObject();
        if (entry.value(QStringLiteral("worker_type")).toString() != type)
            continue;
        ++ofType;
        only = entry;
        if (QUrl(entry.value(QStringLiteral("url")).toString()).port() == worker.port())
            return entry;
    }
    return ofType == 1 ? only : QJsonObject();
}

} // namespace

void WorkflowRunner::repeat(const std::shared_ptr<Leaf> &leaf, std::function<void()> poll)
{
    auto *timer = new QTimer(this);
    connect(timer, &QTimer::timeout, this, [leaf, poll] {
        if (!leaf->ended && !leaf->busy)
            poll();
    });
    auto previous = leaf->cancelAction;
    leaf->cancelAction = [timer, previous] {
        timer->stop();
        timer->deleteLater();
        if (previous)
            previous();
    };
    timer->start(m_context.pollIntervalMs);
    poll();
}

void WorkflowRunner::say(const std::shared_ptr<Leaf> &leaf, const QString &line)
{
    leaf->output << line;
    Q_EMIT stepOutput(leaf->step->n, line);
}

void WorkflowRunner::getAll(const std::shared_ptr<Leaf> &leaf, const QVector<QUrl> &urls,
                            std::function<void(const QVector<probes::ProbeResult> &)> then)
{
    auto results = std::make_shared<QVector<probes::ProbeResult>>(urls.size());
    auto remaining = std::make_shared<int>(int(urls.size()));
    const QPointer<WorkflowRunner> self(this);
    leaf->busy = true;
    for (int i = 0; i < urls.size(); ++i) {
        probes::ProbeRequest request;
        request.url = urls.at(i);
        request.timeoutMs = 5000;
        m_context.engine->submit(
            request, [self, leaf, results, remaining, i, then](const probes::ProbeResult &result) {
                // On the engine's thread: carried to the runner's.
                QMetaObject::invokeMethod(
                    self.data(),
                    [self, leaf, results, remaining, i, then, result] {
                        if (!self)
                            return;
                        (*results)[i] = result;
                        if (--*remaining > 0)
                            return;
                        leaf->busy = false;
                        if (!leaf->ended)
                            then(*results);
                    },
                    Qt::QueuedConnection);
            });
    }
}

processes::ProcessControl *
WorkflowRunner::processControl(const std::shared_ptr<Leaf> &leaf,
                               const processes::ProcessControl::Settings &settings)
{
    auto *control = new processes::ProcessControl(m_context.transportFor, this);
    control->setSettings(settings);
    connect(control, &processes::ProcessControl::progressed, this,
            [this, leaf](const QString &line) { say(leaf, line); });
    leaf->cancelAction = [control] { control->deleteLater(); };
    return control;
}

void WorkflowRunner::stopService(const std::shared_ptr<Leaf> &leaf)
{
    const processes::ManagedProcess process =
        processes::ManagedProcess::fromService(*leaf->service);
    processes::ProcessControl::Settings settings;
    const int killAfter =
        leaf->step->killAfterS > 0 ? leaf->step->killAfterS : leaf->step->deadlineS;
    settings.stopGrace = std::chrono::seconds(std::max(1, killAfter));
    settings.killGrace = std::chrono::seconds(std::max(1, leaf->step->deadlineS - killAfter));
    processes::ProcessControl *control = processControl(leaf, settings);
    connect(control, &processes::ProcessControl::stopFinished, this,
            [this, leaf](bool ok, const QString &message) { endLeaf(leaf, ok, message); });
    control->stopAll({process});
}

void WorkflowRunner::startService(const std::shared_ptr<Leaf> &leaf)
{
    const processes::ManagedProcess process =
        processes::ManagedProcess::fromService(*leaf->service);
    processes::ProcessControl::Settings settings;
    settings.commandDeadline = std::chrono::seconds(std::max(1, leaf->step->deadlineS));
    processes::ProcessControl *control = processControl(leaf, settings);
    connect(control, &processes::ProcessControl::startFinished, this,
            [this, leaf](bool ok, const QString &message) {
                endLeaf(leaf, ok, ok ? QStringLiteral("started") : message);
            });
    // Run again (a resume after the console died mid-step), a start must not
    // launch a second server over the one that runs: its pid file would then
    // name the one that failed, and the live one could no longer be stopped.
    connect(control, &processes::ProcessControl::runningChecked, this,
            [this, leaf, control, process](const QStringList &notRunning,
                                           const QStringList &unanswered) {
                if (leaf->ended)
                    return;
                // No answer is not "it runs": a start skipped on it would
                // leave the service down with the step passed.
                if (!unanswered.isEmpty())
                    return endLeaf(leaf, false,
                                   QStringLiteral("cannot tell whether %1 runs on host %2: its "
                                                  "status command gave no answer (%3): not started")
                                       .arg(process.name, process.host,
                                            unanswered.first().mid(process.name.size() + 2)));
                if (!notRunning.contains(process.name))
                    return endLeaf(leaf, true,
                                   QStringLiteral("already running (its pid file's process, "
                                                  "checked against its identity): not started "
                                                  "again"));
                control->startAll({process});
            });
    control->checkRunning({process});
}

void WorkflowRunner::waitExited(const std::shared_ptr<Leaf> &leaf)
{
    remote::Transport *transport = m_context.transportFor(leaf->service->host);
    if (!transport)
        return endLeaf(leaf, false,
                       QStringLiteral("host %1 cannot be reached").arg(leaf->service->host));
    const int port = leaf->service->hostPort();
    remote::CommandRequest request;
    request.script = processes::ManagedProcess::portFunctions() +
                     QStringLiteral("[ -z \"$(opsdeck_listeners %1)\" ]\n").arg(port);
    request.deadline = std::chrono::seconds(10);
    const QPointer<remote::Transport> host(transport);
    auto pending = std::make_shared<quint64>(0);
    const QMetaObject::Connection answered = connect(
        transport, &remote::Transport::commandFinished, this,
        [this, leaf, pending, port](quint64 id, const remote::CommandResult &result) {
            if (id != *pending || leaf->ended)
                return;
            leaf->busy = false;
            if (result.succeeded())
                return endLeaf(leaf, true,
                               QStringLiteral("nothing listens on port %1 any more").arg(port));
            const QString seen = result.outcome == remote::CommandResult::Outcome::Exited
                                     ? QStringLiteral("port %1 still open").arg(port)
                                     : result.describeWithReason();
            // A lost connection is said once, not at every poll: a read-only
            // poll is asked again over the next connection.
            if (seen != leaf->lastSeen && result.outcome != remote::CommandResult::Outcome::Exited)
                say(leaf, seen + QStringLiteral("; asking again"));
            leaf->lastSeen = seen;
        });
    leaf->cancelAction = [this, answered] { disconnect(answered); };
    repeat(leaf, [leaf, host, request, pending] {
        if (!host)
            return;
        leaf->busy = true;
        *pending = host->run(request);
    });
}

void WorkflowRunner::waitHealthy(const std::shared_ptr<Leaf> &leaf)
{
    const Service &service = *leaf->service;
    // Every few polls: is the process still there? A server that died while
    // loading must fail the step now, not at its deadline.
    const processes::ManagedProcess process = processes::ManagedProcess::fromService(service);
    remote::Transport *transport = m_context.transportFor(service.host);
    auto polls = std::make_shared<int>(0);
    auto pending = std::make_shared<quint64>(0);
    if (transport && !process.status.isEmpty()) {
        const QMetaObject::Connection answered = connect(
            transport, &remote::Transport::commandFinished, this,
            [this, leaf, pending, service](quint64 id, const remote::CommandResult &result) {
                if (id != *pending || leaf->ended)
                    return;
                if (result.outcome == remote::CommandResult::Outcome::Exited &&
                    result.exitCode != 0)
                    endLeaf(leaf, false,
                            QStringLiteral("%1 is not running any more (its status command "
                                           "exited %2)%3")
                                .arg(service.name)
                                .arg(result.exitCode)
                                .arg(service.log.isEmpty()
                                         ? QString()
                                         : QStringLiteral(": see its log %1 on %2")
                                               .arg(service.log, service.host)));
            });
        leaf->cancelAction = [this, answered] { disconnect(answered); };
    }
    const QPointer<remote::Transport> host(transport);
    repeat(leaf, [this, leaf, service, host, process, polls, pending] {
        if (host && !process.status.isEmpty() && ++*polls % 8 == 0) {
            remote::CommandRequest status;
            status.script = process.status;
            status.deadline = std::chrono::seconds(10);
            *pending = host->run(status);
        }
        getAll(leaf, {service.healthUrl()},
               [this, leaf, service](const QVector<probes::ProbeResult> &r) {
                   if (r.first().status == 200)
                       return confirmServing(
                           leaf, service,
                           QStringLiteral("healthy (HTTP 200) after %1 s")
                               .arg(double(leaf->clock.elapsed()) / 1000.0, 0, 'f', 1));
                   leaf->lastSeen = seen(r.first());
               });
    });
}

const Service *WorkflowRunner::clusterRouter(const std::shared_ptr<Leaf> &leaf)
{
    const inventory::Cluster *cluster = m_context.inventory.cluster(m_plan.cluster);
    const Service *router = cluster ? m_context.inventory.service(cluster->router) : nullptr;
    if (!router)
        endLeaf(leaf, false, QStringLiteral("cluster %1 has no router").arg(m_plan.cluster));
    return router;
}

void WorkflowRunner::checkBootstrap(const std::shared_ptr<Leaf> &leaf, bool waitForHealth)
{
    const Service *router = clusterRouter(leaf);
    if (!router)
        return;
    QVector<const Service *> prefills;
    if (waitForHealth) {
        prefills << leaf->service;
    } else {
        for (const QString &name : m_context.inventory.cluster(m_plan.cluster)->prefill)
            prefills << m_context.inventory.service(name);
    }
    QVector<QUrl> urls{router->urlWithPath(QStringLiteral("/workers"))};
    for (const Service *prefill : prefills) {
        urls << prefill->urlWithPath(QStringLiteral("/server_info"));
        if (waitForHealth)
            urls << prefill->healthUrl();
    }
    auto check = [this, leaf, urls, prefills, waitForHealth, router] {
        getAll(
            leaf, urls,
            [this, leaf, prefills, waitForHealth, router](const QVector<probes::ProbeResult> &r) {
                const probes::ProbeResult &workers = r.first();
                QStringList problems, fine;
                if (workers.status != 200) {
                    // Before a co-restart a service that is down is what is
                    // being fixed: only a port that answers wrong fails it.
                    if (!waitForHealth)
                        return endLeaf(leaf, true,
                                       QStringLiteral("not checked: %1 /workers: %2 (its "
                                                      "readiness is waited for later)")
                                           .arg(router->name, seen(workers)));
                    problems << QStringLiteral("%1 /workers: %2").arg(router->name, seen(workers));
                }
                for (int i = 0; i < prefills.size() && problems.isEmpty(); ++i) {
                    const Service &prefill = *prefills.at(i);
                    const probes::ProbeResult &info = r.at(1 + i * (waitForHealth ? 2 : 1));
                    if (waitForHealth && r.at(2 + i * 2).status != 200) {
                        problems << QStringLiteral("%1 health: %2")
                                        .arg(prefill.name, seen(r.at(2 + i * 2)));
                        continue;
                    }
                    if (info.status != 200 && !waitForHealth) {
                        fine << QStringLiteral("%1 does not answer /server_info (%2): checked "
                                               "again once it is started")
                                    .arg(prefill.name, seen(info));
                        continue;
                    }
                    if (info.status != 200) {
                        problems
                            << QStringLiteral("%1 /server_info: %2").arg(prefill.name, seen(info));
                        continue;
                    }
                    const QJsonValue reported = QJsonDocument::fromJson(info.body).object().value(
                        QStringLiteral("disaggregation_bootstrap_port"));
                    const QJsonObject entry =
                        workerEntry(workers.body, prefill.url, QStringLiteral("prefill"));
                    if (entry.isEmpty()) {
                        problems << QStringLiteral("%1 does not list prefill %2 in /workers")
                                        .arg(router->name, prefill.name);
                        continue;
                    }
                    const QJsonValue expected = entry.value(QStringLiteral("bootstrap_port"));
                    if (expected.isNull() || expected.isUndefined()) {
                        fine << QStringLiteral("%1: the router learns its bootstrap port (%2) from "
                                               "/server_info")
                                    .arg(prefill.name)
                                    .arg(reported.toInt());
                    } else if (reported.toInt() != expected.toInt()) {
                        problems << QStringLiteral("%1 was given bootstrap port %2 for %3, which "
                                                   "reports %4 in /server_info")
                                        .arg(router->name)
                                        .arg(expected.toInt())
                                        .arg(prefill.name)
                                        .arg(reported.isUndefined()
                                                 ? QStringLiteral("none")
                                                 : QString::number(reported.toInt()));
                    } else {
                        fine << QStringLiteral("%1: bootstrap port %2 as the router expects")
                                    .arg(prefill.name)
                                    .arg(reported.toInt());
                    }
                }
                if (problems.isEmpty())
                    return waitForHealth ? confirmServing(leaf, *prefills.first(),
                                                          fine.join(QStringLiteral("; ")))
                                         : endLeaf(leaf, true, fine.join(QStringLiteral("; ")));
                leaf->lastSeen = problems.join(QStringLiteral("; "));
                if (!waitForHealth)
                    endLeaf(leaf, false, leaf->lastSeen);
            });
    };
    if (waitForHealth)
        repeat(leaf, check);
    else
        check();
}

void WorkflowRunner::waitRouterReady(const std::shared_ptr<Leaf> &leaf)
{
    const Service *router = clusterRouter(leaf);
    if (!router)
        return;
    const QVector<QUrl> urls{router->urlWithPath(QStringLiteral("/readiness")),
                             router->urlWithPath(QStringLiteral("/workers"))};
    repeat(leaf, [this, leaf, urls, router] {
        getAll(leaf, urls, [this, leaf, router](const QVector<probes::ProbeResult> &r) {
            QStringList unhealthy;
            const QJsonArray workers = QJsonDocument::fromJson(r.at(1).body)
                                           .object()
                                           .value(QStringLiteral("workers"))
                                           .toArray();
            for (const QJsonValue &worker : workers) {
                const QJsonObject w = worker.toObject();
                if (!w.value(QStringLiteral("is_healthy")).toBool())
                    unhealthy << w.value(QStringLiteral("url")).toString();
                // Newer gateways keep a worker that failed enough health checks
                // out for good (readiness stays 503): it comes back only when
                // removed and added again.
                if (w.value(QStringLiteral("status")).toString() == u"failed")
                    reRegister(leaf, *router, w);
            }
            if (r.at(0).status != 200) {
                leaf->lastSeen =
                    QStringLiteral("%1 /readiness: %2").arg(router->name, seen(r.at(0)));
                return;
            }
            if (r.at(1).status != 200 || workers.isEmpty()) {
                leaf->lastSeen = QStringLiteral("%1 /workers: %2").arg(router->name, seen(r.at(1)));
                return;
            }
            if (!unhealthy.isEmpty()) {
                leaf->lastSeen = QStringLiteral("unhealthy in %1 /workers: %2")
                                     .arg(router->name, unhealthy.join(QStringLiteral(", ")));
                return;
            }
            endLeaf(leaf, true,
                    QStringLiteral("%1 ready, %2 workers healthy")
                        .arg(router->name)
                        .arg(workers.size()));
        });
    });
}

void WorkflowRunner::reRegister(const std::shared_ptr<Leaf> &leaf, const Service &router,
                                const QJsonObject &worker)
{
    const QString url = worker.value(QStringLiteral("url")).toString();
    const QString id = worker.value(QStringLiteral("id")).toString(url);
    // Only a worker of this cluster, as the inventory names it: the router's
    // list is not trusted to say what to add back.
    const inventory::Cluster *cluster = m_context.inventory.cluster(m_plan.cluster);
    bool ours = false;
    for (const QString &name : cluster ? cluster->prefill + cluster->decode : QStringList())
        if (const Service *engine = m_context.inventory.service(name))
            ours = ours || (!url.isEmpty() && sameEndpoint(engine->url, QUrl(url)));
    if (!ours || id.isEmpty() || leaf->reRegistered.contains(id))
        return; // once per worker and step; the polls then wait for it
    leaf->reRegistered.insert(id);
    QJsonObject add{{QStringLiteral("url"), url},
                    {QStringLiteral("worker_type"), worker.value(QStringLiteral("worker_type"))}};
    if (worker.value(QStringLiteral("bootstrap_port")).isDouble())
        add.insert(QStringLiteral("bootstrap_port"),
                   worker.value(QStringLiteral("bootstrap_port")));
    probes::ProbeRequest remove;
    remove.kind = probes::ProbeKind::Delete;
    remove.url = workerUrl(router, id);
    remove.timeoutMs = 5000;
    probes::ProbeRequest post;
    post.kind = probes::ProbeKind::Chat; // a POST with a JSON body, answer read whole
    post.url = router.urlWithPath(QStringLiteral("/workers"));
    post.body = QJsonDocument(add).toJson(QJsonDocument::Compact);
    post.timeoutMs = 5000;
    const auto say = [this, leaf](const QString &line) { this->say(leaf, line); };
    say(QStringLiteral("%1 marks %2 failed for good: removing it and adding it again (DELETE %3, "
                       "POST %4 %5)")
            .arg(router.name, id, QString::fromLatin1(remove.url.toEncoded()), post.url.toString(),
                 QString::fromUtf8(post.body)));
    send(leaf, remove, [this, leaf, post, say, id](const probes::ProbeResult &removed) {
        if (!removed.ok() && removed.status != 404)
            return say(
                QStringLiteral("DELETE of %1 failed: %2").arg(id, probes::failureOf(removed)));
        send(leaf, post, [say, id](const probes::ProbeResult &added) {
            say(added.ok()
                    ? QStringLiteral("%1 added again (HTTP %2)").arg(id).arg(added.status)
                    : QStringLiteral("POST of %1 failed: %2").arg(id, probes::failureOf(added)));
        });
    });
}

void WorkflowRunner::send(const std::shared_ptr<Leaf> &leaf, const probes::ProbeRequest &request,
                          std::function<void(const probes::ProbeResult &)> then)
{
    const QPointer<WorkflowRunner> self(this);
    m_context.engine->submit(request, [self, leaf, then](const probes::ProbeResult &result) {
        // On the engine's thread: carried to the runner's.
        QMetaObject::invokeMethod(
            self.data(),
            [self, leaf, then, result] {
                if (self && !leaf->ended)
                    then(result);
            },
            Qt::QueuedConnection);
    });
}

void WorkflowRunner::verify(const std::shared_ptr<Leaf> &leaf)
{
    auto verification = std::make_shared<probes::StagedVerification>(
        *m_context.engine, m_context.inventory, m_plan.cluster, m_context.verification,
        m_context.store);
    const QPointer<WorkflowRunner> self(this);
    const int n = leaf->step->n;
    probes::StagedVerification::Callbacks callbacks;
    callbacks.stageFinished = [self, n](int, const probes::VerificationStage &stage) {
        const QString line =
            QStringLiteral("%1: %2 (%3)")
                .arg(stage.name, stage.passed ? QStringLiteral("passed") : QStringLiteral("FAILED"),
                     stage.detail);
        QMetaObject::invokeMethod(
            self.data(),
            [self, n, line] {
                if (self)
                    Q_EMIT self->stepOutput(n, line);
            },
            Qt::QueuedConnection);
    };
    verification->setCallbacks(callbacks);
    auto thread = std::make_shared<threads::WorkerThread>(
        QStringLiteral("verification"), [self, leaf, verification] {
            const probes::VerificationResult result = verification->run();
            QMetaObject::invokeMethod(
                self.data(),
                [self, leaf, result] {
                    if (!self)
                        return;
                    if (self->m_context.recordVerification)
                        self->m_context.recordVerification(result);
                    QStringList stages;
                    for (const probes::VerificationStage &stage : result.stages) {
                        if (stage.ran)
                            stages << QStringLiteral("%1 %2").arg(
                                stage.name, stage.passed
                                                ? QStringLiteral("passed")
                                                : QStringLiteral("FAILED: ") + stage.detail);
                    }
                    if (!result.error.isEmpty())
                        stages << result.error;
                    self->endLeaf(leaf, result.passed,
                                  stages.join(QStringLiteral("; ")) +
                                      self->afterProxyRestart(result));
                },
                Qt::QueuedConnection);
        });
    // Ended early (deadline, cancel): the run is told to stop, and its thread
    // is joined off this one once it has.
    leaf->cancelAction = [verification, thread] { verification->cancel(); };
    m_verifications.append(thread);
}

void WorkflowRunner::editKnob(const std::shared_ptr<Leaf> &leaf)
{
    const auto edit =
        std::find_if(m_plan.knobEdits.cbegin(), m_plan.knobEdits.cend(),
                     [&](const WorkflowPlan::KnobEdit &e) { return e.n == leaf->step->n; });
    remote::RemoteFiles *files =
        m_context.filesFor ? m_context.filesFor(leaf->service->host) : nullptr;
    remote::Transport *transport = m_context.transportFor(leaf->service->host);
    if (edit == m_plan.knobEdits.cend())
        return endLeaf(leaf, false, QStringLiteral("no planned edit for this step"));
    if (!files || !transport)
        return endLeaf(leaf, false,
                       QStringLiteral("host %1 cannot be reached").arg(leaf->service->host));
    auto *knobFiles = new knobs::KnobFiles(files, transport, this);
    leaf->cancelAction = [knobFiles] { knobFiles->deleteLater(); };
    const QPointer<WorkflowRunner> self(this);
    knobFiles->apply(
        edit->plan,
        // Each of the edit's entries is on disk before the step goes on.
        [self](const knobs::KnobFiles::Plan &plan, const knobs::KnobFiles::Applied &state,
               const QString &action, const knobs::KnobFiles::AuditDone &done) {
            if (!self)
                return done(false, QStringLiteral("the workflow is gone"));
            history::AuditEntry entry = knobs::KnobFiles::auditEntry(plan, state, action);
            entry.workflow = self->m_journal->id();
            self->m_context.audit(entry,
                                  [done](bool ok, const QString &error) { done(ok, error); });
        },
        [this, leaf](const knobs::KnobFiles::Applied &applied) {
            if (!applied.ok)
                return endLeaf(leaf, false, applied.error);
            // Changed, but its "edited" entry not written: the step fails as
            // `knobs set` does, and still names its backup (restore-knob and
            // the rollback find it by this detail).
            const QString recorded =
                QStringLiteral("backup %1 (sha256 %2); the script's sha256 is now %3")
                    .arg(applied.backupPath, QString::fromLatin1(applied.backupSha256),
                         QString::fromLatin1(applied.afterSha256));
            endLeaf(leaf, applied.error.isEmpty(),
                    applied.error.isEmpty() ? recorded : recorded + u"; " + applied.error);
        });
}

void WorkflowRunner::addMarker(const std::shared_ptr<Leaf> &leaf)
{
    if (!m_context.marker)
        return endLeaf(leaf, true, QStringLiteral("no history to mark"));
    history::Marker marker;
    marker.timeMs = QDateTime::currentMSecsSinceEpoch();
    marker.kind = QStringLiteral("workflow");
    marker.text =
        QStringLiteral("%1 (workflow %2)").arg(leaf->step->commands.value(0), m_journal->id());
    marker.service = m_plan.service.isEmpty() ? m_plan.cluster : m_plan.service;
    QString error;
    const std::optional<qint64> id = m_context.marker(marker, &error);
    if (!id)
        return endLeaf(leaf, false, QStringLiteral("the marker was not added: %1").arg(error));
    leaf->markerId = *id;
    endLeaf(leaf, true, QStringLiteral("marker %1").arg(*id));
}

QString WorkflowRunner::afterProxyRestart(const probes::VerificationResult &result) const
{
    if (m_plan.kind != WorkflowKind::RestartProxy)
        return {};
    const inventory::Cluster *cluster = m_context.inventory.cluster(m_plan.cluster);
    const Service *proxy = cluster ? m_context.inventory.service(cluster->proxy) : nullptr;
    if (!proxy)
        return {};
    for (const probes::VerificationStage &stage : result.stages) {
        if (stage.name != u"keep-alive" || !stage.ran)
            continue;
        if (stage.passed)
            return QStringLiteral(". The stall is gone: reused connections through %1 answer")
                .arg(proxy->name);
        return QStringLiteral(". The stall persists after the restart: it is in %1's own "
                              "settings, not in a state a restart clears. Look at its knobs "
                              "(opsdeck-cli knobs read %2 --host %3 --inventory %4) and its log "
                              "(%5)")
            .arg(proxy->name, proxy->serveScript, proxy->host, m_context.inventory.path,
                 proxy->log.isEmpty() ? QStringLiteral("none in the inventory") : proxy->log);
    }
    return {};
}

} // namespace opsdeck::workflows
