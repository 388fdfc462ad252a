// WorkflowRunner: the watch of the engines' failure counters after a
// co-restart (a pair that came back healthy but cannot hand KV over fails
// its first requests there, not in /health).
#include "expositionparser.h"
#include "pagesummary.h"
#include "workflowrunnerleaf.h"

#include <QTimer>

using namespace Qt::StringLiterals;

namespace opsdeck::workflows {

namespace {

struct Counts
{
    double bootstrap = 0;
    double transfer = 0;
};

// The summed failure counters of `results` (one per engine), or what could
// not be read.
std::optional<Counts> countsOf(const QVector<probes::ProbeResult> &results, QString *problem)
{
    Counts counts;
    for (const probes::ProbeResult &result : results) {
        if (!result.ok()) {
            *problem =
                u"%1 could not be read: %2"_s.arg(result.url.toString(), probes::failureOf(result));
            return std::nullopt;
        }
        const metrics::PageSummary summary =
            metrics::summarizePage(metrics::ExpositionParser::parse(std::string_view(
                result.body.constData(), static_cast<size_t>(result.body.size()))));
        counts.bootstrap += summary.bootstrapFailuresTotal.value_or(0);
        counts.transfer += summary.transferFailuresTotal.value_or(0);
    }
    return counts;
}

} // namespace

void WorkflowRunner::watchFailures(const std::shared_ptr<Leaf> &leaf)
{
    QVector<QUrl> urls;
    const inventory::Cluster *cluster = m_context.inventory.cluster(m_plan.cluster);
    for (const QString &name : cluster ? cluster->prefill + cluster->decode : QStringList()) {
        // An engine without a metrics page (metrics_path: none) is left out.
        const inventory::Service *engine = m_context.inventory.service(name);
        if (engine && engine->metricsUrl().isValid() && !engine->metricsUrl().isEmpty())
            urls << engine->metricsUrl();
    }
    if (urls.isEmpty())
        return endLeaf(leaf, true,
                       u"no engine of the cluster has a metrics page: nothing watched"_s);
    const int watchS = leaf->step->watchS;
    getAll(leaf, urls, [this, leaf, urls, watchS](const QVector<probes::ProbeResult> &first) {
        QString problem;
        const auto before = countsOf(first, &problem);
        if (!before)
            return endLeaf(leaf, false, problem);
        say(leaf, u"bootstrap failures %1, transfer failures %2 now; again in %3 s"_s
                      .arg(before->bootstrap)
                      .arg(before->transfer)
                      .arg(watchS));
        QTimer::singleShot(std::chrono::seconds(watchS), this, [this, leaf, urls, before] {
            if (leaf->ended)
                return;
            getAll(leaf, urls, [this, leaf, before](const QVector<probes::ProbeResult> &second) {
                QString problem;
                const auto after = countsOf(second, &problem);
                if (!after)
                    return endLeaf(leaf, false, problem);
                const double bootstrap = after->bootstrap - before->bootstrap;
                const double transfer = after->transfer - before->transfer;
                // A counter that went down: an engine restarted meanwhile.
                if (bootstrap < 0 || transfer < 0)
                    return endLeaf(leaf, false,
                                   u"a failure counter went down: an engine restarted during "
                                   "the watch"_s);
                if (bootstrap > 0 || transfer > 0)
                    return endLeaf(
                        leaf, false,
                        u"%1 bootstrap and %2 transfer failures since the co-restart: the pair "
                        "answers /health but does not hand KV over (check both sides' logs; a "
                        "nixl pair needs both restarted)"_s.arg(bootstrap)
                            .arg(transfer));
                endLeaf(leaf, true,
                        u"no bootstrap or transfer failure in %1 s"_s.arg(leaf->step->watchS));
            });
        });
    });
}

} // namespace opsdeck::workflows
