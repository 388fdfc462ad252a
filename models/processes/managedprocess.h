#pragma once

#include "inventory.h"

#include <QString>

namespace opsdeck::processes {

/// A process OpsDeck starts and stops on a host: a service of the inventory,
/// or a helper process of the demo (its traffic generator). The commands run
/// through the host's transport with `bash -s`.
///
/// Identity: a pid file only says which pid was started, and pids are reused.
/// After a start OpsDeck writes `<pid file>.identity` beside it (`pid=`,
/// `start=` the start time in clock ticks since boot, field 22 of
/// /proc/PID/stat, `exe=`, `boot=` /proc/sys/kernel/random/boot_id,
/// `pidfile=` the pid file's path, `args=`); the derived status, stop and
/// kill act only on the pid the pid file names when that process has the
/// identity's pid, start time and boot, and the identity was written for
/// this pid file (a folder copied whole brings the original's). (`exe` is
/// for the reader: a serve script's bash execs the server after it is written.) Without an identity
/// (a host's own start scripts) the process serving the service's `port` is the service: while
/// something listens there, the pid (or a child of it) must hold that socket (found in
/// /proc/net/tcp{,6} and /proc/PID/fd); while nothing listens (a server still
/// loading) or this user cannot read the pid's fds, the process must run
/// `program` (the serve script, else the server): named on its command line,
/// by a shell (bash, sh, dash, ksh, zsh) or as its own first word (an editor
/// or `tail -f` on the serve script is not the service). Pid 1 and below are never
/// signalled. Status exits 0 while it runs, 1 when not, 3 when the pid file names another process,
/// printing e.g. "run/proxy.pid names pid 4242, started 10:02:11, not the proxy started 09:15:40:
/// nothing stopped".
struct ManagedProcess
{
    QString name;
    QString host;  ///< inventory host name
    QString start; ///< starts it detached and writes pidFile
    /// Bash that checks the pid file's process is this one (see the class
    /// comment) and sets `$p` to its pid; ProcessControl runs it before stop
    /// and kill, and the derived status is it. Empty without a pid file.
    QString verify;
    /// Asks it to stop (SIGTERM); `$p` is the verified pid, `$also` its
    /// children when it is a serve script's shell or a parent that did not
    /// exec (without an identity), which the derived stop and kill signal too.
    QString stop;
    QString status; ///< exits 0 while it runs
    QString kill;   ///< last resort after the stop deadline (SIGKILL)
    /// Run once it is gone: removes the pid file (and its identity), so it is
    /// never signalled again; exits kNotOurs, saying why, and removes nothing
    /// when the file is no pid file (a link, a FIFO, text).
    QString forget;
    /// Run by the start's own script once `start` succeeded (so a console that
    /// dies between the two leaves no process without it): writes the identity
    /// file (nothing when the pid file is not there yet: a program that writes
    /// its own, as `record`); exits 1 saying why when it cannot be written.
    QString recordIdentity;
    /// Run when the service answers healthy, to show the answer is its own:
    /// exits 0 when the pid file's process (checked as `verify` does) or one
    /// under it holds the listening socket of `port` and nothing outside it
    /// does; 0 too, printing why, when this user cannot see who holds it or
    /// nothing the host shows listens there (the answer came from another
    /// network namespace: a container's published port); 1 when the process
    /// no longer runs; kNotOurs with a line ("port 30011 is served by pid
    /// 4242, ..., not by the decode started (pid 4300)") when another
    /// process serves it (an old server back, a watchdog's) or the check
    /// refused the pid. Empty without a pid file or a port.
    QString holdsPort;
    /// Run once the pid is gone, before it is called stopped: exits 0 while
    /// something still listens on `port` at `portHost`, printing "port 30001
    /// is still served by pid 4243, python3 -m sglang...": a server the
    /// stopped shell had started, or the real server when the pid only held a
    /// copy of its socket. Exits 1 when the port is free. Empty without a port.
    QString served;
    QString pidFile;
    /// Without an identity file, the derived status requires the pid's
    /// command line to contain this text: a stale pid file whose pid now
    /// belongs to another process must not make OpsDeck signal that process.
    QString program;
    /// TCP port the service listens on, as seen on its host (0: none known);
    /// without an identity file, the process holding it is the service.
    int port = 0;
    /// The host part of the URL `port` is from: a listener on another local
    /// address of the host (the same port on ::1 for 127.0.0.1) is not the
    /// service. "" or a name: any address.
    QString portHost;
    /// True for processes OpsDeck itself starts (the demo's): without an
    /// identity beside the pid file nothing is signalled, whatever runs there.
    bool requireIdentity = false;
    /// True when `status` is the derived one (verify), rebuilt by each
    /// deriveMissingCommands(); false for an inventory's own status command.
    bool statusIsDerived = false;

    /// Exit code of status and of the derived stop and kill when the pid file
    /// names a process that is not this one (nothing was signalled).
    static constexpr int kNotOurs = 3;
    /// Bash functions for scripts run on a host: `opsdeck_listeners PORT`
    /// prints the inodes of the TCP sockets listening on PORT (from
    /// /proc/net/tcp and tcp6); `opsdeck_holder 'FD-GLOB' INODE...` prints
    /// the pid of the first process among those fd folders holding one.
    static QString portFunctions();
    /// `<pidFile>.identity`.
    static QString identityFileOf(const QString &pidFile) { return pidFile + u".identity"; }

    /// From an inventory service; empty stop/status/kill/forget are derived
    /// from the pid file and its identity (and `program`, else the service's
    /// serve script, for a process without one).
    static ManagedProcess fromService(const inventory::Service &service,
                                      const QString &program = {});
    /// Fills verify, recordIdentity and empty stop/status/kill/forget from
    /// pidFile; a stop or kill given by the inventory runs after verify too.
    void deriveMissingCommands();
    /// `verify` followed by `command`: what ProcessControl runs for stop and
    /// kill. Between the two it prints one line, kSignalledMarker and the
    /// processes about to be signalled as `PID:START` (`$p` first, then
    /// `$also`; START in clock ticks since boot, empty for one already gone).
    QString verified(const QString &command) const;
    /// The `PID:START ...` of the kSignalledMarker line that starts a
    /// verified command's output; empty without a verify (nothing printed
    /// it: the command's own output is not read for it), when the check
    /// refused or found nothing running, or when it is malformed.
    QString signalledIn(const QByteArray &output) const;
    /// Bash that sets `$p` to the first of `signalled` (signalledIn()) that
    /// still runs with its start time and `$also` to the others that do,
    /// exits 1 when none does, else runs `command`: how a stop follows what
    /// it signalled (a server that closed its port on SIGTERM but still runs
    /// is still running; a pid reused since is not it).
    static QString followed(const QString &signalled, const QString &command);
    /// Starts the line verified() prints before its command.
    static constexpr char kSignalledMarker[] = "opsdeck-signalled:";
};

} // namespace opsdeck::processes
