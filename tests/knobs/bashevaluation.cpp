#include "bashevaluation.h"

#include "testsupport.h"

#include <QDir>
#include <QProcess>
#include <QTemporaryDir>
#include <gtest/gtest.h>

namespace opsdeck::test {

namespace {

// Records are \0-separated: `V name=value`, `X name` (exported), `A arg`, and
// `E` after each script.
// The script's own output goes to /dev/null; the records to fd 3.
const char *const driver = R"sh(names=$1; shift
exec 3>&1
for f in "$@"; do
  (
    opsdeck_launch() { printf 'A%s\0' "$@" >&3; }
    python() { opsdeck_launch "$@"; }; python3() { opsdeck_launch "$@"; }
    exec() { "$@"; }; env() { opsdeck_launch "$@"; }
    source "$f" >/dev/null 2>&1 </dev/null
    for n in $names; do
      if [[ -v $n ]]; then
        printf 'V%s=%s\0' "$n" "${!n}"
        [[ $(declare -p "$n" 2>/dev/null) == "declare -"*x* ]] && printf 'X%s\0' "$n"
      fi
    done
  )
  printf 'E\0'
done
)sh";

} // namespace

QVector<BashAssignments> evaluateInBash(const QVector<QByteArray> &scripts,
                                        const QStringList &names)
{
    QTemporaryDir dir;
    QStringList arguments{QStringLiteral("-c"), QString::fromLatin1(driver),
                          QStringLiteral("driver"), names.join(QLatin1Char(' '))};
    for (int i = 0; i < scripts.size(); ++i) {
        const QString path = dir.filePath(QStringLiteral("%1.sh").arg(i));
        if (!writeFile(path, scripts.at(i))) {
            ADD_FAILURE() << "cannot write " << path.toStdString();
            return {};
        }
        arguments.append(path);
    }
    QProcess bash;
    bash.start(QStringLiteral("bash"), arguments);
    if (!bash.waitForFinished(60000)) {
        bash.kill();
        bash.waitForFinished();
        ADD_FAILURE() << "bash did not finish within 60 s";
        return {};
    }
    QVector<BashAssignments> results;
    BashAssignments current;
    for (const QByteArray &record : bash.readAllStandardOutput().split('\0')) {
        if (record.isEmpty())
            continue;
        const QByteArray body = record.mid(1);
        switch (record.at(0)) {
        case 'V': {
            const qsizetype equals = body.indexOf('=');
            current.values.insert(QString::fromUtf8(body.left(equals)), body.mid(equals + 1));
            break;
        }
        case 'X':
            current.exported.append(QString::fromUtf8(body));
            break;
        case 'A':
            current.launchArguments.append(body);
            break;
        case 'E':
            results.append(current);
            current = {};
            break;
        default:
            break;
        }
    }
    EXPECT_EQ(results.size(), scripts.size()) << bash.readAllStandardError().toStdString();
    return results;
}

} // namespace opsdeck::test
