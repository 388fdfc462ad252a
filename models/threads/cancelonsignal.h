#pragma once

#include <functional>

namespace opsdeck::threads {

/// Turns the first SIGINT, SIGTERM or SIGHUP into a cancel of the running
/// command, so that a long `probe`, `diagnose`, `verify` or `batch-check`
/// stopped by Ctrl-C or by a supervisor still prints what it measured, writes
/// the history of what completed and exits 3 (DESIGN.md, command-line
/// contract), and `record` flushes and removes its pid file; in the window
/// (app/opsdeck), closes it as its close button does.
///
/// How: the signal handler only writes a byte to a self-pipe and puts SIGINT
/// back to its default action, so a second Ctrl-C kills at once (a run that
/// does not end on cancel can always be stopped). A second SIGTERM or SIGHUP
/// (timeout(1) signals the child, then its group) stays handled: it must not
/// cut `record`'s last flush short; SIGKILL remains for a stuck run. A watcher
/// thread of its own reads the pipe and calls the callback of the live
/// CancelOnSignal; the callback must be safe to call from any thread (the
/// models' cancel()/stop() are).
///
/// Thread: construct and destroy on the main thread. Once the first object
/// was constructed, the handler stays for the life of the process: a signal
/// between two runs, or while the result is printed, only sets signalled().
class CancelOnSignal
{
public:
    /// Installs the handlers (once) and arms `cancel`; when a signal already
    /// came, `cancel` is called at once.
    explicit CancelOnSignal(std::function<void()> cancel = {});
    /// Disarms the callback; returns once it is no longer running.
    ~CancelOnSignal();
    CancelOnSignal(const CancelOnSignal &) = delete;
    CancelOnSignal &operator=(const CancelOnSignal &) = delete;

    /// True once SIGINT, SIGTERM or SIGHUP arrived (any thread).
    static bool signalled();
};

} // namespace opsdeck::threads
