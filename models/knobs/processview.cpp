#include "processview.h"

#include "managedprocess.h"
#include "shellquote.h"

namespace opsdeck::knobs {

namespace {

// Prints pid=, cmdline= and environ= (base64 of the NUL-separated files);
// exit 4 when no process is found.
const char *const viewScript = R"sh(pf=%1; port=%2
p=
if [ -n "$pf" ] && [ -f "$pf" ]; then
  p=$(head -c 64 "$pf" 2>/dev/null | tr -d ' \n\r'); case $p in ''|*[!0-9]*) p=;; esac
fi
if [ -z "$p" ] && [ -n "$port" ]; then
  inos=$(opsdeck_listeners "$port"); [ -n "$inos" ] && p=$(opsdeck_holder '/proc/[0-9]*/fd' $inos)
fi
if [ -z "$p" ] || [ ! -d "/proc/$p" ]; then
  echo "no process: ${pf:+pid file $pf names none running}${pf:+${port:+, and }}${port:+nothing this user can see listens on port $port}"
  exit 4
fi
# A serve script that did not exec: the server is its child.
case $(cat "/proc/$p/comm" 2>/dev/null) in bash|sh|dash)
  c=$(cat /proc/$p/task/*/children 2>/dev/null | awk '{print $1; exit}'); [ -n "$c" ] && p=$c;;
esac
echo "pid=$p"
printf 'cmdline='; base64 -w0 <"/proc/$p/cmdline" 2>/dev/null; echo
if e=$(base64 -w0 <"/proc/$p/environ" 2>/dev/null); then echo "environ=$e"; else echo "environ!"; fi
)sh";

QStringList nulSeparated(const QByteArray &bytes)
{
    QStringList parts;
    for (const QByteArray &part : bytes.split('\0'))
        if (!part.isEmpty())
            parts.append(QString::fromUtf8(part));
    return parts;
}

} // namespace

remote::CommandRequest ProcessView::request(const QString &pidFile, int port, bool sudo)
{
    remote::CommandRequest request;
    request.script =
        processes::ManagedProcess::portFunctions() +
        QString::fromLatin1(viewScript)
            .arg(shell::singleQuoted(pidFile), port > 0 ? QString::number(port) : QString());
    request.sudo = sudo;
    request.deadline = std::chrono::seconds(20);
    return request;
}

ProcessView ProcessView::parse(const remote::CommandResult &result, const QString &host)
{
    ProcessView view;
    const QString output = QString::fromUtf8(result.standardOutput).trimmed();
    if (result.outcome == remote::CommandResult::Outcome::Exited && result.exitCode == 4) {
        view.problem = QStringLiteral("host %1: %2").arg(host, output);
        return view;
    }
    if (!result.succeeded()) {
        view.problem =
            QStringLiteral("host %1: the process could not be read: %2 %3")
                .arg(host, result.describe(), QString::fromUtf8(result.standardError).trimmed());
        return view;
    }
    for (const QString &line : output.split(QLatin1Char('\n'))) {
        if (line.startsWith(u"pid="))
            view.pid = line.mid(4).toLongLong();
        else if (line.startsWith(u"cmdline="))
            view.arguments = nulSeparated(QByteArray::fromBase64(line.mid(8).toLatin1()));
        else if (line.startsWith(u"environ=")) {
            view.environmentRead = true;
            for (const QString &pair :
                 nulSeparated(QByteArray::fromBase64(line.mid(8).toLatin1()))) {
                const qsizetype equals = pair.indexOf(QLatin1Char('='));
                if (equals > 0)
                    view.environment.insert(pair.left(equals), pair.mid(equals + 1));
            }
        }
    }
    if (!view.environmentRead)
        view.problem = QStringLiteral("host %1: the environment of pid %2 cannot be read by this "
                                      "user (another user's process; `sudo: true` on the host "
                                      "lets OpsDeck use sudo -n)")
                           .arg(host)
                           .arg(view.pid);
    return view;
}

} // namespace opsdeck::knobs
