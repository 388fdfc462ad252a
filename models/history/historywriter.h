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
        Database,          ///< the database file cannot be opened
        Corrupt            ///< SQLite finds the file corrupt: left as it is (moveAside())
    };

    /// Age (ms) after which an empty or unreadable lock file counts as stale.
    static constexpr qint64 kEmptyLockStaleMs = 5000;

    /// `<database>.lock`, beside the file a symbolic link names (when it exists).
    static QString lockPath(const QString &databasePath);

    /// Takes the lock and opens the database. False with `error` set when
    /// another writer holds it or the file cannot be opened.
    bool start(QString *error);
    /// Writes what is queued (rollups of the open minutes too), closes the
    /// database and releases the lock; samples it could not write are counted
    /// in samplesNotWritten(). Idempotent.
    void stop();
    /// Samples that will never be written since this writer was made (any
    /// thread): exact, see PendingQueue.
    qint64 samplesNotWritten() const { return m_queue->samplesNotWritten.load(); }
    /// Samples waiting for the next flush (more after failed flushes); any thread.
    qsizetype samplesQueued() const;
    StartFailure startFailure() const { return m_startFailure; }
    /// True while samples are taken: started, and the file not found corrupt.
    bool isRecording() const { return m_worker != nullptr && m_recording; }
    bool isCorrupt() const { return m_corrupt; }

    /// Moves a database nobody records into (and its -wal / -shm files) aside
    /// as `<name>.corrupt-<UTC yyyyMMddTHHmmssZ>` (then `-2`, `-3`… within one
    /// second; an existing file is never replaced), so that the next start()
    /// begins a new one. False with `error` when a writer holds it or a rename
    /// fails (then nothing was moved); `movedTo` names the new path.
    static bool moveAside(const QString &databasePath, QString *movedTo, QString *error);
    QString databasePath() const { return m_path; }

    /// Queues one sample of (service, key); `unit` as shown on an axis.
    /// Any thread; dropped when not recording.
    void append(const QString &service, const QString &key, const QString &unit, qint64 timeMs,
                double value);
    /// Writes what is queued now and waits for it; false when writing failed.
    bool flush();

Q_SIGNALS:
    /// Writing failed (disk full, file removed...): the samples of that batch
    /// stay queued for the next flush (PendingQueue's bound). `failedFlushes`
    /// counts the flushes failed in a row (1 on the first),
    /// `samplesNotWritten` every sample lost for good since this writer was
    /// made. Emitted on every failed flush.
    void writeFailed(const QString &error, int failedFlushes, qint64 samplesNotWritten);
    /// SQLite found the file corrupt while writing: recording stopped at once
    /// (isRecording() is false), the file is left as it is; `error` says so
    /// and how to move it aside. The owner stops the writer.
    void corrupted(const QString &error);

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
    bool m_corrupt = false;
    StartFailure m_startFailure = StartFailure::None;
};

} // namespace opsdeck::history
