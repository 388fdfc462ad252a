#include "clitest.h"

#include "testsupport.h"

#include <QProcess>

namespace opsdeck::test {

QJsonDocument CliRun::json() const
{
    return QJsonDocument::fromJson(standardOutput);
}

QString CliRun::lastLine() const
{
    const QStringList lines =
        QString::fromUtf8(standardOutput).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    return lines.isEmpty() ? QString() : lines.last();
}

CliRun runCli(const QStringList &arguments, const QString &dataHome,
              std::chrono::milliseconds deadline, const QStringList &extraEnvironment)
{
    QProcess process;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    if (!dataHome.isEmpty())
        env.insert(QStringLiteral("XDG_DATA_HOME"), dataHome);
    for (const QString &assignment : extraEnvironment)
        env.insert(assignment.section(QLatin1Char('='), 0, 0),
                   assignment.section(QLatin1Char('='), 1));
    process.setProcessEnvironment(env);
    process.setStandardInputFile(QProcess::nullDevice());
    process.start(binPath(QStringLiteral("opsdeck-cli")), arguments);
    CliRun run;
    if (!process.waitForFinished(static_cast<int>(deadline.count()))) {
        process.kill();
        process.waitForFinished(5000);
    } else if (process.exitStatus() == QProcess::NormalExit) {
        run.exitCode = process.exitCode();
    }
    run.standardOutput = process.readAllStandardOutput();
    run.standardError = process.readAllStandardError();
    return run;
}

void startCli(QProcess &process, const QStringList &arguments, const QString &dataHome)
{
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("XDG_DATA_HOME"), dataHome);
    process.setProcessEnvironment(environment);
    process.setStandardInputFile(QProcess::nullDevice());
    process.start(binPath(QStringLiteral("opsdeck-cli")), arguments);
}

} // namespace opsdeck::test
