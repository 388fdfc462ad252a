#pragma once

#include "historysample.h"
#include "historystore.h"
#include "retention.h"
#include "rollup.h"
#include "serieskey.h"

#include <QElapsedTimer>
#include <QHash>
#include <QMutex>
#include <QObject>
#include <QVector>
#include <atomic>
#include <memory>
#include <utility>

class QTimer;

namespace opsdeck::history {

/// One sample waiting to be written, with the series it belongs to.
struct PendingSample
{
    SeriesKey series;
    QString unit;
    Sample sample;
};

/// Samples appended from any thread, taken by the worker at each flush. A
/// flush that fails puts its samples back in front, to be written by the next
/// one; at most kMaxSamples wait (about 4 minutes of 64 services polled every
/// second, ~50 MB); beyond that the oldest are dropped and counted.
struct PendingQueue
{
    static constexpr qsizetype kMaxSamples = 500'000;
    QMutex mutex;
    QVector<PendingSample> samples;
    /// Samples that will never be written, since the writer was made: dropped
    /// past kMaxSamples, or still queued when a corrupt file or stop() ended
    /// recording (any thread).
    std::atomic<qint64> samplesNotWritten{0};
};

/// HistoryWriter's worker: lives on the writer's thread and owns its
/// HistoryStore connection. Each flush takes every pending sample and writes
/// them in one transaction: open blocks (one per series) are rewritten in
/// place until they hold `blockSamples`, then a new block starts; a minute's
/// rollup is written when a sample of a later minute arrives (and, on the
/// final flush, for the minutes still open). Internal to HistoryWriter.
class HistoryWriterWorker : public QObject
{
    Q_OBJECT
public:
    struct Settings
    {
        int flushIntervalMs = 5000;
        int blockSamples = 600;
        int pruneIntervalMs = 10 * 60 * 1000;
        Retention retention;
    };

    HistoryWriterWorker(const QString &path, const Settings &settings,
                        std::shared_ptr<PendingQueue> queue);
    ~HistoryWriterWorker() override;

    /// Opens the store, runs SQLite's quick_check, and starts the flush
    /// timer; false with `error` set (isCorrupt() tells a corrupt file).
    bool open(QString *error);
    bool isCorrupt() const { return m_corrupt; }
    /// Why the file was found corrupt (or removed): the text corrupted() carried.
    QString corruption() const { return m_corruption; }
    /// Writes what is pending; `final` also writes the open minutes' rollups.
    bool flush(bool final);

Q_SIGNALS:
    /// See HistoryWriter::writeFailed.
    void writeFailed(const QString &error, int failedFlushes, qint64 samplesNotWritten);
    /// See HistoryWriter::corrupted.
    void corrupted(const QString &error);

private:
    struct OpenSeries
    {
        qint64 id = 0;
        QVector<Sample> block;
        qint64 blockId = 0; ///< row of the open block, 0 before its first write
        bool dirty = false;
        Rollup minute;
        bool hasMinute = false;
    };
    bool add(const PendingSample &pending);
    /// Puts a failed batch back in front of what was queued since, bounded.
    void requeue(QVector<PendingSample> pending);
    bool closeMinute(OpenSeries &series);
    bool writeOpenBlocks();

    QString m_path;
    Settings m_settings;
    std::shared_ptr<PendingQueue> m_queue;
    std::unique_ptr<HistoryStore> m_store;
    QTimer *m_timer = nullptr;
    QHash<SeriesKey, OpenSeries> m_series;
    QElapsedTimer m_sincePrune;
    int m_failedFlushes = 0; ///< consecutive failed flushes, 0 after one succeeds
    bool m_corrupt = false;
    QString m_corruption;
    std::pair<quint64, quint64> m_file; ///< device and inode of the database when opened
    std::pair<quint64, quint64> m_wal;  ///< and of its -wal file
    QString m_lastError;                ///< of the last failed flush, empty after one succeeds
};

} // namespace opsdeck::history
