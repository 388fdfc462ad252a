#include "apppaths.h"

#include "privatefiles.h"

#include <QCoreApplication>
#include <QDir>
#include <QStandardPaths>

namespace opsdeck::settings {

QString AppPaths::dataDir(const QString &overrideDir)
{
    // GenericDataLocation rather than AppDataLocation: the window and the
    // command line are different executables sharing one state folder.
    const QString dir =
        overrideDir.isEmpty()
            ? QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation) +
                  QStringLiteral("/opsdeck")
            : QDir(overrideDir).absolutePath();
    // The history, the audit log and pid files are the user's alone.
    PrivateFiles::makeDir(dir);
    return dir;
}

QString AppPaths::demoDir(const QString &overrideDataDir)
{
    return dataDir(overrideDataDir) + QStringLiteral("/demo");
}

QString AppPaths::simBinary()
{
    const QString fromEnvironment = qEnvironmentVariable("OPSDECK_SIM");
    if (!fromEnvironment.isEmpty())
        return fromEnvironment;
    return QCoreApplication::applicationDirPath() + QStringLiteral("/opsdeck-sim");
}

QString AppPaths::configFile()
{
    // One file shared by the window and the CLI, whatever their application names.
    return QStandardPaths::writableLocation(QStandardPaths::GenericConfigLocation) +
           QStringLiteral("/opsdeck/opsdeck.conf");
}

} // namespace opsdeck::settings
