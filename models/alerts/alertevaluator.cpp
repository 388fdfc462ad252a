#include "alertevaluator.h"

#include <cmath>
#include <spdlog/spdlog.h>

using namespace Qt::StringLiterals;

namespace opsdeck::alerts {

using inventory::AlertKind;

struct AlertEvaluator::Tracked
{
    AlertWatch watch;
    ConditionTracker condition;                  ///< scheduler_stuck, e2e_failing
    QHash<QString, ConditionTracker> members;    ///< failures_rising: one per PD service
    std::optional<probes::ServiceStatus> health; ///< e2e_failing: the entry's last answer
    std::optional<EndToEndResult> probe;         ///< e2e_failing: the last probe
    std::optional<EndToEndResult> previousProbe; ///< e2e_failing: the one before
    Alert alert;                                 ///< the active alert (valid while raised)
    bool active = false;
};

namespace {

// "3", "1.5", "2.62": whole numbers as such, others to two decimals, never
// the exponent form that 'g' gives large counts ("1.234e+04 requests").
QString number(double value)
{
    if (std::abs(value - std::round(value)) < 1e-9)
        return QString::number(static_cast<qint64>(std::llround(value)));
    QString text = QString::number(value, 'f', 2);
    while (text.endsWith(u'0'))
        text.chop(1);
    if (text.endsWith(u'.')) // 9.999 rounds to "10.00"
        text.chop(1);
    return text;
}

QString seconds(qint64 ms)
{
    return QString::number(ms / 1000);
}

bool anyRaised(const QHash<QString, ConditionTracker> &members)
{
    for (const ConditionTracker &member : members)
        if (member.raised())
            return true;
    return false;
}

} // namespace

AlertEvaluator::AlertEvaluator(QObject *parent) : QObject(parent)
{
    qRegisterMetaType<Alert>();
    qRegisterMetaType<EndToEndResult>();
    qRegisterMetaType<probes::MetricsSnapshot>();
    qRegisterMetaType<probes::LoadSample>();
    qRegisterMetaType<probes::ServiceStatus>();
}

AlertEvaluator::~AlertEvaluator() = default;

QVector<Alert> AlertEvaluator::active() const
{
    QVector<Alert> alerts;
    for (const QString &key : m_order)
        for (const auto &tracked : m_tracked)
            if (tracked->active && tracked->alert.key() == key)
                alerts.append(tracked->alert);
    return alerts;
}

void AlertEvaluator::setWatches(const QVector<AlertWatch> &watches)
{
    QVector<std::shared_ptr<Tracked>> next;
    for (const AlertWatch &watch : watches) {
        std::shared_ptr<Tracked> kept;
        for (const auto &tracked : std::as_const(m_tracked))
            if (tracked->watch.key() == watch.key() && tracked->watch.forS == watch.forS &&
                tracked->watch.services == watch.services)
                kept = tracked;
        if (!kept) {
            kept = std::make_shared<Tracked>();
            kept->watch = watch;
            const qint64 forMs = qint64(watch.forS) * 1000;
            kept->condition = ConditionTracker(forMs, 0);
            if (watch.kind == AlertKind::FailuresRising)
                for (const QString &service : watch.services)
                    kept->members.insert(service, ConditionTracker(forMs, failureGraceMs));
        }
        kept->watch = watch; // e.g. a new entry URL
        next.append(kept);
    }
    for (const auto &tracked : std::as_const(m_tracked)) {
        if (tracked->active && !next.contains(tracked)) {
            m_order.removeAll(tracked->alert.key());
            Alert cleared = tracked->alert;
            cleared.text = u"no longer watched (the inventory changed): "_s + cleared.text;
            Q_EMIT alertCleared(cleared);
        }
    }
    m_tracked = next;
}

void AlertEvaluator::addAnswers(const probes::PollAnswers &answers)
{
    for (const probes::ServiceStatus &status : answers.statuses)
        addStatus(status);
    for (const probes::LoadSample &sample : answers.loads)
        addLoad(sample);
    for (const probes::MetricsSnapshot &snapshot : answers.snapshots)
        addMetrics(snapshot);
}

void AlertEvaluator::addLoad(const probes::LoadSample &sample)
{
    m_hasLoadSamples.insert(sample.service, true);
    batchSample(sample.service, sample.timeMs, sample.running, sample.waiting);
}

void AlertEvaluator::addMetrics(const probes::MetricsSnapshot &snapshot)
{
    failureSample(snapshot);
    if (m_hasLoadSamples.value(snapshot.service))
        return;
    std::optional<double> running, waiting;
    if (snapshot.error.isEmpty()) {
        if (const probes::SeriesValue *value = snapshot.find(u"running"_s))
            running = value->value;
        if (const probes::SeriesValue *value = snapshot.find(u"waiting"_s))
            waiting = value->value;
    }
    batchSample(snapshot.service, snapshot.timeMs, running, waiting);
}

void AlertEvaluator::batchSample(const QString &service, qint64 atMs, std::optional<double> running,
                                 std::optional<double> waiting)
{
    std::optional<bool> stuck;
    if (running && waiting)
        stuck = *waiting > 0 && *running == 0;
    for (const auto &tracked : std::as_const(m_tracked)) {
        if (tracked->watch.kind != AlertKind::SchedulerStuck || tracked->watch.target != service)
            continue;
        const ConditionTracker::Change change = tracked->condition.update(atMs, stuck);
        const qint64 forMs = atMs - tracked->condition.sinceMs();
        const QString text =
            change == ConditionTracker::Change::Cleared
                ? u"%1: the scheduler runs again (%2 running, %3 waiting)"_s.arg(
                      service, number(running.value_or(0)), number(waiting.value_or(0)))
                : u"%1: %2 requests waiting and none running for %3 s; the scheduler admits "
                  "nothing"_s.arg(service, number(waiting.value_or(0)), seconds(forMs));
        apply(*tracked, change, atMs, tracked->condition.sinceMs(), text);
    }
}

void AlertEvaluator::failureSample(const probes::MetricsSnapshot &snapshot)
{
    std::optional<double> bootstrap, transfer;
    if (snapshot.error.isEmpty()) {
        if (const probes::SeriesValue *value = snapshot.find(u"bootstrap_failures_per_s"_s))
            bootstrap = value->value;
        if (const probes::SeriesValue *value = snapshot.find(u"transfer_failures_per_s"_s))
            transfer = value->value;
    }
    std::optional<bool> failing;
    if (bootstrap || transfer)
        failing = bootstrap.value_or(0) > 0 || transfer.value_or(0) > 0;
    for (const auto &tracked : std::as_const(m_tracked)) {
        if (tracked->watch.kind != AlertKind::FailuresRising ||
            !tracked->members.contains(snapshot.service))
            continue;
        ConditionTracker &member = tracked->members[snapshot.service];
        const bool before = anyRaised(tracked->members);
        member.update(snapshot.timeMs, failing);
        const bool after = anyRaised(tracked->members);
        ConditionTracker::Change change = ConditionTracker::Change::None;
        if (!before && after)
            change = ConditionTracker::Change::Raised;
        else if (before && !after)
            change = ConditionTracker::Change::Cleared;
        const QString text =
            change == ConditionTracker::Change::Cleared
                ? u"cluster %1: no bootstrap or transfer failures for %2 s"_s.arg(
                      tracked->watch.target, seconds(failureGraceMs))
                : u"cluster %1: %2 counts %3 KV transfer failures/s and %4 bootstrap failures/s; "
                  "failing for %5 s"_s.arg(
                      tracked->watch.target, snapshot.service, number(transfer.value_or(0)),
                      number(bootstrap.value_or(0)), seconds(snapshot.timeMs - member.sinceMs()));
        apply(*tracked, change, snapshot.timeMs, member.sinceMs(), text);
    }
}

void AlertEvaluator::addStatus(const probes::ServiceStatus &status)
{
    for (const auto &tracked : std::as_const(m_tracked)) {
        if (tracked->watch.kind == AlertKind::E2eFailing &&
            tracked->watch.entry.name == status.name) {
            tracked->health = status;
            evaluateE2e(*tracked, status.lastCheck.toMSecsSinceEpoch());
        }
    }
}

void AlertEvaluator::addProbeResult(const EndToEndResult &result)
{
    for (const auto &tracked : std::as_const(m_tracked)) {
        if (tracked->watch.kind == AlertKind::E2eFailing &&
            tracked->watch.target == result.cluster) {
            tracked->previousProbe = tracked->probe;
            tracked->probe = result;
            evaluateE2e(*tracked, result.finishedAtMs);
        }
    }
}

void AlertEvaluator::evaluateE2e(Tracked &tracked, qint64 atMs)
{
    const auto &health = tracked.health;
    const auto &probe = tracked.probe;
    const auto &previous = tracked.previousProbe;
    // A probe from before the entry's latest recovery says nothing about the
    // path as it is now.
    auto failedSinceHealthy = [&](const std::optional<EndToEndResult> &p) {
        return p && !p->ok &&
               (!health->lastChange.isValid() ||
                p->finishedAtMs >= health->lastChange.toMSecsSinceEpoch());
    };
    std::optional<bool> failing;
    // No HTTP answer says nothing about the path beyond "down", which the
    // service card already shows. One failed probe alone is left undecided:
    // a router that has not yet checked its workers, a worker restarting.
    if (health && health->httpStatus != 0 && probe) {
        if (health->httpStatus != 200 || probe->ok)
            failing = false;
        else if (failedSinceHealthy(probe) && failedSinceHealthy(previous))
            failing = true;
    }
    const ConditionTracker::Change change = tracked.condition.update(atMs, failing);
    const QString entry = inventory::roleName(tracked.watch.entry.role);
    QString text;
    if (change == ConditionTracker::Change::Cleared)
        text =
            probe && probe->ok
                ? u"cluster %1: the end-to-end probe through the %2 succeeds again (%3 ms)"_s.arg(
                      tracked.watch.target, entry, number(probe->ms))
                : u"cluster %1: the %2 no longer answers /health with 200 (%3)"_s.arg(
                      tracked.watch.target, entry, health ? health->detail : QString());
    else if (probe)
        text = u"cluster %1: %2 %3 answers /health with 200, but the last 2 end-to-end chat "
               "completions through it failed, the last after %4 ms: %5"_s.arg(
                   tracked.watch.target, entry, tracked.watch.entry.name, number(probe->ms),
                   probe->error);
    // The condition began with the first of the two failures.
    const qint64 since = change == ConditionTracker::Change::Raised && previous
                             ? previous->finishedAtMs
                             : tracked.condition.sinceMs();
    apply(tracked, change, atMs, since, text);
}

void AlertEvaluator::apply(Tracked &tracked, ConditionTracker::Change change, qint64 atMs,
                           qint64 sinceMs, const QString &text)
{
    if (change == ConditionTracker::Change::Raised && !tracked.active) {
        tracked.active = true;
        tracked.alert = Alert{tracked.watch.kind, tracked.watch.target, sinceMs, atMs, text};
        m_order.append(tracked.alert.key());
        spdlog::warn("alert raised: {}", text.toStdString());
        Q_EMIT alertRaised(tracked.alert);
    } else if (change == ConditionTracker::Change::Cleared && tracked.active) {
        tracked.active = false;
        m_order.removeAll(tracked.alert.key());
        Alert cleared = tracked.alert;
        cleared.atMs = atMs;
        cleared.text = text;
        spdlog::info("alert cleared: {}", text.toStdString());
        Q_EMIT alertCleared(cleared);
    }
}

} // namespace opsdeck::alerts
