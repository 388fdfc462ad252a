#pragma once

#include <QByteArray>
#include <QMap>
#include <QStringList>
#include <QVector>

namespace opsdeck::test {

/// What bash itself makes of a serve script: it sources the script in a
/// subshell where `python`, `python3`, `exec` and `env` are functions that
/// only record their arguments, then prints the variables asked for.
struct BashAssignments
{
    QMap<QString, QByteArray> values; ///< name → value, for the names that are set
    QStringList exported;             ///< those of them in the environment
    QByteArrayList launchArguments;   ///< the arguments the last python/exec/env call got
};

/// Evaluates every script in one bash run (each in its own subshell), in a
/// temporary folder; `names` are the variables to print. Empty on failure
/// (a test assertion names why). Bounded: bash is killed after 60 s.
QVector<BashAssignments> evaluateInBash(const QVector<QByteArray> &scripts,
                                        const QStringList &names);

} // namespace opsdeck::test
