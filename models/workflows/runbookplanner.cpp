#include "runbookplanner.h"

#include "shellquote.h"

namespace opsdeck::workflows {

namespace {

using Action = WorkflowStep::Action;
using inventory::Role;
using inventory::Service;

QString urlText(const QUrl &url)
{
    return url.toString(QUrl::RemoveUserInfo);
}

WorkflowStep leaf(Action action, const Service &service, QString title, QStringList commands,
                  int deadlineS, QString rollback = {})
{
    WorkflowStep step;
    step.action = action;
    step.service = service.name;
    step.host = service.host;
    step.title = std::move(title);
    step.commands = std::move(commands);
    step.deadlineS = deadlineS;
    step.rollback = std::move(rollback);
    return step;
}

// What names a service's process and files on its host, as the plan was made
// from them: a resume compares them, since its steps' commands do not show
// the pid file or serve script the stop checks.
QJsonObject whatNames(const inventory::Inventory &inventory, const Service &service)
{
    const inventory::Host *host = inventory.host(service.host);
    return {{QStringLiteral("host"), service.host},
            {QStringLiteral("host_kind"), host ? inventory::hostKindName(host->kind) : QString()},
            {QStringLiteral("address"), host ? host->address : QString()},
            {QStringLiteral("port"), host ? host->port : 0},
            {QStringLiteral("user"), host ? host->user : QString()},
            {QStringLiteral("serve_script"), service.serveScript},
            {QStringLiteral("pid_file"), service.pidFile},
            {QStringLiteral("start"), service.start},
            {QStringLiteral("stop"), service.stop},
            {QStringLiteral("status"), service.status},
            {QStringLiteral("url"), service.url.toString()}};
}

struct Builder
{
    const inventory::Inventory &inventory;
    const inventory::Cluster &cluster;
    const RunbookPlanner::Timings &t;
    bool drains = false; ///< engines are drained before they stop

    // A prefill or decode behind the cluster's router, when draining.
    bool drained(const Service &s) const
    {
        return drains && !cluster.router.isEmpty() &&
               (s.role == Role::Prefill || s.role == Role::Decode);
    }

    const Service &service(const QString &name) const { return *inventory.service(name); }

    WorkflowStep stop(const Service &s) const
    {
        const QString command =
            s.stop.isEmpty()
                ? QStringLiteral("kill -TERM \"$(cat %1)\"").arg(shell::singleQuoted(s.pidFile))
                : s.stop;
        WorkflowStep step =
            leaf(Action::Stop, s, QStringLiteral("stop %1 on %2").arg(s.name, s.host),
                 {command,
                  s.pidFile.isEmpty()
                      ? QStringLiteral("after %1 s: failed if its status still says it runs (no "
                                       "pid file: nothing to kill)")
                            .arg(t.stopS + t.killS)
                      : QStringLiteral("after %1 s: kill -KILL the same pid").arg(t.stopS)},
                 t.stopS + t.killS, QStringLiteral("start %1").arg(s.name));
        step.killAfterS = t.stopS;
        return step;
    }
    WorkflowStep drain(const Service &s) const
    {
        const Service &router = service(cluster.router);
        WorkflowStep step =
            leaf(Action::Drain, s, QStringLiteral("drain %1 through %2").arg(s.name, router.name),
                 {QStringLiteral("DELETE %1/{%2, encoded}")
                      .arg(urlText(router.urlWithPath(QStringLiteral("/workers"))), urlText(s.url)),
                  QStringLiteral("GET %1 (else %2) until its running requests are 0 (at most "
                                 "%3 s: then it stops anyway)")
                      .arg(urlText(s.urlWithPath(QStringLiteral("/v1/loads"))),
                           urlText(s.metricsUrl()), QString::number(t.drainS))},
                 t.drainS, QStringLiteral("add %1 back to %2").arg(s.name, router.name));
        step.host.clear();
        // Past the deadline the restart goes on: said, never a reason to stop.
        step.onError = WorkflowStep::OnError::Continue;
        return step;
    }
    WorkflowStep registered(const Service &s) const
    {
        const Service &router = service(cluster.router);
        QStringList commands{
            QStringLiteral("GET %1 until 200")
                .arg(urlText(s.role == Role::Prefill ? s.urlWithPath(QStringLiteral("/server_info"))
                                                     : s.healthUrl()))};
        commands << QStringLiteral("POST %1 {url %2, worker_type %3%4} unless listed")
                        .arg(urlText(router.urlWithPath(QStringLiteral("/workers"))),
                             urlText(s.url), inventory::roleName(s.role),
                             s.role == Role::Prefill
                                 ? QStringLiteral(", bootstrap_port from /server_info")
                                 : QString());
        WorkflowStep step =
            leaf(Action::Register, s, QStringLiteral("add %1 back to %2").arg(s.name, router.name),
                 commands, healthyS(s));
        step.host.clear();
        return step;
    }
    // Start, (added back to the router,) healthy: one engine or service.
    QVector<WorkflowStep> startOf(const Service &s) const
    {
        QVector<WorkflowStep> steps{start(s)};
        if (drained(s))
            steps << registered(s);
        steps << (s.role == Role::Prefill ? bootstrapped(s) : healthy(s));
        return steps;
    }
    WorkflowStep exited(const Service &s) const
    {
        return leaf(Action::WaitExited, s,
                    QStringLiteral("wait until %1 has exited on %2").arg(s.name, s.host),
                    {QStringLiteral("until nothing listens on port %1 (/proc/net/tcp, tcp6)")
                         .arg(s.hostPort())},
                    t.exitedS);
    }
    WorkflowStep start(const Service &s) const
    {
        return leaf(Action::Start, s, QStringLiteral("start %1 on %2").arg(s.name, s.host),
                    {s.start}, t.startS, QStringLiteral("stop %1").arg(s.name));
    }
    int healthyS(const Service &s) const
    {
        return s.role == Role::Router || s.role == Role::Proxy ? t.serviceHealthyS
                                                               : t.engineHealthyS;
    }
    WorkflowStep healthy(const Service &s) const
    {
        return leaf(Action::WaitHealthy, s, QStringLiteral("wait until %1 is healthy").arg(s.name),
                    {QStringLiteral("GET %1 until 200").arg(urlText(s.healthUrl()))}, healthyS(s));
    }
    // A prefill behind a router: healthy, and with the bootstrap port the
    // router was started with (a decode reaches prefill's KV through it).
    WorkflowStep bootstrapped(const Service &prefill) const
    {
        if (cluster.router.isEmpty())
            return healthy(prefill);
        const Service &router = service(cluster.router);
        return leaf(Action::WaitBootstrap, prefill,
                    QStringLiteral("wait until %1 is healthy with the router's bootstrap port")
                        .arg(prefill.name),
                    {QStringLiteral("GET %1 until 200").arg(urlText(prefill.healthUrl())),
                     QStringLiteral("GET %1: disaggregation_bootstrap_port = bootstrap_port of "
                                    "%2 in GET %3")
                         .arg(urlText(prefill.urlWithPath(QStringLiteral("/server_info"))),
                              urlText(prefill.url),
                              urlText(router.urlWithPath(QStringLiteral("/workers"))))},
                    healthyS(prefill));
    }
    WorkflowStep checkBootstrap() const
    {
        const Service &router = service(cluster.router);
        QStringList commands{
            QStringLiteral("GET %1").arg(urlText(router.urlWithPath(QStringLiteral("/workers"))))};
        for (const QString &name : cluster.prefill)
            commands << QStringLiteral("GET %1").arg(
                urlText(service(name).urlWithPath(QStringLiteral("/server_info"))));
        WorkflowStep step =
            leaf(Action::CheckBootstrap, router,
                 QStringLiteral("check the router's prefill bootstrap ports"), commands, t.checkS);
        step.host.clear();
        return step;
    }
    WorkflowStep routerReady() const
    {
        const Service &router = service(cluster.router);
        WorkflowStep step = leaf(
            Action::RouterReady, router,
            QStringLiteral("wait until %1 is ready with every worker healthy").arg(router.name),
            {QStringLiteral("GET %1 until 200")
                 .arg(urlText(router.urlWithPath(QStringLiteral("/readiness")))),
             QStringLiteral("GET %1 until every worker is_healthy")
                 .arg(urlText(router.urlWithPath(QStringLiteral("/workers")))),
             QStringLiteral("a worker of this cluster the router marks failed for good: DELETE "
                            "%1/{its url, encoded}, then POST %1 {url, worker_type, "
                            "bootstrap_port}")
                 .arg(urlText(router.urlWithPath(QStringLiteral("/workers"))))},
            t.routerReadyS);
        step.host.clear();
        return step;
    }
    WorkflowStep verify() const
    {
        WorkflowStep step;
        step.action = Action::Verify;
        step.title = QStringLiteral("staged verification of %1").arg(cluster.name);
        step.commands = {QStringLiteral("health of every service, one chat end to end, keep-alive "
                                        "on a reused connection, batch check")};
        step.deadlineS = t.verifyS;
        return step;
    }
    WorkflowStep watchFailures() const
    {
        WorkflowStep step;
        step.action = Action::WatchFailures;
        step.title = QStringLiteral("watch the bootstrap and transfer failure counters for %1 s")
                         .arg(t.failureWatchS);
        for (const QString &name : cluster.prefill + cluster.decode)
            step.commands << QStringLiteral(
                                 "GET %1: sglang:num_bootstrap_failed_reqs_total, "
                                 "sglang:num_transfer_failed_reqs_total, now and in %2 s")
                                 .arg(urlText(service(name).metricsUrl()))
                                 .arg(t.failureWatchS);
        step.watchS = t.failureWatchS;
        step.deadlineS = t.failureWatchS + 2 * t.checkS;
        return step;
    }
    WorkflowStep edit(const WorkflowPlan::KnobEdit &e) const
    {
        const Service &s = service(e.service);
        WorkflowStep step = leaf(
            Action::EditKnob, s,
            QStringLiteral("edit %1 on %2: %3").arg(e.plan.path, s.host, e.plan.what),
            {QStringLiteral("cp -p %1 %2, read back")
                 .arg(shell::singleQuoted(e.plan.path),
                      shell::singleQuoted(e.plan.path + QStringLiteral(".opsdeck-<UTC time>.bak"))),
             QStringLiteral("write the new script atomically (same owner "
                            "and mode) if its SHA-256 is still %1, read back")
                 .arg(QString::fromLatin1(e.plan.beforeSha256.left(12)))},
            t.startS, QStringLiteral("restore the backup (knobs restore)"));
        step.diff = e.plan.auditDiff;
        return step;
    }
    WorkflowStep marker(const QString &when, const QString &what) const
    {
        WorkflowStep step;
        step.action = Action::Marker;
        step.title = QStringLiteral("marker \"%1\" in history").arg(when);
        step.commands = {QStringLiteral("%1 %2").arg(when, what)};
        step.deadlineS = t.checkS;
        return step;
    }
    // Every decode stopped, then every prefill; all exited; every prefill up
    // with its bootstrap port, then every decode; the router ready.
    QVector<WorkflowStep> coRestart() const
    {
        QVector<WorkflowStep> steps;
        if (!cluster.router.isEmpty())
            steps << checkBootstrap();
        QVector<WorkflowStep> drains, stopDecodes, stopPrefills, exits, startPrefills, startDecodes;
        for (const QString &name : cluster.decode) {
            stopDecodes << stop(service(name));
            startDecodes << WorkflowStep::sequence(QStringLiteral("start %1").arg(name),
                                                   startOf(service(name)));
        }
        for (const QString &name : cluster.prefill) {
            stopPrefills << stop(service(name));
            startPrefills << WorkflowStep::sequence(QStringLiteral("start %1").arg(name),
                                                    startOf(service(name)));
        }
        for (const QString &name : cluster.decode + cluster.prefill) {
            exits << exited(service(name));
            if (drained(service(name)))
                drains << drain(service(name));
        }
        if (!drains.isEmpty())
            steps << WorkflowStep::parallel(QStringLiteral("drain every engine"), drains);
        steps << WorkflowStep::parallel(QStringLiteral("stop every decode"), stopDecodes)
              << WorkflowStep::parallel(QStringLiteral("stop every prefill"), stopPrefills)
              << WorkflowStep::parallel(QStringLiteral("wait until every one has exited"), exits)
              << WorkflowStep::parallel(QStringLiteral("start every prefill"), startPrefills)
              << WorkflowStep::parallel(QStringLiteral("start every decode"), startDecodes);
        if (!cluster.router.isEmpty())
            steps << routerReady();
        return steps;
    }
    // Stop, wait until exited, start, wait until healthy: one service.
    QVector<WorkflowStep> restartOf(const Service &s) const
    {
        QVector<WorkflowStep> steps;
        if (drained(s))
            steps << drain(s);
        return steps << stop(s) << exited(s) << startOf(s);
    }
};

// Why the service cannot be restarted by OpsDeck, or empty.
QString cannotRestart(const Service &s)
{
    if (s.start.isEmpty())
        return QStringLiteral("service %1 has no `start` command in the inventory: OpsDeck cannot "
                              "start it again")
            .arg(s.name);
    if (s.stop.isEmpty() && s.pidFile.isEmpty())
        return QStringLiteral("service %1 has neither `stop` nor `pid_file` in the inventory: "
                              "OpsDeck cannot stop it")
            .arg(s.name);
    if (s.hostPort() <= 0)
        return QStringLiteral(
                   "service %1's url has no port: OpsDeck cannot tell when it has exited")
            .arg(s.name);
    return {};
}

bool isMember(const inventory::Cluster &cluster, const QString &name)
{
    return cluster.prefill.contains(name) || cluster.decode.contains(name) ||
           cluster.router == name || cluster.proxy == name;
}

} // namespace

std::optional<WorkflowPlan> RunbookPlanner::plan(const inventory::Inventory &inventory,
                                                 const Request &request, QString *error)
{
    return plan(inventory, request, error, Timings{});
}

std::optional<WorkflowPlan> RunbookPlanner::plan(const inventory::Inventory &inventory,
                                                 const Request &request, QString *error,
                                                 const Timings &timings)
{
    const inventory::Cluster *cluster = inventory.cluster(request.cluster);
    if (!cluster) {
        *error = QStringLiteral("no cluster '%1' in %2").arg(request.cluster, inventory.path);
        return std::nullopt;
    }
    WorkflowPlan plan;
    plan.kind = request.kind;
    plan.inventoryPath = inventory.path;
    plan.cluster = cluster->name;
    plan.service = request.service;
    plan.knob = request.knob;
    const auto fail = [&](const QString &why) {
        *error = why;
        return std::nullopt;
    };
    Builder b{inventory, *cluster, timings};
    if (request.drain) {
        if (request.kind != WorkflowKind::Restart && request.kind != WorkflowKind::CoRestart)
            return fail(QStringLiteral("drain belongs to restart and co-restart"));
        if (cluster->router.isEmpty())
            return fail(
                QStringLiteral("cluster %1 has no router to drain through").arg(cluster->name));
        const inventory::Service *s =
            request.service.isEmpty() ? nullptr : inventory.service(request.service);
        if (s && s->role != Role::Prefill && s->role != Role::Decode)
            return fail(QStringLiteral("%1 is not a prefill or decode: only engines are drained "
                                       "(through the router)")
                            .arg(s->name));
        b.drains = true;
    }
    QStringList targets;
    switch (request.kind) {
    case WorkflowKind::Restart: {
        if (request.service.isEmpty())
            return fail(QStringLiteral("restart needs --service: the service of cluster %1 to "
                                       "restart (co-restart restarts its prefill and decode)")
                            .arg(cluster->name));
        if (!isMember(*cluster, request.service))
            return fail(QStringLiteral("service '%1' is not in cluster %2")
                            .arg(request.service, cluster->name));
        const Service &s = b.service(request.service);
        targets << s.name;
        QVector<WorkflowStep> steps = b.restartOf(s);
        const bool pdMember = s.role == Role::Prefill || s.role == Role::Decode;
        if (pdMember) {
            const QString other =
                s.role == Role::Prefill ? QStringLiteral("decode") : QStringLiteral("prefill");
            plan.warnings << QStringLiteral("%1 is the %2 side of a PD pair: restarting one side "
                                            "leaves the %3 with state about a peer that is gone; "
                                            "co-restart restarts both in order")
                                 .arg(s.name, inventory::roleName(s.role), other);
            if (cluster->transferBackend == u"nixl")
                plan.refusal = QStringLiteral("cluster %1 transfers KV with nixl: after a "
                                              "single-side restart both sides report healthy but "
                                              "requests hang until both are restarted. Use "
                                              "co-restart --cluster %1")
                                   .arg(cluster->name);
            if (!cluster->router.isEmpty())
                steps << b.routerReady();
        }
        steps << b.verify();
        plan.root = WorkflowStep::sequence(QStringLiteral("restart %1").arg(s.name), steps);
        break;
    }
    case WorkflowKind::CoRestart: {
        if (!request.service.isEmpty())
            return fail(QStringLiteral("co-restart restarts the whole PD cluster: give --cluster "
                                       "alone (restart --service restarts one service)"));
        targets << cluster->decode << cluster->prefill;
        QVector<WorkflowStep> steps = b.coRestart() << b.verify();
        if (timings.failureWatchS > 0)
            steps << b.watchFailures();
        plan.root =
            WorkflowStep::sequence(QStringLiteral("co-restart %1").arg(cluster->name), steps);
        break;
    }
    case WorkflowKind::RestartProxy: {
        if (cluster->proxy.isEmpty())
            return fail(
                QStringLiteral("cluster %1 has no proxy in %2").arg(cluster->name, inventory.path));
        const Service &proxy = b.service(cluster->proxy);
        targets << proxy.name;
        plan.root = WorkflowStep::sequence(QStringLiteral("restart %1").arg(proxy.name),
                                           b.restartOf(proxy) << b.verify());
        break;
    }
    case WorkflowKind::RevertKnob:
    case WorkflowKind::RestoreKnob: {
        if (request.edits.isEmpty())
            return fail(QStringLiteral("%1 of %2: no serve script to edit")
                            .arg(workflowKindName(request.kind), request.knob));
        const QString what =
            QStringLiteral("%1 %2 on %3").arg(workflowKindName(request.kind), request.knob);
        QStringList edited;
        for (const WorkflowPlan::KnobEdit &e : request.edits) {
            if (!isMember(*cluster, e.service))
                return fail(QStringLiteral("service '%1' is not in cluster %2")
                                .arg(e.service, cluster->name));
            edited << e.service;
        }
        // A PD member takes effect only with its pair: co-restart. Its checks
        // that need nothing changed come before the edit.
        const bool pd = std::any_of(edited.cbegin(), edited.cend(), [&](const QString &name) {
            return cluster->prefill.contains(name) || cluster->decode.contains(name);
        });
        QVector<WorkflowStep> restart = pd ? b.coRestart() : QVector<WorkflowStep>();
        QVector<WorkflowStep> steps{
            b.marker(QStringLiteral("before"), what.arg(edited.join(QStringLiteral(", "))))};
        if (!restart.isEmpty() && restart.first().action == Action::CheckBootstrap)
            steps << restart.takeFirst();
        for (const WorkflowPlan::KnobEdit &e : request.edits)
            steps << b.edit(e);
        steps << restart;
        if (pd)
            targets << cluster->decode << cluster->prefill;
        for (const QString &name : edited) {
            if (cluster->prefill.contains(name) || cluster->decode.contains(name))
                continue;
            steps << b.restartOf(b.service(name));
            targets << name;
        }
        steps << b.verify();
        if (pd && timings.failureWatchS > 0)
            steps << b.watchFailures();
        steps << b.marker(QStringLiteral("after"), what.arg(edited.join(QStringLiteral(", "))));
        plan.root = WorkflowStep::sequence(what.arg(edited.join(QStringLiteral(", "))), steps);
        plan.knobEdits = request.edits;
        break;
    }
    }
    for (const QString &name : targets) {
        if (const QString why = cannotRestart(b.service(name)); !why.isEmpty())
            return fail(why);
        plan.production = plan.production || b.service(name).isProduction();
    }
    for (const WorkflowPlan::KnobEdit &e : plan.knobEdits)
        targets << e.service;
    for (const QString &name : targets)
        plan.targets.insert(name, whatNames(inventory, b.service(name)));
    plan.number();
    // Step numbers of the edits, in the order they were listed.
    int next = 0;
    for (const WorkflowStep *step : plan.leaves()) {
        if (step->action == Action::EditKnob && next < plan.knobEdits.size())
            plan.knobEdits[next++].n = step->n;
    }
    return plan;
}

} // namespace opsdeck::workflows
