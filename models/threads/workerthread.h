#pragma once

#include <QObject>
#include <QString>
#include <QThread>
#include <functional>

namespace opsdeck::threads {

/// The one owner of a long-lived worker thread: a named QThread running an
/// event loop for worker QObjects moved to it, held the RAII way (as
/// qBittorrent's Utils::Thread::UniquePtr with its graceful deleter). The
/// thread starts with the owner; stop(), or destruction, quits its event loop
/// and waits until it has ended, and the workers adopt()ed are then deleted
/// on that thread (deleteLater on QThread::finished), never on the caller's.
///
/// A worker that is one blocking loop rather than QObjects (the keep-alive
/// watch's rounds of one cluster) is given as `body`: the thread runs it
/// instead of an event loop, and stop() waits for it to return, so the body
/// must watch a stop request of its own (ask it before stop()).
///
/// Thread: create, use and destroy from one thread (the GUI or main thread);
/// talk to the workers with queued calls or signals only.
class WorkerThread
{
public:
    /// `name`: the thread's name, as `top -H` and a debugger show it.
    explicit WorkerThread(const QString &name);
    /// A thread that runs `body` once, then ends.
    WorkerThread(const QString &name, std::function<void()> body);
    ~WorkerThread();
    WorkerThread(const WorkerThread &) = delete;
    WorkerThread &operator=(const WorkerThread &) = delete;

    /// Moves `worker` (without a parent) to this thread, to be deleted there
    /// when the thread ends. Returns `worker`.
    template <typename Worker> Worker *adopt(Worker *worker)
    {
        adoptObject(worker);
        return worker;
    }
    /// Quits the event loop (or waits for the body to return) and waits for
    /// the thread to end (the adopted workers are deleted by then). Idempotent.
    void stop();
    bool isRunning() const { return m_thread.isRunning(); }

private:
    /// Runs the body when there is one, else an event loop.
    class Thread : public QThread
    {
    public:
        std::function<void()> body;

    protected:
        void run() override;
    };
    void adoptObject(QObject *worker);

    Thread m_thread;
};

} // namespace opsdeck::threads
