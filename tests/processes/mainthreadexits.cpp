// A server whose main thread exits at SIGTERM while another thread runs on
// (a C or C++ server whose main() ends in pthread_exit, a Python one that
// drains in a non-daemon thread): the process runs, though /proc/PID/status
// of its leader says Z. processcontrol_test starts it; the other thread ends
// by itself after two minutes, so a test killed midway leaves nothing for long.
#include <csignal>
#include <poll.h>
#include <pthread.h>
#include <unistd.h>

namespace {

// Waits for what never comes (a pipe no one writes), with a deadline: the
// drain of open connections, until SIGKILL or two minutes.
void *drain(void *)
{
    int never[2];
    if (::pipe(never) == 0) {
        pollfd wait{never[0], POLLIN, 0};
        ::poll(&wait, 1, 120 * 1000);
    }
    return nullptr;
}

} // namespace

int main()
{
    // Blocked in every thread (the drain inherits the mask): SIGTERM is
    // taken by sigwait below, and only SIGKILL ends the drain early.
    sigset_t term;
    sigemptyset(&term);
    sigaddset(&term, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &term, nullptr);
    pthread_t thread;
    if (pthread_create(&thread, nullptr, drain, nullptr) != 0)
        return 1;
    int signal = 0;
    sigwait(&term, &signal);
    pthread_exit(nullptr);
}
