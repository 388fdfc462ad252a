#include "probeoutput.h"

#include <cmath>

namespace opsdeck::cli {

using probes::totalTimeText;

namespace {

/// Milliseconds to the microsecond curl measures; more digits would be noise.
double roundMs(double ms)
{
    return std::round(ms * 1000.0) / 1000.0;
}

QString column(double ms)
{
    return QString::number(ms, 'f', 3);
}

} // namespace

QJsonObject probeJson(const probes::ProbeResult &r)
{
    QJsonObject o;
    o.insert(QLatin1String("connection_reused"), r.connectionReused);
    o.insert(QLatin1String("local_port"), r.localPort);
    o.insert(QLatin1String("connect_ms"), roundMs(r.connectMs));
    o.insert(QLatin1String("ttfb_ms"), roundMs(r.ttfbMs));
    o.insert(QLatin1String("total_ms"), roundMs(r.totalMs));
    o.insert(QLatin1String("ttft_ms"),
             r.ttftMs >= 0 ? QJsonValue(roundMs(r.ttftMs)) : QJsonValue());
    o.insert(QLatin1String("status"), r.status);
    o.insert(QLatin1String("note"), r.note);
    o.insert(QLatin1String("mode"), probes::connectionModeName(r.mode));
    o.insert(QLatin1String("kind"), probes::probeKindName(r.kind));
    o.insert(QLatin1String("namelookup_ms"), roundMs(r.namelookupMs));
    o.insert(QLatin1String("tls_ms"), roundMs(r.tlsMs));
    o.insert(QLatin1String("bytes"), r.bytes);
    o.insert(QLatin1String("stale_keep_alive"), r.staleKeepAlive);
    o.insert(QLatin1String("stale_idle_s"), roundMs(r.staleIdleS));
    o.insert(QLatin1String("timed_out"), r.timedOut);
    o.insert(QLatin1String("error"), r.error.isEmpty() ? QJsonValue() : QJsonValue(r.error));
    o.insert(QLatin1String("started_at_ms"), r.startedAtMs);
    return o;
}

QString probeTableHeader()
{
    return QStringLiteral("%1 %2 %3 %4 %5 %6 %7 %8 %9 %10")
        .arg(QStringLiteral("#"), 4)
        .arg(QStringLiteral("mode"), -6)
        .arg(QStringLiteral("reused"), -6)
        .arg(QStringLiteral("port"), 6)
        .arg(QStringLiteral("connect_ms"), 10)
        .arg(QStringLiteral("ttfb_ms"), 10)
        .arg(QStringLiteral("total_ms"), 10)
        .arg(QStringLiteral("ttft_ms"), 10)
        .arg(QStringLiteral("status"), 6)
        .arg(QStringLiteral("note"));
}

QString probeTableLine(int number, const probes::ProbeResult &r, const QString &context)
{
    QString note = r.note;
    // The engine's "timed out after N ms" reads as a measured length: a bound instead.
    if (r.timedOut)
        note = totalTimeText(r);
    if (!r.error.isEmpty() && !note.contains(r.error))
        note = note.isEmpty() ? r.error : note + QStringLiteral(" (") + r.error + u')';
    if (!context.isEmpty())
        note = note.isEmpty() ? context : context + QStringLiteral("; ") + note;
    return QStringLiteral("%1 %2 %3 %4 %5 %6 %7 %8 %9 %10")
        .arg(number, 4)
        .arg(probes::connectionModeName(r.mode), -6)
        .arg(r.connectionReused ? QStringLiteral("yes") : QStringLiteral("no"), -6)
        .arg(r.localPort, 6)
        .arg(column(r.connectMs), 10)
        .arg(column(r.ttfbMs), 10)
        .arg(r.timedOut ? u'>' + column(r.totalMs) : column(r.totalMs), 10)
        .arg(r.ttftMs >= 0 ? column(r.ttftMs) : QStringLiteral("-"), 10)
        .arg(r.status, 6)
        .arg(note);
}

} // namespace opsdeck::cli
