#include "historywriter.h"

#include <QDir>
#include <QFileInfo>

namespace opsdeck::history {

HistoryWriter::HistoryWriter(const QString &databasePath, const Settings &settings, QObject *parent)
    : QObject(parent), m_path(QFileInfo(databasePath).absoluteFilePath()), m_settings(settings),
      m_lock(lockPath(databasePath)), m_queue(std::make_shared<PendingQueue>())
{
    m_thread.setObjectName(QStringLiteral("history-writer"));
    // Only a dead owner's lock is stale; a live recorder keeps it however old.
    m_lock.setStaleLockTime(0);
}

HistoryWriter::~HistoryWriter()
{
    stop();
}

QString HistoryWriter::lockPath(const QString &databasePath)
{
    return QFileInfo(databasePath).absoluteFilePath() + QStringLiteral(".lock");
}

bool HistoryWriter::start(QString *error)
{
    if (m_worker)
        return true;
    QDir().mkpath(QFileInfo(m_path).absolutePath());
    if (!m_lock.tryLock(0)) {
        qint64 pid = 0;
        QString host;
        QString program;
        if (m_lock.error() == QLockFile::LockFailedError &&
            m_lock.getLockInfo(&pid, &host, &program))
            *error = QStringLiteral("history is being recorded by pid %1 (%2 on %3) into %4; "
                                    "this process only reads it")
                         .arg(pid)
                         .arg(program, host, m_path);
        else
            *error = QStringLiteral("cannot take the history lock %1 (error %2)")
                         .arg(lockPath(m_path))
                         .arg(static_cast<int>(m_lock.error()));
        return false;
    }
    auto *worker = new HistoryWriterWorker(m_path, m_settings, m_queue);
    worker->moveToThread(&m_thread);
    connect(&m_thread, &QThread::finished, worker, &QObject::deleteLater);
    connect(worker, &HistoryWriterWorker::writeFailed, this, &HistoryWriter::writeFailed);
    m_thread.start();
    bool opened = false;
    QMetaObject::invokeMethod(
        worker, [worker, &opened, error] { opened = worker->open(error); },
        Qt::BlockingQueuedConnection);
    if (!opened) {
        m_thread.quit();
        m_thread.wait();
        m_lock.unlock();
        return false;
    }
    m_worker = worker;
    m_recording = true;
    return true;
}

void HistoryWriter::stop()
{
    if (!m_worker)
        return;
    m_recording = false;
    HistoryWriterWorker *worker = m_worker;
    QMetaObject::invokeMethod(
        worker, [worker] { worker->flush(true); }, Qt::BlockingQueuedConnection);
    m_worker = nullptr;
    m_thread.quit();
    m_thread.wait();
    m_lock.unlock();
}

void HistoryWriter::append(const QString &service, const QString &key, const QString &unit,
                           qint64 timeMs, double value)
{
    if (!m_recording)
        return;
    QMutexLocker lock(&m_queue->mutex);
    m_queue->samples.append({{service, key}, unit, {timeMs, value}});
}

bool HistoryWriter::flush()
{
    if (!m_worker)
        return false;
    bool ok = false;
    HistoryWriterWorker *worker = m_worker;
    QMetaObject::invokeMethod(
        worker, [worker, &ok] { ok = worker->flush(false); }, Qt::BlockingQueuedConnection);
    return ok;
}

} // namespace opsdeck::history
