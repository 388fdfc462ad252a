#include "hostsignalsscript.h"

#include "logchunk.h"
#include "nvidiasmicsv.h"
#include "shellquote.h"

#include <QHash>

namespace opsdeck::remote {

namespace {

// Kept small and free of forks in its loops: it runs every few seconds on
// production hosts, one command at a time per SSH session. nvidia-smi's
// output is cut at 64 KiB (a line per GPU is ~100 bytes): a runaway one would
// otherwise fill bash's memory and push the records after it past the
// poll's output cap, losing every service.
const char *const scriptBody = R"BASH(export LC_ALL=C
if [ "${BASH_VERSINFO[0]}" -lt 4 ] || { [ "${BASH_VERSINFO[0]}" -eq 4 ] && [ "${BASH_VERSINFO[1]}" -lt 4 ]; }; then
  echo "bash $BASH_VERSION is older than 4.4 (needed for mapfile -d)" >&2; exit 3
fi
printf '@@clock\t%(%s)T\t' -1
bt=
while read -r k v _; do if [ "$k" = btime ]; then bt=$v; break; fi; done </proc/stat
printf '%s\t%s\n' "$bt" "$(getconf CLK_TCK)"
if command -v nvidia-smi >/dev/null 2>&1; then
  if command -v timeout >/dev/null 2>&1; then
    out=$(timeout "$smi_timeout" nvidia-smi $smi_query 2>&1 | head -c 65536; exit "${PIPESTATUS[0]}")
  else
    out=$(nvidia-smi $smi_query 2>&1 | head -c 65536; exit "${PIPESTATUS[0]}")
  fi
  rc=$?
  printf '@@gpu\texit\t%s\n%s\n@@gpu-end\n' "$rc" "$out"
else
  printf '@@gpu\tnone\n'
fi
declare -A kids=() matches=()
for d in /proc/[0-9]*; do
  p=${d#/proc/}
  { read -r s <"$d/stat"; } 2>/dev/null || continue
  s=${s##*) }; set -- $s
  kids[$2]+=" $p"
  [ -z "${ports// /}" ] && continue
  a=(); { mapfile -d '' a <"$d/cmdline"; } 2>/dev/null || continue
  for ((i = 0; i < ${#a[@]}; i++)); do
    case ${a[i]} in
      --port) q=${a[i+1]-} ;;
      --port=*) q=${a[i]#--port=} ;;
      *) continue ;;
    esac
    case $ports in *" $q "*) matches[$q]+=" $p" ;; esac
  done
done
proc() {
  local kind=$1 p=$2 s st pp start rss= a=() anc= x n=0 args k v
  { read -r s </proc/$p/stat; } 2>/dev/null || return 1
  s=${s##*) }; set -- $s
  st=$1; pp=$2; start=${20}
  while read -r k v _; do if [ "$k" = VmRSS: ]; then rss=$v; break; fi; done 2>/dev/null </proc/$p/status
  { mapfile -d '' a </proc/$p/cmdline; } 2>/dev/null
  x=$pp
  while [ "${x:-0}" -gt 1 ] && [ $n -lt 64 ]; do
    anc+=",$x"; n=$((n + 1))
    { read -r s </proc/$x/stat; } 2>/dev/null || break
    s=${s##*) }; set -- $s; x=$2
  done
  args="${a[*]}"; args=${args//$'\t'/ }; args=${args//$'\n'/ }
  printf '@@proc\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$kind" "$p" "$pp" "$st" "$start" "$rss" "${anc#,}" "$args"
  emitted+="$p "
}
svc() {
  local index=$1 file=$2 port=$3 main= c queue n=0
  emitted=' '
  printf '@@service\t%s\n' "$index"
  if [ -z "$file" ]; then printf '@@pidfile\tnone\n'
  elif [ ! -e "$file" ]; then printf '@@pidfile\tmissing\n'
  elif [ ! -f "$file" ]; then printf '@@pidfile\tinvalid\t(not a regular file)\n'
  elif [ ! -r "$file" ]; then printf '@@pidfile\tunreadable\n'
  else
    IFS= read -r -n 64 main <"$file"; main=${main//[[:space:]]/}
    case $main in
      ''|*[!0-9]*) printf '@@pidfile\tinvalid\t%s\n' "${main:0:40}"; main= ;;
      *) printf '@@pidfile\tpid\t%s\n' "$main"; proc main "$main" || main= ;;
    esac
  fi
  if [ -n "$main" ]; then
    queue=" ${kids[$main]-}"
    while [ -n "${queue// /}" ] && [ $n -lt 32 ]; do
      set -- $queue; c=$1; shift; queue=" $*"
      proc child "$c" && n=$((n + 1))
      queue+=" ${kids[$c]-}"
    done
  fi
  if [ "$port" -gt 0 ]; then
    for c in ${matches[$port]-}; do
      case $emitted in *" $c "*) ;; *) proc port "$c" ;; esac
    done
  fi
}
)BASH";

// The inventory keeps `~`, `~user`, `$NAME` and `${NAME}` paths for the
// host's shell to expand, exactly as for logs (LogChunk::shellWord). Anything
// else after a `$` (a `$(...)`) would run on the host: such a path is taken
// literally instead, so it shows as a missing pid file.
QString shellPath(const QString &path)
{
    QString error;
    const QByteArray word = LogChunk::shellWord(path, &error);
    if (word.isEmpty())
        return shell::singleQuoted(path);
    return QString::fromUtf8(word);
}

} // namespace

QString HostSignalsScript::script(const QVector<ServiceProcessQuery> &services,
                                  const QStringList &gpuFields, int nvidiaSmiTimeoutS)
{
    QStringList ports;
    for (const auto &service : services)
        if (service.port > 0)
            ports << QString::number(service.port);
    const QString query = QStringLiteral("--query-gpu=%1 --format=csv,noheader,nounits")
                              .arg(gpuFields.join(QLatin1Char(',')));
    QString text = QStringLiteral("smi_timeout=%1\nsmi_query=%2\nports=' %3 '\n")
                       .arg(nvidiaSmiTimeoutS)
                       .arg(shell::singleQuoted(query), ports.join(QLatin1Char(' ')));
    text += QString::fromUtf8(scriptBody);
    for (int i = 0; i < services.size(); ++i)
        text += QStringLiteral("svc %1 %2 %3\n")
                    .arg(i)
                    .arg(services.at(i).pidFile.isEmpty() ? QStringLiteral("''")
                                                          : shellPath(services.at(i).pidFile))
                    .arg(std::max(services.at(i).port, 0));
    return text;
}

} // namespace opsdeck::remote
