#include "evidence.h"

#include "checkjson.h"
#include "historystore.h"

#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <cmath>

namespace opsdeck::workflows {

namespace {

QString age(qint64 ms)
{
    const qint64 s = std::max<qint64>(0, ms / 1000);
    if (s < 120)
        return QStringLiteral("%1 s ago").arg(s);
    if (s < 7200)
        return QStringLiteral("%1 min ago").arg(s / 60);
    return QStringLiteral("%1 h ago").arg(s / 3600);
}

QJsonValue number(double value)
{
    return value < 0 ? QJsonValue() : QJsonValue(value);
}

} // namespace

bool Evidence::pointsAtConnectionLayer() const
{
    if (!stall || (stall->role != inventory::Role::Proxy && stall->role != inventory::Role::Router))
        return false;
    if (nowMs - stallAtMs > kRecentS * 1000 || stallClearedAtMs > stallAtMs)
        return false;
    // A queue at the engines could explain slow answers; without one they
    // answer at once. The diagnosis's own probes (at most 2 per path at once,
    // over the proxy's and the router's paths) can wait a scheduler step on a
    // loaded host: a queue shorter than they are is theirs.
    const double waiting = stall->decodeWaitingMax >= 0 ? stall->decodeWaitingMax : decodeWaiting;
    return waiting < kOwnProbesAtOnce;
}

QString Evidence::connectionLayerWarning(const QString &whatThePlanDoes) const
{
    if (!pointsAtConnectionLayer())
        return {};
    const QString hop = stall->hop;
    const bool loadKnown = stall->decodeWaitingMax >= 0 || decodeWaiting >= 0;
    return QStringLiteral("The evidence points at %1: reused connections stall there while fresh "
                          "ones answer and the engines are %2 (diagnosed %3). %4 does not explain "
                          "a connection-scoped stall; restart or inspect %1 first.")
        .arg(hop, loadKnown ? QStringLiteral("idle") : QStringLiteral("not shown busy"),
             age(nowMs - stallAtMs), whatThePlanDoes);
}

QStringList Evidence::lines() const
{
    QStringList out;
    if (stall)
        out << QStringLiteral("stall diagnosis (%1): %2%3")
                   .arg(age(nowMs - stallAtMs), stall->headline(),
                        stallClearedAtMs > stallAtMs
                            ? QStringLiteral(" — cleared since: %1 (%2)")
                                  .arg(stallClearedBy, age(nowMs - stallClearedAtMs))
                            : QString());
    else
        out << QStringLiteral("no stall diagnosed in the last %1 min").arg(kRecentS / 60);
    if (decodeRunning >= 0)
        out << QStringLiteral("decode: %1 running, %2 waiting (%3)")
                   .arg(decodeRunning)
                   .arg(decodeWaiting < 0 ? QStringLiteral("?") : QString::number(decodeWaiting))
                   .arg(age(nowMs - loadAtMs));
    else
        out << QStringLiteral("decode load: not recorded in the last 5 min");
    out << (lastVerification.isEmpty()
                ? QStringLiteral("no staged verification recorded")
                : QStringLiteral("last staged verification: ") + lastVerification);
    if (!source.isEmpty())
        out << QStringLiteral("(from %1)").arg(source);
    return out;
}

QJsonObject Evidence::json() const
{
    QJsonValue stallJson;
    if (stall)
        stallJson =
            QJsonObject{{QStringLiteral("hop"), stall->hop},
                        {QStringLiteral("role"), stall->roleName()},
                        {QStringLiteral("headline"), stall->headline()},
                        {QStringLiteral("age_s"), double(nowMs - stallAtMs) / 1000.0},
                        {QStringLiteral("decode_running_max"), number(stall->decodeRunningMax)},
                        {QStringLiteral("decode_waiting_max"), number(stall->decodeWaitingMax)},
                        {QStringLiteral("cleared_by"),
                         stallClearedAtMs > stallAtMs ? QJsonValue(stallClearedBy) : QJsonValue()}};
    return {{QStringLiteral("stall"), stallJson},
            {QStringLiteral("decode_running"), number(decodeRunning)},
            {QStringLiteral("decode_waiting"), number(decodeWaiting)},
            {QStringLiteral("last_verification"), lastVerification},
            {QStringLiteral("points_at_connection_layer"), pointsAtConnectionLayer()},
            {QStringLiteral("source"), source},
            {QStringLiteral("unreadable"), unreadable}};
}

Evidence Evidence::read(const QString &databasePath, const inventory::Inventory &inventory,
                        const QString &cluster, qint64 nowMs)
{
    Evidence evidence;
    evidence.nowMs = nowMs;
    if (!QFileInfo::exists(databasePath)) {
        evidence.source = QStringLiteral("no history at %1").arg(databasePath);
        return evidence;
    }
    history::HistoryStore store(databasePath);
    if (!QFileInfo(databasePath).isFile() || !store.open(false)) {
        evidence.source =
            QStringLiteral("history %1 not readable: %2")
                .arg(databasePath, QFileInfo(databasePath).isFile() ? store.lastError()
                                                                    : QStringLiteral("not a file"));
        evidence.unreadable = true;
        return evidence;
    }
    evidence.source = databasePath;
    const qint64 from = nowMs - kRecentS * 1000;
    for (const QString &kind : {QStringLiteral("diagnosis"), QStringLiteral("watch")}) {
        for (const history::CheckRecord &check : store.checks(from, nowMs + 60'000, kind)) {
            if (check.cluster != cluster)
                continue;
            const QJsonObject found = QJsonDocument::fromJson(check.json).object();
            const QJsonValue stall = found.value(QStringLiteral("stall"));
            if (!stall.isObject()) {
                // A conclusive look that found no stall clears an older one.
                if (found.contains(QStringLiteral("stall")) &&
                    !found.value(QStringLiteral("inconclusive")).toBool() &&
                    check.timeMs > evidence.stallClearedAtMs) {
                    evidence.stallClearedAtMs = check.timeMs;
                    evidence.stallClearedBy =
                        QStringLiteral("a %1 found reused connections answering")
                            .arg(kind == u"watch" ? QStringLiteral("watch round")
                                                  : QStringLiteral("diagnosis"));
                }
                continue;
            }
            if (check.timeMs < evidence.stallAtMs)
                continue;
            evidence.stall = probes::diagnosisFromJson(stall.toObject());
            evidence.stallAtMs = check.timeMs;
        }
    }
    const inventory::Cluster *members = inventory.cluster(cluster);
    if (members) {
        double running = 0, waiting = 0;
        bool anyRunning = false, anyWaiting = false;
        for (const QString &decode : members->decode) {
            const auto latest = [&](const QString &key, double &sum, bool &any) {
                const auto samples =
                    store.rawSamples(decode, key, nowMs - 5 * 60'000, nowMs + 60'000);
                if (samples.isEmpty() || !std::isfinite(samples.last().value))
                    return;
                sum += samples.last().value;
                any = true;
                evidence.loadAtMs = std::max(evidence.loadAtMs, samples.last().timeMs);
            };
            latest(QStringLiteral("running"), running, anyRunning);
            latest(QStringLiteral("waiting"), waiting, anyWaiting);
        }
        evidence.decodeRunning = anyRunning ? running : -1;
        evidence.decodeWaiting = anyWaiting ? waiting : -1;
    }
    const auto verifications = store.checks(0, nowMs + 60'000, QStringLiteral("verification"));
    for (auto it = verifications.crbegin(); it != verifications.crend(); ++it) {
        if (it->cluster != cluster)
            continue;
        const QJsonObject result = QJsonDocument::fromJson(it->json).object();
        const bool passed = result.value(QStringLiteral("passed")).toBool();
        for (const QJsonValue &stage : result.value(QStringLiteral("stages")).toArray()) {
            const QJsonObject st = stage.toObject();
            if (st.value(QStringLiteral("name")).toString() == u"keep-alive" &&
                st.value(QStringLiteral("ran")).toBool() &&
                st.value(QStringLiteral("passed")).toBool() &&
                it->timeMs > evidence.stallClearedAtMs) {
                evidence.stallClearedAtMs = it->timeMs;
                evidence.stallClearedBy =
                    QStringLiteral("a staged verification's keep-alive stage passed");
            }
        }
        evidence.lastVerification = QStringLiteral("%1 %2").arg(
            passed ? QStringLiteral("passed") : QStringLiteral("failed"), age(nowMs - it->timeMs));
        break;
    }
    return evidence;
}

} // namespace opsdeck::workflows
