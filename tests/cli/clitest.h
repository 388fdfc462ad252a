#pragma once

#include <QByteArray>
#include <QJsonDocument>
#include <QProcess>
#include <QStringList>
#include <chrono>

namespace opsdeck::test {

/// What one opsdeck-cli run gave.
struct CliRun
{
    int exitCode = -1; ///< -1 when it crashed or was killed at the deadline
    QByteArray standardOutput;
    QByteArray standardError;
    /// stdout parsed as one JSON document (null document when it is not).
    QJsonDocument json() const;
    /// The last non-empty line of stdout.
    QString lastLine() const;
};

/// Starts opsdeck-cli ARGUMENTS in `process` without waiting (stdin from
/// /dev/null, XDG_DATA_HOME at `dataHome`): for a test that kills it, or runs
/// a second one meanwhile.
void startCli(QProcess &process, const QStringList &arguments, const QString &dataHome);

/// Runs `opsdeck-cli ARGS...` with stdin from /dev/null and XDG_DATA_HOME
/// under `dataHome` (when given), killing it at `deadline`.
CliRun runCli(const QStringList &arguments, const QString &dataHome = {},
              std::chrono::milliseconds deadline = std::chrono::seconds(60),
              const QStringList &extraEnvironment = {});

} // namespace opsdeck::test
