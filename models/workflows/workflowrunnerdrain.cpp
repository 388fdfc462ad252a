// WorkflowRunner: draining an engine through its cluster's router before a
// restart (no new request reaches it, the running ones finish), and adding it
// back once it answers again.
#include "expositionparser.h"
#include "loadsample.h"
#include "pagesummary.h"
#include "probeengine.h"
#include "workflowrunnerleaf.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

using namespace Qt::StringLiterals;

namespace opsdeck::workflows {

namespace {

using inventory::Role;
using inventory::Service;

// The router's /workers entries for `engine` (its url, as the inventory has it).
QVector<QJsonObject> entriesOf(const QByteArray &workersJson, const Service &engine)
{
    QVector<QJsonObject> found;
    const QJsonArray workers =
        QJsonDocument::fromJson(workersJson).object().value(u"workers"_s).toArray();
    for (const QJsonValue &value : workers) {
        const QJsonObject entry = value.toObject();
        if (sameEndpoint(QUrl(entry.value(u"url"_s).toString()), engine.url))
            found << entry;
    }
    return found;
}

// The engine's running requests: from /v1/loads (computed when asked), else
// from its /metrics page (a gauge SGLang refreshes only as it logs, which
// may lag an idle engine); nothing (and `problem`) when neither says.
std::optional<double> runningOf(const probes::ProbeResult &loads, const probes::ProbeResult &page,
                                QString *problem)
{
    if (loads.ok()) {
        if (const std::optional<probes::LoadSample> sample = probes::parseLoads(loads.body))
            return sample->running;
    }
    if (!page.ok()) {
        *problem = u"/v1/loads: %1; /metrics: %2"_s.arg(seen(loads), seen(page));
        return std::nullopt;
    }
    const auto summary = metrics::summarizePage(metrics::ExpositionParser::parse(
        std::string_view(page.body.constData(), std::size_t(page.body.size()))));
    if (!summary.running)
        *problem =
            u"no running requests in /v1/loads (%1) nor in %2"_s.arg(seen(loads), page.url.path());
    return summary.running;
}

} // namespace

void WorkflowRunner::drain(const std::shared_ptr<Leaf> &leaf)
{
    const Service *router = clusterRouter(leaf);
    if (!router)
        return;
    const Service *engine = leaf->service;
    const QString routerName = router->name;
    // Idle: its running requests waited down to 0 (the deadline lets the
    // restart go on past it, said).
    const auto waitIdle = [this, leaf, engine, routerName](const QString &removed) {
        repeat(leaf, [this, leaf, engine, removed] {
            getAll(leaf, {engine->urlWithPath(u"/v1/loads"_s), engine->metricsUrl()},
                   [this, leaf, engine, removed](const QVector<probes::ProbeResult> &r) {
                       QString problem;
                       const std::optional<double> running = runningOf(r.at(0), r.at(1), &problem);
                       if (!running) {
                           leaf->lastSeen = u"%1: %2"_s.arg(engine->name, problem);
                           return;
                       }
                       if (*running > 0) {
                           leaf->lastSeen =
                               u"%1 running requests on %2"_s.arg(*running).arg(engine->name);
                           return;
                       }
                       endLeaf(leaf, true,
                               u"%1; no running request on %2 after %3 s"_s.arg(removed)
                                   .arg(engine->name)
                                   .arg(double(leaf->clock.elapsed()) / 1000.0, 0, 'f', 1));
                   });
        });
    };
    getAll(
        leaf, {router->urlWithPath(u"/workers"_s)},
        [this, leaf, engine, router, waitIdle](const QVector<probes::ProbeResult> &r) {
            if (!r.first().ok())
                return endLeaf(leaf, false,
                               u"%1 /workers: %2: %3 not removed from it"_s.arg(
                                   router->name, seen(r.first()), engine->name));
            const QVector<QJsonObject> entries = entriesOf(r.first().body, *engine);
            if (entries.isEmpty())
                return waitIdle(u"%1 does not list %2"_s.arg(router->name, engine->name));
            const QJsonObject entry = entries.first();
            const QString id = entry.value(u"id"_s).toString(entry.value(u"url"_s).toString());
            probes::ProbeRequest remove;
            remove.kind = probes::ProbeKind::Delete;
            remove.url = workerUrl(*router, id);
            remove.timeoutMs = 5000;
            say(leaf, u"removing %1 from %2: DELETE %3 (it was %4)"_s.arg(
                          engine->name, router->name, QString::fromLatin1(remove.url.toEncoded()),
                          QString::fromUtf8(QJsonDocument(entry).toJson(QJsonDocument::Compact))));
            send(leaf, remove,
                 [this, leaf, engine, router, waitIdle](const probes::ProbeResult &removed) {
                     if (!removed.ok() && removed.status != 404)
                         return endLeaf(
                             leaf, false,
                             u"DELETE of %1 from %2 failed: %3"_s.arg(engine->name, router->name,
                                                                      probes::failureOf(removed)));
                     waitIdle(u"removed from %1 (HTTP %2)"_s.arg(router->name).arg(removed.status));
                 });
        });
}

void WorkflowRunner::registerWorker(const std::shared_ptr<Leaf> &leaf)
{
    const Service *router = clusterRouter(leaf);
    if (!router)
        return;
    const Service *engine = leaf->service;
    const bool prefill = engine->role == Role::Prefill;
    const QVector<QUrl> urls{router->urlWithPath(u"/workers"_s),
                             prefill ? engine->urlWithPath(u"/server_info"_s)
                                     : engine->healthUrl()};
    repeat(leaf, [this, leaf, engine, router, urls, prefill] {
        getAll(leaf, urls,
               [this, leaf, engine, router, prefill](const QVector<probes::ProbeResult> &r) {
                   if (!r.at(1).ok()) {
                       leaf->lastSeen =
                           u"%1 does not answer yet: %2"_s.arg(engine->name, seen(r.at(1)));
                       return;
                   }
                   if (!r.at(0).ok()) {
                       leaf->lastSeen = u"%1 /workers: %2"_s.arg(router->name, seen(r.at(0)));
                       return;
                   }
                   if (!entriesOf(r.at(0).body, *engine).isEmpty())
                       return endLeaf(leaf, true, u"%1 lists %2"_s.arg(router->name, engine->name));
                   QString url = engine->url.toString(QUrl::RemoveUserInfo);
                   if (url.endsWith(u'/'))
                       url.chop(1);
                   QJsonObject add{{u"url"_s, url},
                                   {u"worker_type"_s, inventory::roleName(engine->role)}};
                   if (prefill) {
                       const QJsonValue port = QJsonDocument::fromJson(r.at(1).body)
                                                   .object()
                                                   .value(u"disaggregation_bootstrap_port"_s);
                       if (port.isDouble())
                           add.insert(u"bootstrap_port"_s, port);
                   }
                   probes::ProbeRequest post;
                   post.kind = probes::ProbeKind::Chat; // a POST with a JSON body
                   post.url = router->urlWithPath(u"/workers"_s);
                   post.body = QJsonDocument(add).toJson(QJsonDocument::Compact);
                   post.timeoutMs = 5000;
                   leaf->busy = true; // no second POST while this one is out
                   send(leaf, post,
                        [this, leaf, engine, router, post](const probes::ProbeResult &added) {
                            leaf->busy = false;
                            if (added.ok() || added.status == 409)
                                return endLeaf(leaf, true,
                                               u"added back to %1: POST %2 %3 (HTTP %4)"_s
                                                   .arg(router->name, post.url.toString(),
                                                        QString::fromUtf8(post.body))
                                                   .arg(added.status));
                            leaf->lastSeen = u"POST %1 of %2: %3"_s.arg(
                                post.url.toString(), engine->name, probes::failureOf(added));
                        });
               });
    });
}

} // namespace opsdeck::workflows
