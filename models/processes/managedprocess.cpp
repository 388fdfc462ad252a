#include "managedprocess.h"

#include "shellquote.h"

#include <QHostAddress>
#include <QRegularExpression>
#include <algorithm>

namespace opsdeck::processes {

namespace {

// Bash run on the host: sets `p` to the pid the pid file names, after
// checking that it is the process that was started. Exits 1 when nothing
// runs under it, ManagedProcess::kNotOurs (3) with a line on stdout when the
// pid belongs to another process.
const char *const verifyScript =
    R"sh(pf=%1; idf=%2; what=%3; program=%4; required=%5; port=%6; addresses=%7
# The children of $p the derived stop and kill signal with it: set when $p is
# a serve script's shell or a parent that did not exec (its children are the
# service; a signal to the shell alone would leave the server running).
also=
opsdeck_when() { local bt hz; bt=$(sed -n 's/^btime //p' /proc/stat); hz=$(getconf CLK_TCK)
  date -d "@$((bt + $1 / hz))" +%H:%M:%S 2>/dev/null || echo "tick $1"; }
# The pids of every process this user can see holding one of the sockets $@.
opsdeck_holders() { find /proc/[0-9]*/fd -maxdepth 1 -lname 'socket:\[*' -printf '%h %l\n' 2>/dev/null |
  awk -v want=" $* " '{ i = $2; gsub(/[^0-9]/, "", i); if (index(want, " " i " ")) { split($1, d, "/"); print d[3] } }' |
  sort -un; }
# Whether pid $1 is pid $2 or runs under it (bounded: a chain of parents).
opsdeck_under() { local q=$1 top=$2 n=0 line rest
  while [ "$q" -gt 1 ] && [ $n -lt 64 ]; do
    [ "$q" = "$top" ] && return 0
    { read -r line <"/proc/$q/stat"; } 2>/dev/null || return 1
    rest=${line##*) }; set -- $rest; q=$2; n=$((n + 1))
  done; return 1; }
# Whether pid $1 runs one of the host's shells, by the file it runs (a copy
# of tail named bash is not one).
opsdeck_is_shell() { local exe sh; exe=$(readlink "/proc/$1/exe" 2>/dev/null) && [ -n "$exe" ] || return 1
  for sh in /bin/bash /usr/bin/bash /bin/sh /usr/bin/sh /bin/dash /usr/bin/dash /bin/ksh \
      /usr/bin/ksh /bin/zsh /usr/bin/zsh; do
    [ -e "$sh" ] && [ "$(readlink -f "$sh")" = "$exe" ] && return 0
  done; return 1; }
# Whether pid $1 is $program itself or one of the host's shells running it:
# sets ours (yes/no), exe, a0, shell (yes/no) and script (the shell's script
# argument, if any).
opsdeck_runs_program() {
  # Naming the program is not enough: an editor, pager or `tail -f` on the
  # serve script, `bash -c '... serve.sh'`, or a shell running serve.sh.old
  # name it too. Only the program itself, or a shell whose script argument
  # is the program, is the service. Which program runs is the executable's
  # (argv[0] is whatever the starter chose: `exec -a bash tail ...`); the
  # command line is read whole (a cut one could end in the script's name);
  # a script named relative to a folder names nothing (the shell may have
  # changed folder since).
  exe=$(readlink "/proc/$1/exe" 2>/dev/null); a0=${exe##*/}; a0=${a0:-a program this user cannot see}
  shell=no; opsdeck_is_shell "$1" && shell=yes
  mapfile -d '' -t argv < "/proc/$1/cmdline" 2>/dev/null
  script=; ours=yes
  if [ $shell = yes ]; then
    i=1
    while [ $i -lt ${#argv[@]} ]; do
      a=${argv[i]}
      case $a in
        --|-) script=${argv[i + 1]}; break;;
        -o|+o|-O|+O|--rcfile|--init-file) i=$((i + 2)); continue;;
        --*|+) ;;
        # Anything but a cluster of one-letter options without an argument:
        # -c or -s (a command string or stdin, not a script), or bash's long
        # options with one dash (-init-file FILE): no script is named.
        [-+]*[!abefhiklmnprtuvxBCEHPT]*) break;;
        [-+]*) ;;
        *) script=$a; break;;
      esac
      i=$((i + 1))
    done
  fi
  case $program in
    */*) { [ -n "$exe" ] && [ "$exe" = "$(readlink -f "$program")" ]; } || [ "$script" = "$program" ] \
           || ours=no;;
    *) [ "$a0" = "$program" ] || [ "${script##*/}" = "$program" ] || ours=no;;
  esac
}
# A link, FIFO, socket or folder is no pid file: never read (a FIFO would
# hang), and never removed as a stale one.
notpid=$(opsdeck_not_pid_file "$pf")
case $notpid in *"not a regular file"*) echo "$notpid: nothing stopped, nothing removed"; exit 3;; esac
# Read bounded: a huge file must not fill memory.
p=; [ -f "$pf" ] && p=$(head -c 64 "$pf" 2>/dev/null | tr -d ' \n\r\0')
ip=; is=; ib=
notid=$(opsdeck_not_identity "$idf")
if [ -n "$notid" ]; then echo "$notid: nothing stopped, nothing removed (move it away)"; exit 3; fi
if [ -f "$idf" ]; then
  ip=$(head -c 4096 "$idf" | sed -n 's/^pid=//p'); is=$(head -c 4096 "$idf" | sed -n 's/^start=//p')
  # (exe= is for the person reading it: a serve script's bash execs the server,
  # so the executable changes after the identity is written; pid + start time
  # + boot name the process.)
  ib=$(head -c 4096 "$idf" | sed -n 's/^boot=//p')
  # Written for this pid file: a folder copied whole (pid files, identities)
  # names the original's processes, which are not the copy's to stop.
  ipf=$(head -c 4096 "$idf" | sed -n 's/^pidfile=//p' | head -n 1)
  if [ -n "$ipf" ] && [ "$ipf" != "$pf" ]; then
    echo "$pf's identity ($idf) was written for $ipf, not for it (a copied folder?): nothing stopped"
    exit 3
  fi
  # Started as another service (two services given one pid file): not this one's to stop.
  iname=$(head -c 4096 "$idf" | sed -n 's/^name=//p' | head -n 1)
  if [ -n "$iname" ] && [ "$iname" != "$what" ]; then
    echo "$pf names the $iname OpsDeck started, not the $what: nothing stopped"
    exit 3
  fi
fi
valid=1
case $p in ''|*[!0-9]*|0*) valid=0;; esac
[ ${#p} -le 10 ] || valid=0
# Anything more than a few digits and blanks is another file.
[ -z "$notpid" ] || valid=0
if [ $valid = 0 ]; then
  # No pid in the pid file: still running only if the identity's process is.
  if [ -n "$ip" ] && opsdeck_alive "$ip" && [ "$(opsdeck_start "$ip")" = "$is" ]; then
    echo "$pf does not hold a pid, but the $what started $(opsdeck_when "$is") (pid $ip) still runs: nothing stopped"
    exit 3
  fi
  # Text that is no pid (an inventory naming another file as the pid file):
  # not "not running", which would have the file removed as a stale pid file.
  if [ -f "$pf" ] && { [ -n "$p" ] || [ -n "$notpid" ]; }; then
    echo "$pf holds no pid (is it a pid file?): nothing stopped, nothing removed"
    exit 3
  fi
  exit 1
fi
if [ "$p" -le 1 ]; then echo "$pf names pid $p, never signalled: nothing stopped"; exit 3; fi
if [ -n "$ip" ] && [ "$ip" != "$p" ]; then
  if opsdeck_alive "$p"; then st="started $(opsdeck_when "$(opsdeck_start "$p")")"; else st="not running"; fi
  echo "$pf names pid $p, $st, not the $what started $(opsdeck_when "${is:-0}") (pid $ip): nothing stopped"
  exit 3
fi
opsdeck_alive "$p" || exit 1
st=$(opsdeck_start "$p") || exit 1
if [ -n "$ip" ]; then
  if [ "$is" != "$st" ]; then
    echo "$pf names pid $p, started $(opsdeck_when "$st"), not the $what started $(opsdeck_when "${is:-0}") (pid $ip): nothing stopped"
    exit 3
  fi
  # Start times count from boot: an identity of an earlier boot names nobody now.
  if [ -n "$ib" ] && [ "$ib" != "$(cat /proc/sys/kernel/random/boot_id 2>/dev/null)" ]; then
    echo "$pf names pid $p, but its identity ($idf) is from an earlier boot: nothing stopped"
    exit 3
  fi
  # A serve script that did not exec: its shell's children are the service.
  ! opsdeck_is_shell "$p" || also=$(cat /proc/$p/task/*/children 2>/dev/null)
elif [ "$required" = 1 ]; then
  echo "$pf names pid $p, but there is no identity beside it ($idf) to show it is the $what OpsDeck started: nothing stopped"
  exit 3
elif [ -n "$port" ] && [ -r "/proc/$p/fd" ] && inos=$(opsdeck_listeners "$port" "$addresses") && [ -n "$inos" ]; then
  # A host's own start script: the process serving the service's port is the
  # service. The pid, or a child of it (a script that did not exec), must hold it.
  family=$(opsdeck_family "$p")
  if [ -z "$(opsdeck_holder "$family" $inos)" ]; then
    h=$(opsdeck_holder '/proc/[0-9]*/fd' $inos); by="a process this user cannot see"
    [ -n "$h" ] && by="pid $h, $(opsdeck_args "$h" | cut -c1-120)"
    echo "$pf names pid $p, which runs $(opsdeck_args "$p" | cut -c1-120), but port $port is served by ${by% }, not by it: nothing stopped"
    exit 3
  fi
  # Every holder of the socket is the pid or runs under it (the server's own
  # workers): a process that only got a copy of it (a helper the server
  # started without closing it) is not the server, which would keep serving.
  for h in $(opsdeck_holders $inos); do
    opsdeck_under "$h" "$p" && continue
    echo "$pf names pid $p, which runs $(opsdeck_args "$p" | cut -c1-120), but port $port's socket is also held by pid $h, $(opsdeck_args "$h" | cut -c1-120), which does not run under it: pid $p has a copy of the socket and is not surely the $what; nothing stopped"
    exit 3
  done
  # A parent of several services (a supervisor) holds the port through one
  # child and another service's through another: each of them that listens
  # must hold this port (one server may listen on more than one).
  for fd in $family; do
    [ -z "$(opsdeck_holder "$fd" $inos)" ] || continue
    served=$(opsdeck_served_ports "$fd")
    [ -n "$served" ] || continue
    q=${fd%/fd}; q=${q#/proc/}
    echo "$pf names pid $p, which runs $(opsdeck_args "$p" | cut -c1-120); pid $q under it serves port $(echo $served | tr ' ' ','), not port $port: a parent of other services, nothing stopped"
    exit 3
  done
  # Held by a child, not the pid itself: a parent that did not exec. Unless
  # it is a shell running the serve script (which may pipe the server into
  # tee), each child must be part of the service: a parent of other work
  # (tmux, screen) would take that work down with it.
  children=; [ -n "$(opsdeck_holder "/proc/$p/fd" $inos)" ] || children=$(cat /proc/$p/task/*/children 2>/dev/null)
  if [ -n "$children" ] && ! { [ -n "$program" ] && opsdeck_runs_program "$p" && [ $ours = yes ]; }; then
    for c in $children; do
      [ -z "$(opsdeck_holder "/proc/$c/fd" $inos)" ] || continue
      echo "$pf names pid $p, which runs $(opsdeck_args "$p" | cut -c1-120); it does not hold port $port itself, and pid $c under it runs $(opsdeck_args "$c" | cut -c1-120), not the $what: stopping it would stop more than the $what; nothing stopped"
      exit 3
    done
  fi
  also=$children
elif [ -n "$program" ]; then
  args=$(opsdeck_args "$p")
  opsdeck_runs_program "$p"
  if [ $ours = no ]; then
    case $script in ''|/*) ;; *)
      echo "$pf names pid $p, which runs ${args:0:120}: a $a0 running $script, named from a folder it may have left, not surely $program: nothing stopped"
      exit 3;; esac
    case $args in *"$program"*) ;; *)
      echo "$pf names pid $p, which runs ${args:0:120}, not the $what ($program): nothing stopped"
      exit 3;; esac
    case $shell in yes)
      echo "$pf names pid $p, which runs ${args:0:120}: a $a0 running ${script:-a command} (not $program): nothing stopped";;
    *) echo "$pf names pid $p, which runs ${args:0:120}: $a0 is not a shell running $program, nor $program itself: nothing stopped";;
    esac
    exit 3
  fi
  # Serving another port while the service's own is not listening: another
  # service started from the same script (its pid reused), not this one.
  if [ -n "$port" ] && served=$(opsdeck_served_ports $(opsdeck_family "$p")) && [ -n "$served" ]; then
    echo "$pf names pid $p, which runs ${args:0:120} and serves port $(echo $served | tr ' ' ','), not the $what's port $port: nothing stopped (if it is the $what, still loading, stop it by hand)"
    exit 3
  fi
  [ $shell = no ] || also=$(cat /proc/$p/task/*/children 2>/dev/null)
else
  # Nothing shows it is the service (a pid reused since it crashed): no
  # identity, nothing on its port, no serve script to compare with.
  echo "$pf names pid $p, which runs $(opsdeck_args "$p" | cut -c1-120), but nothing shows it is the $what (no identity beside the pid file, nothing listening on its port, no serve_script in the inventory): nothing stopped"
  exit 3
fi
)sh";

// Bash functions: which process serves a TCP port; what is no pid file;
// whether a pid runs, and since when.
const char *const portScript =
    R"sh(# Why $1 is no pid file OpsDeck may read or remove, or nothing: a link, a
# FIFO, a folder; more than 64 bytes, or anything but digits and blanks (text,
# NUL bytes, which $(...) drops). Never removed as a stale pid file.
opsdeck_not_pid_file() {
  if [ -L "$1" ] || { [ -e "$1" ] && [ ! -f "$1" ]; }; then
    echo "$1 is a link or not a regular file, not a pid file"
  elif [ -f "$1" ] && { [ "$(stat -c %s "$1" 2>/dev/null || echo 65)" -gt 64 ] ||
      [ "$(head -c 64 "$1" 2>/dev/null | tr -d '0-9 \n\r\t' | wc -c)" -gt 0 ]; }; then
    echo "$1 holds no pid (is it a pid file?)"
  fi; }
# Why $1, at a pid file's identity name, is no identity OpsDeck wrote, or
# nothing (absent, or one: regular, at most 8 KiB, with pid= and start=
# lines). A file of the person's there is never read as one, written over
# nor removed.
opsdeck_not_identity() {
  if [ -L "$1" ] || { [ -e "$1" ] && [ ! -f "$1" ]; }; then
    echo "$1 is a link or not a regular file, not an identity OpsDeck wrote"
  elif [ -f "$1" ] && { [ "$(stat -c %s "$1" 2>/dev/null || echo 8193)" -gt 8192 ] ||
      ! head -c 8192 "$1" 2>/dev/null | grep -qa '^pid=[0-9]' ||
      ! head -c 8192 "$1" 2>/dev/null | grep -qa '^start=[0-9]'; }; then
    echo "$1 is not an identity OpsDeck wrote (a file of the person's?)"
  fi; }
# Whether $1, an identity's temporary name, is free or a leftover of a start
# that died writing it (empty, or an identity): only then is it removed.
opsdeck_leftover_identity() { { [ ! -e "$1" ] && [ ! -L "$1" ]; } ||
  { [ -f "$1" ] && [ ! -L "$1" ] && { [ ! -s "$1" ] || [ -z "$(opsdeck_not_identity "$1")" ]; }; }; }
# The start time of pid $1, in clock ticks since boot (field 22 of /proc/PID/stat).
opsdeck_start() { local line rest; { read -r line <"/proc/$1/stat"; } 2>/dev/null || return 1
  rest=${line##*) }; set -- $rest; echo "${20}"; }
# Whether pid $1 runs: a zombie does not, but a process whose main thread
# exited while others run on (its leader shows Z) does.
opsdeck_alive() { local threads; [ -d "/proc/$1" ] || return 1
  grep -qs '^State:[[:space:]]*Z' "/proc/$1/status" || return 0
  threads=$(sed -n 's/^Threads:[[:space:]]*//p' "/proc/$1/status" 2>/dev/null)
  [ "${threads:-0}" -gt 1 ] 2>/dev/null; }
# The command line of pid $1, cut at 4 KiB, its arguments joined by blanks.
opsdeck_args() { head -c 4096 "/proc/$1/cmdline" 2>/dev/null | tr '\0' ' ' | sed 's/ $//'; }
# Socket inodes listening on TCP port $1 (state 0A), IPv4 and IPv6; only on
# the local addresses $2 (as /proc/net/tcp writes them, space-separated) when given.
# (No printf width: scripts that use these go through QString::arg.)
opsdeck_listeners() { local h; h=$(printf '%X' "$1"); while [ ${#h} -lt 4 ]; do h=0$h; done
  awk -v h=":$h" -v a=" $2 " \
  '$4 == "0A" && substr($2, length($2) - 4) == h &&
   (a == "  " || index(a, " " substr($2, 1, length($2) - 5) " ")) { print $10 }' \
   /proc/net/tcp /proc/net/tcp6 2>/dev/null; }
# The fd folders of pid $1 and its children (a serve script that did not exec).
opsdeck_family() { local f="/proc/$1/fd" c
  for c in $(cat /proc/$1/task/*/children 2>/dev/null); do f="$f /proc/$c/fd"; done; echo "$f"; }
# The TCP ports on which the processes of the fd folders $@ listen, in decimal.
opsdeck_served_ports() { local held h
  held=$(find "$@" -maxdepth 1 -lname 'socket:\[*' -printf '%l\n' 2>/dev/null | tr -dc '0-9\n')
  [ -n "$held" ] || return 0
  for h in $(awk -v held="$held" 'BEGIN { n = split(held, a, "\n"); for (i = 1; i <= n; i++) s[a[i]] = 1 }
      $4 == "0A" && ($10 in s) { print substr($2, length($2) - 3) }' /proc/net/tcp /proc/net/tcp6 2>/dev/null | sort -u); do
    echo $((16#$h))
  done; }
# The pid of a process, among the fd folders $1 (a glob), holding one of the sockets $2...
opsdeck_holder() { local scope=$1 i; shift
  for i in "$@"; do find $scope -maxdepth 1 -lname "socket:\[$i\]" 2>/dev/null | head -n 1 | cut -d/ -f3; done | head -n 1; }
)sh";

// Writes the identity of the pid the pid file names, atomically; nothing when
// there is no pid file yet. Exits 1, saying so, when it cannot be written.
const char *const recordScript = R"sh(pf=%1; idf=%2; what=%3
p=$(head -c 64 "$pf" 2>/dev/null | tr -d ' \n\r')
case $p in ''|*[!0-9]*) exit 0;; esac
{ read -r line <"/proc/$p/stat"; } 2>/dev/null || exit 0
rest=${line##*) }; set -- $rest
umask 077
why=$(opsdeck_not_identity "$idf")
if [ -n "$why" ]; then
  echo "started (pid $p, $pf), but $why: not written over. Move it away, then stop it by hand (kill $p) or start it again" >&2
  exit 1
fi
if ! opsdeck_leftover_identity "$idf.tmp"; then
  echo "started (pid $p, $pf), but $idf.tmp is not a leftover identity of OpsDeck's (a file of the person's?): not removed. Move it away, then stop it by hand (kill $p) or start it again" >&2
  exit 1
fi
# Created exclusively (noclobber): a link planted at the temporary name is not followed.
rm -f "$idf.tmp"
( set -C; printf 'pid=%s\nstart=%s\nexe=%s\nboot=%s\npidfile=%s\nname=%s\nargs=%s\n' "$p" "${20}" \
  "$(readlink "/proc/$p/exe")" "$(cat /proc/sys/kernel/random/boot_id 2>/dev/null)" "$pf" "$what" \
  "$(tr '\0' ' ' <"/proc/$p/cmdline" | head -c 4096)" >"$idf.tmp" ) && mv -f "$idf.tmp" "$idf" && exit 0
# Not written (a full disk): said, and the start fails, rather than leave a
# process that stop cannot show is the one started.
rm -f "$idf.tmp"
echo "started (pid $p, $pf), but its identity $idf could not be written: OpsDeck cannot show it is the process it started. Free space, then stop it by hand (kill $p) or start it again" >&2
exit 1
)sh";

// The local addresses, as /proc/net/tcp and tcp6 write them (each 32-bit word
// in the host's order, little-endian here), on which a listener serves
// `host`: `host` when it is an address ("localhost": the loopbacks), and the
// wildcard of its own family only (an IPv6 one may be IPv6-only, which
// /proc does not say). Empty (any address) for a name, which only its host
// resolves.
QString listenAddressesOf(const QString &host)
{
    const auto words = [](const QByteArray &bytes) {
        QByteArray hex;
        for (qsizetype i = 0; i < bytes.size(); i += 4) {
            QByteArray word = bytes.mid(i, 4);
            std::reverse(word.begin(), word.end());
            hex += word.toHex().toUpper();
        }
        return QString::fromLatin1(hex);
    };
    QList<QHostAddress> addresses;
    if (host.compare(u"localhost", Qt::CaseInsensitive) == 0)
        addresses = {QHostAddress(QHostAddress::LocalHost),
                     QHostAddress(QHostAddress::LocalHostIPv6)};
    else if (QHostAddress address; address.setAddress(host))
        addresses = {address};
    if (addresses.isEmpty())
        return {};
    QStringList hex;
    for (QHostAddress address : addresses) {
        bool mapped = false; // ::ffff:a.b.c.d is a.b.c.d on the wire
        if (const quint32 v4 = address.toIPv4Address(&mapped); mapped)
            address = QHostAddress(v4);
        const Q_IPV6ADDR v6 = address.toIPv6Address();
        const QByteArray bytes(reinterpret_cast<const char *>(v6.c), 16);
        hex << words(bytes);
        if (address.protocol() == QAbstractSocket::IPv4Protocol)
            hex << words(bytes.right(4)) << QStringLiteral("00000000");
        else
            hex << QString(32, u'0');
    }
    hex.removeDuplicates();
    return hex.join(u' ');
}

} // namespace

QString ManagedProcess::verified(const QString &command) const
{
    if (verify.isEmpty())
        return command;
    // What is signalled, named by pid and start time before the command
    // runs: the stop follows these processes, not the check (which a server
    // that closed its port but still runs would no longer pass).
    return verify +
           QStringLiteral("printf '%1 %s' \"$p:$st\"; for c in $also; do printf ' %s' "
                          "\"$c:$(opsdeck_start \"$c\")\"; done; echo\n")
               .arg(QLatin1StringView(kSignalledMarker)) +
           command + u'\n';
}

QString ManagedProcess::signalledIn(const QByteArray &output) const
{
    // Only verified()'s own line, the first: the stop command's output (an
    // inventory's `curl .../shutdown`) may hold anything.
    if (verify.isEmpty())
        return {};
    static const QRegularExpression pairs(QStringLiteral("^[0-9]+:[0-9]*( [0-9]+:[0-9]*)*$"));
    const QByteArray marker = QByteArray(kSignalledMarker) + ' ';
    const QByteArray line = output.left(output.indexOf('\n'));
    if (!line.startsWith(marker))
        return {};
    const QString named = QString::fromLatin1(line.mid(marker.size())).trimmed();
    return pairs.match(named).hasMatch() ? named : QString();
}

QString ManagedProcess::followed(const QString &signalled, const QString &command)
{
    return QString::fromLatin1(portScript) +
           QStringLiteral("p=; also=\n"
                          "for e in %1; do q=${e%%:*}; s=${e#*:}\n"
                          "  [ -n \"$s\" ] && opsdeck_alive \"$q\" && "
                          "[ \"$(opsdeck_start \"$q\")\" = \"$s\" ] || continue\n"
                          "  if [ -z \"$p\" ]; then p=$q; else also=\"$also $q\"; fi\n"
                          "done\n"
                          "[ -n \"$p\" ] || exit 1\n")
               .arg(signalled) +
           command + u'\n';
}

QString ManagedProcess::portFunctions()
{
    return QString::fromLatin1(portScript);
}

ManagedProcess ManagedProcess::fromService(const inventory::Service &service,
                                           const QString &program)
{
    ManagedProcess process;
    process.program = program.isEmpty() ? service.serveScript : program;
    process.name = service.name;
    process.host = service.host;
    process.start = service.start;
    process.stop = service.stop;
    process.status = service.status;
    process.pidFile = service.pidFile;
    process.port = service.hostPort();
    process.portHost = (service.directUrl.isEmpty() ? service.url : service.directUrl).host();
    process.deriveMissingCommands();
    return process;
}

void ManagedProcess::deriveMissingCommands()
{
    if (pidFile.isEmpty())
        return;
    const QString identity = identityFileOf(pidFile);
    const QString what = shell::singleQuoted(name.isEmpty() ? QStringLiteral("process") : name);
    verify = QString::fromLatin1(portScript) +
             QString::fromLatin1(verifyScript)
                 .arg(shell::singleQuoted(pidFile), shell::singleQuoted(identity), what,
                      shell::singleQuoted(program),
                      requireIdentity ? QStringLiteral("1") : QStringLiteral("0"),
                      port > 0 ? QString::number(port) : QString())
                 .arg(shell::singleQuoted(listenAddressesOf(portHost)));
    if (stop.isEmpty())
        stop = QStringLiteral("kill -TERM \"$p\" $also");
    if (kill.isEmpty())
        kill = QStringLiteral("kill -KILL \"$p\" $also");
    // Only a pid file is removed, whatever said the process is gone (an
    // inventory's own `status` runs no check of the file).
    if (forget.isEmpty())
        forget = QString::fromLatin1(portScript) +
                 QStringLiteral("why=$(opsdeck_not_pid_file %1)\n"
                                "if [ -n \"$why\" ]; then echo \"$why: not removed\"; exit %3; fi\n"
                                "rm -f %1\n"
                                "[ -n \"$(opsdeck_not_identity %2)\" ] || rm -f %2\n")
                     .arg(shell::singleQuoted(pidFile), shell::singleQuoted(identity))
                     .arg(kNotOurs);
    // The listeners a client of the URL reaches: the URL's own address and
    // its family's wildcard, else (for an IPv4 URL) a dual-stack [::] one,
    // which Linux hands IPv4 connections only when no IPv4 socket listens.
    QString answering = QStringLiteral("inos=$(opsdeck_listeners %1 %2)\n")
                            .arg(port)
                            .arg(shell::singleQuoted(listenAddressesOf(portHost)));
    if (QHostAddress address; address.setAddress(portHost) &&
                              (address.protocol() == QAbstractSocket::IPv4Protocol ||
                               address.toString().startsWith(u"::ffff:", Qt::CaseInsensitive)))
        answering += QStringLiteral("[ -n \"$inos\" ] || inos=$(opsdeck_listeners %1 %2)\n")
                         .arg(port)
                         .arg(QString(32, u'0'));
    served = port > 0 ? QString::fromLatin1(portScript) +
                            QStringLiteral(
                                "%2[ -n \"$inos\" ] || exit 1\n"
                                "h=$(opsdeck_holder '/proc/[0-9]*/fd' $inos)\n"
                                "if [ -n \"$h\" ]; then echo \"port %1 is still served by pid $h, "
                                "$(opsdeck_args \"$h\" | cut -c1-120)\"\n"
                                "else echo \"port %1 is still served by a process this user cannot "
                                "see\"; fi\n")
                                .arg(port)
                                .arg(answering)
                      : QString();
    holdsPort =
        port > 0
            ? verify + QStringLiteral(
                           "%2[ -n \"$inos\" ] || { echo \"nothing this host shows listens on port "
                           "%1 (another network namespace: a container's published port?): "
                           "healthy by HTTP alone\"; exit 0; }\n"
                           "holders=$(opsdeck_holders $inos)\n"
                           "if [ -z \"$holders\" ]; then echo \"this user cannot see who "
                           "serves port %1: healthy by HTTP alone\"; exit 0; fi\n"
                           "for h in $holders; do\n"
                           "  opsdeck_under \"$h\" \"$p\" && continue\n"
                           "  echo \"port %1 is served by pid $h, $(opsdeck_args \"$h\" | cut "
                           "-c1-120), not by the $what started (pid $p)\"; exit %3\n"
                           "done\n")
                           .arg(port)
                           .arg(answering)
                           .arg(kNotOurs)
            : QString();
    // Derived again whenever the check changes (requireIdentity set later).
    if (status.isEmpty() || statusIsDerived) {
        status = verify + QStringLiteral("exit 0\n");
        statusIsDerived = true;
    }
    recordIdentity = QString::fromLatin1(portScript) +
                     QString::fromLatin1(recordScript)
                         .arg(shell::singleQuoted(pidFile), shell::singleQuoted(identity), what);
}

} // namespace opsdeck::processes
