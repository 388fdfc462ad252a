#pragma once

#include "probe.h"

#include <QObject>
#include <functional>
#include <memory>

namespace opsdeck::probes {

/// Runs HTTP probes on libcurl's multi interface, on a thread of its own
/// (started by the constructor, joined by the destructor), so that connection
/// reuse is what curl really did — Qt Network hides it and silently retries a
/// stale keep-alive connection, the very fault OpsDeck must show.
///
/// Connections: Fresh probes never enter curl's connection cache; the
/// connection a Reused probe leaves stays open for the next Reused probe to
/// the same origin (one kept-alive connection per origin; the caller
/// serializes Reused probes of one origin). CURLOPT_MAXAGE_CONN is set above
/// `Limits::maxIdleGapS`, so curl itself never retires a connection the
/// caller is keeping idle on purpose. When the server closed it meanwhile,
/// curl opens a new one: the result says staleKeepAlive, with the idle time.
///
/// Bounds: at most `Limits::maxConcurrent` (<= 256) transfers at once, the
/// rest wait in submission order; each probe bounded by its timeoutMs and
/// maxBytes; cancel() and cancelAll() end transfers at once (result
/// `cancelled`). The destructor cancels everything and joins within 1 s.
///
/// Thread: submit(), cancel() and cancelAll() from any thread. Callbacks run
/// on the engine's thread (keep them short); probeFinished is emitted there
/// too (queued to receivers in other threads).
class ProbeEngine : public QObject
{
    Q_OBJECT
public:
    struct Limits
    {
        int maxConcurrent = 256;  ///< transfers at once, 1..256
        double maxIdleGapS = 600; ///< longest idle gap a Reused probe may follow, s
    };
    using Callback = std::function<void(const ProbeResult &)>;

    explicit ProbeEngine(QObject *parent = nullptr);
    ProbeEngine(Limits limits, QObject *parent = nullptr);
    ~ProbeEngine() override;

    /// Queues a probe; returns its id (> 0). `onDone`, when given, is called
    /// once with the result on the engine's thread, before probeFinished.
    quint64 submit(ProbeRequest request, Callback onDone = {});
    /// While one lives, submit() calls from the thread that made it queue
    /// without waking the engine's thread; its end wakes it once. A round of
    /// N probes then costs one wake-up (a syscall and a loop turn on each
    /// side) instead of N. Other threads' submissions wake it as usual.
    class Batch
    {
    public:
        explicit Batch(ProbeEngine &engine);
        ~Batch();
        Batch(const Batch &) = delete;
        Batch &operator=(const Batch &) = delete;

    private:
        ProbeEngine &m_engine;
        bool m_outer; ///< the outermost batch of its thread: wakes at the end
    };

    /// Blocks the calling thread (never the GUI thread) until the probe ends.
    ProbeResult run(ProbeRequest request);
    void cancel(quint64 id);
    void cancelAll();

Q_SIGNALS:
    void probeFinished(const opsdeck::probes::ProbeResult &result);

private:
    class Loop;
    std::unique_ptr<Loop> m_loop;
};

} // namespace opsdeck::probes
