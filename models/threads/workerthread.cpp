#include "workerthread.h"

namespace opsdeck::threads {

WorkerThread::WorkerThread(const QString &name)
{
    m_thread.setObjectName(name);
    m_thread.start();
}

WorkerThread::WorkerThread(const QString &name, std::function<void()> body)
{
    m_thread.body = std::move(body);
    m_thread.setObjectName(name);
    m_thread.start();
}

void WorkerThread::Thread::run()
{
    if (body)
        body();
    else
        exec();
}

WorkerThread::~WorkerThread()
{
    stop();
}

void WorkerThread::adoptObject(QObject *worker)
{
    worker->moveToThread(&m_thread);
    QObject::connect(&m_thread, &QThread::finished, worker, &QObject::deleteLater);
}

void WorkerThread::stop()
{
    m_thread.quit();
    m_thread.wait();
}

} // namespace opsdeck::threads
