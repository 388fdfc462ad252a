#pragma once

// A fake `nvidia-smi` for tests on machines without a GPU: a shell script
// put first on PATH (through CommandRequest::environment) that prints a
// recorded output from tests/data/nvidia-smi, only for that run's query.
#include "sshfixture.h"
#include "testsupport.h"

#include <QDir>
#include <QFile>
#include <QProcessEnvironment>
#include <QTemporaryDir>

namespace opsdeck::test {

/// Writes `DIR/fakebin/nvidia-smi`, which prints `fixture` (tests/data path)
/// and exits `exitCode` when called with `--query-gpu=<fields>
/// --format=csv,noheader,nounits`, and fails (exit 2) for any other call.
/// Returns the fakebin directory.
inline QString fakeNvidiaSmi(const QTemporaryDir &dir, const QString &fields,
                             const QString &fixture, int exitCode = 0)
{
    const QString bin = dir.filePath(QStringLiteral("fakebin"));
    QDir().mkpath(bin);
    const QString path = bin + QStringLiteral("/nvidia-smi");
    const QString script =
        QStringLiteral(
            "#!/bin/sh\n"
            "# Fake nvidia-smi for tests: a recorded output, for the recorded query only.\n"
            "[ \"$1\" = \"--query-gpu=%1\" ] && [ \"$2\" = \"--format=csv,noheader,nounits\" ] "
            "|| { echo \"unexpected arguments: $*\"; exit 2; }\n"
            "cat '%2'\nexit %3\n")
            .arg(fields, dataPath(fixture))
            .arg(exitCode);
    writeFile(path, script.toUtf8());
    QFile::setPermissions(path, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    return bin;
}

/// An environment whose PATH starts with `bin`, then this process's PATH.
inline QProcessEnvironment pathFirst(const QString &bin)
{
    QProcessEnvironment environment;
    environment.insert(QStringLiteral("PATH"),
                       bin + QLatin1Char(':') + qEnvironmentVariable("PATH"));
    return environment;
}

} // namespace opsdeck::test
