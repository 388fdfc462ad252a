#include "cancelonsignal.h"

#include <atomic>
#include <cerrno>
#include <csignal>
#include <fcntl.h>
#include <mutex>
#include <thread>
#include <unistd.h>

namespace opsdeck::threads {

namespace {

// SIGHUP too: a closed terminal or a dropped ssh session stops a run like Ctrl-C.
constexpr int handledSignals[] = {SIGINT, SIGTERM, SIGHUP};
int pipeFds[2] = {-1, -1};
std::atomic<bool> signalledFlag{false};
static_assert(std::atomic<bool>::is_always_lock_free, "read in a signal handler");

std::mutex callbackMutex;
std::function<void()> armedCallback; // guarded by callbackMutex

// A second Ctrl-C kills at once (a person who presses it twice means it);
// a second TERM or HUP (timeout(1), a closing terminal) must not cut the
// flush short, so they stay handled.
void resetInterruptToDefault()
{
    struct sigaction action = {};
    action.sa_handler = SIG_DFL;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, nullptr);
}

// Async-signal-safe only: sigaction, an atomic store, write.
extern "C" void onSignal(int)
{
    resetInterruptToDefault();
    signalledFlag.store(true);
    const char byte = 1;
    [[maybe_unused]] const ssize_t written = ::write(pipeFds[1], &byte, 1);
}

void callArmed()
{
    std::lock_guard lock(callbackMutex);
    if (armedCallback)
        armedCallback();
}

void installOnce()
{
    static std::once_flag once;
    std::call_once(once, [] {
        if (::pipe2(pipeFds, O_CLOEXEC) != 0)
            return; // no pipe: signals keep their default action (they kill)
        // Lives as long as the process, blocked in read() between signals.
        std::thread([] {
            // The signals go to other threads: this one only reads the pipe.
            sigset_t handled;
            sigemptyset(&handled);
            for (const int signal : handledSignals)
                sigaddset(&handled, signal);
            pthread_sigmask(SIG_BLOCK, &handled, nullptr);
            char byte = 0;
            for (;;) {
                const ssize_t n = ::read(pipeFds[0], &byte, 1);
                if (n == 1)
                    callArmed();
                else if (n < 0 && errno == EINTR)
                    continue; // a signal landed on this thread: keep watching
                else
                    break;
            }
        }).detach();
        struct sigaction action = {};
        action.sa_handler = onSignal;
        action.sa_flags = SA_RESTART;
        sigemptyset(&action.sa_mask);
        for (const int signal : handledSignals)
            sigaction(signal, &action, nullptr);
    });
}

} // namespace

CancelOnSignal::CancelOnSignal(std::function<void()> cancel)
{
    installOnce();
    {
        std::lock_guard lock(callbackMutex);
        armedCallback = std::move(cancel);
    }
    if (signalled())
        callArmed();
}

CancelOnSignal::~CancelOnSignal()
{
    std::lock_guard lock(callbackMutex);
    armedCallback = {};
}

bool CancelOnSignal::signalled()
{
    return signalledFlag.load();
}

} // namespace opsdeck::threads
