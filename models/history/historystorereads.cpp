// HistoryStore's queries (the writes are in historystore.cpp).
#include "historystore.h"
#include "sampleblockcodec.h"

#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QVariant>
#include <algorithm>

namespace opsdeck::history {

QVector<Sample> HistoryStore::rawOf(qint64 seriesId, qint64 fromMs, qint64 toMs)
{
    QSqlQuery query(QSqlDatabase::database(m_connection, false));
    query.setForwardOnly(true);
    query.prepare(QStringLiteral("SELECT data FROM blocks WHERE series_id = ? AND end_ms >= ? "
                                 "AND start_ms <= ? ORDER BY start_ms"));
    query.addBindValue(seriesId);
    query.addBindValue(fromMs);
    query.addBindValue(toMs);
    QVector<Sample> samples;
    if (!query.exec()) {
        fail(QStringLiteral("read blocks"), query.lastError());
        return samples;
    }
    while (query.next()) {
        const auto block = SampleBlockCodec::decode(query.value(0).toByteArray());
        if (!block) {
            fail(QStringLiteral("read blocks"), QStringLiteral("a corrupt block was skipped"));
            continue;
        }
        for (const Sample &sample : *block)
            if (sample.timeMs >= fromMs && sample.timeMs <= toMs)
                samples.append(sample);
    }
    // Blocks of one series may overlap after a restart; time order is what charts need.
    std::stable_sort(samples.begin(), samples.end(),
                     [](const Sample &a, const Sample &b) { return a.timeMs < b.timeMs; });
    return samples;
}

QVector<Rollup> HistoryStore::rollupsOf(qint64 seriesId, qint64 fromMs, qint64 toMs)
{
    QSqlQuery query(QSqlDatabase::database(m_connection, false));
    query.setForwardOnly(true);
    query.prepare(QStringLiteral("SELECT minute_ms, min, max, mean, last, count FROM rollups_1m "
                                 "WHERE series_id = ? AND minute_ms >= ? AND minute_ms <= ? "
                                 "ORDER BY minute_ms"));
    query.addBindValue(seriesId);
    query.addBindValue(fromMs);
    query.addBindValue(toMs);
    QVector<Rollup> rollups;
    if (!query.exec()) {
        fail(QStringLiteral("read rollups"), query.lastError());
        return rollups;
    }
    while (query.next()) {
        Rollup rollup;
        rollup.minuteMs = query.value(0).toLongLong();
        rollup.min = query.value(1).toDouble();
        rollup.max = query.value(2).toDouble();
        rollup.mean = query.value(3).toDouble();
        rollup.last = query.value(4).toDouble();
        rollup.count = query.value(5).toLongLong();
        rollups.append(rollup);
    }
    return rollups;
}

QVector<Sample> HistoryStore::rawSamples(const QString &service, const QString &key, qint64 fromMs,
                                         qint64 toMs)
{
    const auto id = findSeries(service, key);
    return id ? rawOf(*id, fromMs, toMs) : QVector<Sample>{};
}

QVector<Rollup> HistoryStore::rollups(const QString &service, const QString &key, qint64 fromMs,
                                      qint64 toMs)
{
    const auto id = findSeries(service, key);
    return id ? rollupsOf(*id, fromMs, toMs) : QVector<Rollup>{};
}

QVector<HistoryPoint> HistoryStore::points(const QString &service, const QString &key,
                                           qint64 fromMs, qint64 toMs)
{
    QVector<HistoryPoint> points;
    const auto id = findSeries(service, key);
    if (!id)
        return points;
    // Raw samples start where the oldest kept block starts; before it only
    // rollups remain (retention deletes whole blocks, oldest first).
    QSqlQuery oldest(QSqlDatabase::database(m_connection, false));
    oldest.prepare(QStringLiteral("SELECT min(start_ms) FROM blocks WHERE series_id = ?"));
    oldest.addBindValue(*id);
    qint64 rawFrom = toMs + 1;
    if (oldest.exec() && oldest.next() && !oldest.value(0).isNull())
        rawFrom = std::max(fromMs, oldest.value(0).toLongLong());
    if (fromMs < rawFrom) {
        // A minute is drawn from rollups only when it ends before raw data begins.
        for (const Rollup &rollup : rollupsOf(*id, fromMs, std::min(toMs, rawFrom - 60000)))
            points.append({rollup.minuteMs, rollup.mean, rollup.min, rollup.max, true});
    }
    if (rawFrom <= toMs) {
        for (const Sample &sample : rawOf(*id, rawFrom, toMs))
            points.append({sample.timeMs, sample.value, sample.value, sample.value, false});
    }
    return points;
}

QVector<Marker> HistoryStore::markers(qint64 fromMs, qint64 toMs)
{
    QSqlQuery query(QSqlDatabase::database(m_connection, false));
    query.setForwardOnly(true);
    query.prepare(QStringLiteral("SELECT id, time_ms, kind, text, link, service FROM markers "
                                 "WHERE time_ms >= ? AND time_ms <= ? ORDER BY time_ms, id"));
    query.addBindValue(fromMs);
    query.addBindValue(toMs);
    QVector<Marker> markers;
    if (!query.exec()) {
        fail(QStringLiteral("read markers"), query.lastError());
        return markers;
    }
    while (query.next()) {
        markers.append({query.value(0).toLongLong(), query.value(1).toLongLong(),
                        query.value(2).toString(), query.value(3).toString(),
                        query.value(4).toString(), query.value(5).toString()});
    }
    return markers;
}

QVector<CheckRecord> HistoryStore::checks(qint64 fromMs, qint64 toMs, const QString &kind)
{
    QSqlQuery query(QSqlDatabase::database(m_connection, false));
    query.setForwardOnly(true);
    query.prepare(QStringLiteral("SELECT id, time_ms, kind, cluster, json FROM checks "
                                 "WHERE time_ms >= ? AND time_ms <= ? AND (? = '' OR kind = ?) "
                                 "ORDER BY time_ms, id"));
    query.addBindValue(fromMs);
    query.addBindValue(toMs);
    query.addBindValue(kind.isNull() ? QString(QLatin1String("")) : kind);
    query.addBindValue(kind.isNull() ? QString(QLatin1String("")) : kind);
    QVector<CheckRecord> checks;
    if (!query.exec()) {
        fail(QStringLiteral("read checks"), query.lastError());
        return checks;
    }
    while (query.next()) {
        checks.append({query.value(0).toLongLong(), query.value(1).toLongLong(),
                       query.value(2).toString(), query.value(3).toString(),
                       query.value(4).toString().toUtf8()});
    }
    return checks;
}

QVector<SeriesInfo> HistoryStore::seriesList()
{
    QSqlQuery query(QSqlDatabase::database(m_connection, false));
    query.setForwardOnly(true);
    QVector<SeriesInfo> list;
    if (!query.exec(QStringLiteral("SELECT id, service, key, unit FROM series "
                                   "ORDER BY service, key"))) {
        fail(QStringLiteral("read series"), query.lastError());
        return list;
    }
    while (query.next()) {
        list.append({query.value(0).toLongLong(), query.value(1).toString(),
                     query.value(2).toString(), query.value(3).toString()});
    }
    return list;
}

} // namespace opsdeck::history
