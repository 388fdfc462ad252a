#include "changedsince.h"

#include "shellquote.h"

#include <QRegularExpression>

namespace opsdeck::knobs {

namespace {

// One line per record, tab-separated: since=, file, total=, git, dirty.
const char *const changedScript = R"sh(spec=%1; max=%2
since=$(date -d "$spec" +%s) || { echo "the host's date cannot read the time $spec"; exit 2; }
echo "since=$since"
set -- %3
# The folders as the host's shell names them, never taken for find's options.
dirs=()
for p in "$@"; do
  case $p in
    '~') p=$HOME;; '~/'*) p=$HOME/${p#'~/'};; '$HOME') p=$HOME;; '$HOME/'*) p=$HOME/${p#'$HOME/'};;
    /*) ;; *) p=./$p;;
  esac
  if [ -d "$p" ]; then dirs+=("$p"); else printf 'missing\t%s\n' "$p"; fi
done
[ ${#dirs[@]} -gt 0 ] || { echo "total=0"; exit 0; }
t=$(mktemp) || exit 3
# NUL-separated: a newline in a file name cannot forge a record.
find "${dirs[@]}" -xdev -type f -newermt "@$since" -printf '%T@\t%s\t%p\0' 2>/dev/null >"$t"
echo "total=$(tr -cd '\0' <"$t" | wc -c)"
printf 'files='; sort -z -t "$(printf '\t')" -k1,1nr "$t" | head -z -n "$max" | base64 -w0; echo
rm -f "$t"
for d in "${dirs[@]}"; do
  top=$(git -C "$d" rev-parse --show-toplevel 2>/dev/null) || continue
  printf 'git\t%s\t%s\t%s\n' "$d" "$top" "$(git -C "$d" rev-parse HEAD 2>/dev/null)"
  git -C "$d" status --porcelain -- . 2>/dev/null | head -n 100 | while IFS= read -r l; do
    printf 'dirty\t%s\t%s\n' "$d" "$l"; done
done
)sh";

} // namespace

std::optional<QString> ChangedSince::dateSpec(const QString &time)
{
    static const QRegularExpression clock(QStringLiteral("^([01]?\\d|2[0-3]):[0-5]\\d$"));
    static const QRegularExpression ago(QStringLiteral("^(\\d{1,6})([mhd])$"));
    static const QRegularExpression iso(
        QStringLiteral("^\\d{4}-\\d{2}-\\d{2}([T ]\\d{2}:\\d{2}(:\\d{2}(\\.\\d+)?)?)?"
                       "(Z|[+-]\\d{2}:?\\d{2})?$"));
    static const QRegularExpression epoch(QStringLiteral("^@\\d{1,12}$"));
    if (clock.match(time).hasMatch())
        return QStringLiteral("today ") + time;
    if (const QRegularExpressionMatch m = ago.match(time); m.hasMatch()) {
        const QString unit = m.captured(2) == u"m"   ? QStringLiteral("minutes")
                             : m.captured(2) == u"h" ? QStringLiteral("hours")
                                                     : QStringLiteral("days");
        return QStringLiteral("%1 %2 ago").arg(m.captured(1), unit);
    }
    if (iso.match(time).hasMatch() || epoch.match(time).hasMatch())
        return time;
    return std::nullopt;
}

remote::CommandRequest ChangedSince::request(const QStringList &folders, const QString &dateSpec)
{
    QStringList quoted;
    for (const QString &folder : folders)
        quoted.append(shell::singleQuoted(folder));
    remote::CommandRequest request;
    request.script = QString::fromLatin1(changedScript)
                         .arg(shell::singleQuoted(dateSpec), QString::number(kMaxFiles),
                              quoted.join(QLatin1Char(' ')));
    request.deadline = std::chrono::seconds(120);
    return request;
}

ChangedSince ChangedSince::parse(const remote::CommandResult &result, const QString &host)
{
    ChangedSince changed;
    const QString output = QString::fromUtf8(result.standardOutput);
    if (!result.succeeded()) {
        const QString said = QString(output + QString::fromUtf8(result.standardError)).trimmed();
        changed.error = QStringLiteral("host %1: %2 (%3)").arg(host, said, result.describe());
        return changed;
    }
    for (const QString &line : output.split(QLatin1Char('\n'), Qt::SkipEmptyParts)) {
        const QStringList fields = line.split(QLatin1Char('\t'));
        if (line.startsWith(u"since=")) {
            changed.sinceMsecs = line.mid(6).toLongLong() * 1000;
        } else if (line.startsWith(u"total=")) {
            changed.total = line.mid(6).toLongLong();
        } else if (line.startsWith(u"files=")) {
            const QByteArray records = QByteArray::fromBase64(line.mid(6).toLatin1());
            for (const QByteArray &record : records.split('\0')) {
                const QList<QByteArray> parts = record.split('\t');
                if (parts.size() < 3)
                    continue;
                const qsizetype pathAt = parts.at(0).size() + parts.at(1).size() + 2;
                changed.files.append({QString::fromUtf8(record.mid(pathAt)),
                                      qint64(parts.at(0).toDouble() * 1000),
                                      parts.at(1).toLongLong()});
            }
        } else if (fields.first() == u"missing" && fields.size() >= 2) {
            changed.missing.append(fields.mid(1).join(QLatin1Char('\t')));
        } else if (fields.first() == u"git" && fields.size() >= 4) {
            changed.git.append({fields.at(1), fields.at(2), fields.at(3), {}});
        } else if (fields.first() == u"dirty" && fields.size() >= 3 && !changed.git.isEmpty()) {
            changed.git.last().dirty.append(fields.mid(2).join(QLatin1Char('\t')));
        }
    }
    return changed;
}

} // namespace opsdeck::knobs
