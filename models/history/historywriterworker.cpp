#include "historywriterworker.h"

#include <QDateTime>
#include <QFile>
#include <QTimer>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <utility>

namespace opsdeck::history {

namespace {

// Device and inode: which file the path names now.
std::pair<quint64, quint64> fileIdentity(const QString &path)
{
    struct stat st
    {
    };
    if (::stat(QFile::encodeName(path).constData(), &st) != 0)
        return {0, 0};
    return {quint64(st.st_dev), quint64(st.st_ino)};
}

QString corruptText(const QString &error)
{
    return QStringLiteral("the history database is corrupt (%1): recording stopped and the file "
                          "left as it is; `opsdeck-cli record --recover` or the window's \"Move it "
                          "aside\" button "
                          "moves it aside and starts a new one")
        .arg(error);
}

} // namespace

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
    // A corrupt file is left as it is: writing on would lose more of it.
    if (!m_store->open(true)) {
        m_corrupt = m_store->lastErrorIsCorruption();
        *error = m_corrupt ? corruptText(m_store->lastError()) : m_store->lastError();
        m_store.reset();
        return false;
    }
    m_store->prune(m_settings.retention, QDateTime::currentMSecsSinceEpoch());
    m_file = fileIdentity(m_path);
    m_wal = fileIdentity(m_path + QStringLiteral("-wal"));
    m_sincePrune.start();
    m_timer = new QTimer(this);
    connect(m_timer, &QTimer::timeout, this, [this] { flush(false); });
    m_timer->start(m_settings.flushIntervalMs);
    return true;
}

bool HistoryWriterWorker::flush(bool final)
{
    if (!m_store || m_corrupt)
        return false;
    // Removed or replaced under us: SQLite would go on writing into a deleted
    // file, and every sample would be lost without a word.
    if (fileIdentity(m_path) != m_file) {
        m_corrupt = true;
        m_timer->stop();
        QString error =
            QStringLiteral("%1 was removed or replaced while recording: recording stopped, "
                           "nothing more is written (the samples queued are counted as not "
                           "written)")
                .arg(m_path);
        // SQLite keeps the WAL of a file that moved; the next opener would
        // replay it into the new file (a restored backup would be overwritten).
        m_store.reset();
        if (m_wal != std::pair<quint64, quint64>{0, 0} &&
            fileIdentity(m_path + QStringLiteral("-wal")) == m_wal) {
            const QString aside =
                QStringLiteral(".of-replaced-%1")
                    .arg(QDateTime::currentDateTimeUtc().toString(u"yyyyMMdd'T'HHmmss'Z'"));
            for (const QString &suffix : {QStringLiteral("-wal"), QStringLiteral("-shm")})
                QFile::rename(m_path + suffix, m_path + suffix + aside);
            error += QStringLiteral("; its old -wal and -shm were moved aside (%1) so that they "
                                    "are never replayed into the new file")
                         .arg(m_path + QStringLiteral("-wal") + aside);
        }
        spdlog::error("history: {}", error.toStdString());
        m_corruption = error;
        Q_EMIT corrupted(error);
        return false;
    }
    // Written in place under us (a backup copied over it): this connection's
    // pages are for the file as it was; writing on would corrupt both.
    if (const QString outside = m_store->writtenOutside(); !outside.isEmpty()) {
        m_corrupt = true;
        m_timer->stop();
        m_store->keepWalOnClose();
        m_store.reset();
        const QString error =
            outside + QStringLiteral(": recording stopped, nothing more is written (the samples "
                                     "queued are counted as not written); the pages recorded "
                                     "since the last checkpoint are set aside, not replayed, at "
                                     "the next start");
        spdlog::error("history: {}", error.toStdString());
        m_corruption = error;
        Q_EMIT corrupted(error);
        return false;
    }
    QVector<PendingSample> pending;
    {
        QMutexLocker lock(&m_queue->mutex);
        pending.swap(m_queue->samples);
    }
    if (pending.isEmpty() && !final && m_sincePrune.elapsed() < m_settings.pruneIntervalMs)
        return true;
    // Restored when the batch fails: the open blocks and minutes as they were
    // before it, so that its samples, queued again, are written once.
    const QHash<SeriesKey, OpenSeries> before = m_series;
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
        const bool corrupt = m_store->lastErrorIsCorruption();
        const QString error = corrupt ? corruptText(m_store->lastError()) : m_store->lastError();
        m_store->rollbackBatch();
        m_series = before;
        requeue(std::move(pending));
        if (corrupt) {
            // Stop at once: every later flush would fail alike and lose more.
            m_corrupt = true;
            m_timer->stop();
            spdlog::error("history: {}", error.toStdString());
            m_corruption = error;
            Q_EMIT corrupted(error);
            return false;
        }
        ++m_failedFlushes;
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

void HistoryWriterWorker::requeue(QVector<PendingSample> pending)
{
    QMutexLocker lock(&m_queue->mutex);
    pending.append(m_queue->samples);
    const qsizetype excess = pending.size() - PendingQueue::kMaxSamples;
    if (excess > 0) {
        pending.remove(0, excess); // the oldest go first
        m_queue->samplesNotWritten += excess;
    }
    m_queue->samples = std::move(pending);
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
