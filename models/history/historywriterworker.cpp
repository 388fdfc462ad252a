#include "historywriterworker.h"

#include <QDateTime>
#include <QTimer>
#include <spdlog/spdlog.h>

namespace opsdeck::history {

HistoryWriterWorker::HistoryWriterWorker(const QString &path, const Settings &settings,
                                         std::shared_ptr<PendingQueue> queue)
    : m_path(path), m_settings(settings), m_queue(std::move(queue))
{
}

HistoryWriterWorker::~HistoryWriterWorker() = default;

bool HistoryWriterWorker::open(QString *error)
{
    // Created here: a Qt Sql connection belongs to the thread that made it.
    m_store = std::make_unique<HistoryStore>(m_path);
    if (!m_store->open()) {
        *error = m_store->lastError();
        m_store.reset();
        return false;
    }
    m_store->prune(m_settings.retention, QDateTime::currentMSecsSinceEpoch());
    m_sincePrune.start();
    m_timer = new QTimer(this);
    connect(m_timer, &QTimer::timeout, this, [this] { flush(false); });
    m_timer->start(m_settings.flushIntervalMs);
    return true;
}

bool HistoryWriterWorker::flush(bool final)
{
    if (!m_store)
        return false;
    QVector<PendingSample> pending;
    {
        QMutexLocker lock(&m_queue->mutex);
        pending.swap(m_queue->samples);
    }
    if (pending.isEmpty() && !final && m_sincePrune.elapsed() < m_settings.pruneIntervalMs)
        return true;
    bool ok = m_store->beginBatch();
    for (const PendingSample &sample : std::as_const(pending))
        ok = ok && add(sample);
    if (final) {
        for (OpenSeries &series : m_series)
            ok = ok && closeMinute(series);
    }
    ok = ok && writeOpenBlocks();
    if (ok && m_sincePrune.elapsed() >= m_settings.pruneIntervalMs) {
        ok = m_store->prune(m_settings.retention, QDateTime::currentMSecsSinceEpoch()).has_value();
        m_sincePrune.restart();
    }
    ok = ok && m_store->commitBatch();
    if (!ok) {
        m_store->rollbackBatch();
        // Block row ids may now point at rows the rollback removed: start
        // every series afresh rather than rewrite a row that is not there.
        m_series.clear();
        const QString error = m_store->lastError();
        ++m_failedFlushes;
        m_queue->samplesNotWritten += pending.size();
        // A broken file fails every flush the same way: one log line per
        // change of error, not one every flush interval.
        if (error != m_lastError)
            spdlog::error("history: writing into {} failed: {} ({} samples not written so far)",
                          m_path.toStdString(), error.toStdString(),
                          m_queue->samplesNotWritten.load());
        m_lastError = error;
        Q_EMIT writeFailed(error, m_failedFlushes, m_queue->samplesNotWritten.load());
    } else {
        m_failedFlushes = 0;
        m_lastError.clear();
    }
    return ok;
}

bool HistoryWriterWorker::add(const PendingSample &pending)
{
    auto it = m_series.find(pending.series);
    if (it == m_series.end()) {
        const auto id = m_store->seriesId(pending.series.service, pending.series.key, pending.unit);
        if (!id)
            return false;
        it = m_series.insert(pending.series, OpenSeries{});
        it->id = *id;
        it->block.reserve(m_settings.blockSamples);
    }
    OpenSeries &series = *it;
    const Sample &sample = pending.sample;
    const qint64 minute = Rollup::minuteOf(sample.timeMs);
    if (series.hasMinute && minute > series.minute.minuteMs && !closeMinute(series))
        return false;
    if (series.hasMinute && minute < series.minute.minuteMs) {
        // A late sample of a minute already written: merged into that row.
        Rollup late;
        late.minuteMs = minute;
        late.add(sample.value);
        if (!m_store->mergeRollup(series.id, late))
            return false;
    } else {
        if (!series.hasMinute) {
            series.minute = Rollup{};
            series.minute.minuteMs = minute;
            series.hasMinute = true;
        }
        series.minute.add(sample.value);
    }
    series.block.append(sample);
    series.dirty = true;
    if (series.block.size() >= m_settings.blockSamples) {
        const auto row = m_store->writeBlock(series.id, series.blockId, series.block);
        if (!row)
            return false;
        series.block.clear(); // full: the next sample starts a new row
        series.blockId = 0;
        series.dirty = false;
    }
    return true;
}

bool HistoryWriterWorker::closeMinute(OpenSeries &series)
{
    if (!series.hasMinute)
        return true;
    series.hasMinute = false;
    return m_store->mergeRollup(series.id, series.minute);
}

bool HistoryWriterWorker::writeOpenBlocks()
{
    for (OpenSeries &series : m_series) {
        if (!series.dirty || series.block.isEmpty())
            continue;
        const auto row = m_store->writeBlock(series.id, series.blockId, series.block);
        if (!row)
            return false;
        series.blockId = *row;
        series.dirty = false;
    }
    return true;
}

} // namespace opsdeck::history
