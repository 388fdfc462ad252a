#pragma once

#include "historywriterworker.h"
#include "workerthread.h"

#include <QLockFile>
#include <QObject>
#include <atomic>
#include <memory>

namespace opsdeck::history {

/// Records samples into the history database from any thread, on a thread
/// of its own: append() only queues (a mutex-guarded vector), and every
/// `flushIntervalMs` (default 5 s) and on stop() the worker writes what is
/// queued in one transaction (see HistoryWriterWorker for blocks and rollups).
/// Raw blocks and rollups past the retention are pruned at start and every
/// `pruneIntervalMs` (default 10 min).
///
/// Only one writer per database: start() takes a QLockFile beside it
/// (`history.sqlite.lock`, holding the writer's pid, host and program). A
/// second writer is refused with "history is being recorded by pid N ..."
/// and records nothing; its process can still read through a HistoryStore.
/// A lock left by a process that died is taken over, and so is an empty or
/// unreadable lock older than 5 s (a writer killed between creating the file
/// and writing its pid into it).
///
/// Thread: create, start, stop and destroy on one thread; append() from any.
/// start() and stop() wait for the worker (opening the file, the last flush).
class HistoryWriter : public QObject
{
    Q_OBJECT
public:
    using Settings = HistoryWriterWorker::Settings;

    explicit HistoryWriter(const QString &databasePath, const Settings &settings = {},
                           QObject *parent = nullptr);
    ~HistoryWriter() override;

    /// Why the last start() failed.
    enum class StartFailure
    {
        None,
        Locked,            ///< another writer holds the lock
        UnusableDirectory, ///< the directory or its lock file cannot be made (bad input)
        Database           ///< the database file cannot be opened
    };

    /// Age (ms) after which an empty or unreadable lock file counts as stale.
    static constexpr qint64 kEmptyLockStaleMs = 5000;

    /// `<database>.lock`, beside the file a symbolic link names (when it exists).
    static QString lockPath(const QString &databasePath);

    /// Takes the lock and opens the database. False with `error` set when
    /// another writer holds it or the file cannot be opened.
    bool start(QString *error);
    /// Writes what is queued (rollups of the open minutes too), closes the
    /// database and releases the lock. Idempotent.
    void stop();
    /// Samples lost in failed flushes since this writer was made; any thread.
    qint64 samplesNotWritten() const { return m_queue->samplesNotWritten.load(); }
    StartFailure startFailure() const { return m_startFailure; }
    bool isRecording() const { return m_worker != nullptr; }
    QString databasePath() const { return m_path; }

    /// Queues one sample of (service, key); `unit` as shown on an axis.
    /// Any thread; dropped when not recording.
    void append(const QString &service, const QString &key, const QString &unit, qint64 timeMs,
                double value);
    /// Writes what is queued now and waits for it; false when writing failed.
    bool flush();

Q_SIGNALS:
    /// Writing failed (disk full, file removed, a corrupted file...): the
    /// samples of that batch are lost. `failedFlushes` counts the flushes
    /// failed in a row (1 on the first), `samplesNotWritten` every sample
    /// lost since this writer was made. Emitted on every failed flush.
    void writeFailed(const QString &error, int failedFlushes, qint64 samplesNotWritten);

private:
    bool removeEmptyStaleLock();

    QString m_path;
    Settings m_settings;
    QLockFile m_lock;
    /// The worker's thread while recording (created in start(), ended in stop()).
    std::unique_ptr<threads::WorkerThread> m_thread;
    std::shared_ptr<PendingQueue> m_queue;
    HistoryWriterWorker *m_worker = nullptr;
    std::atomic<bool> m_recording{false};
    StartFailure m_startFailure = StartFailure::None;
};

} // namespace opsdeck::history
