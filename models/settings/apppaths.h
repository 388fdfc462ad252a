#pragma once

#include <QString>

namespace opsdeck::settings {

/// Where OpsDeck keeps its state (history, audit, secrets file, demo dirs):
/// `--data-dir DIR` when given, else `$XDG_DATA_HOME/opsdeck`
/// (~/.local/share/opsdeck). The folder is created on first use.
class AppPaths
{
public:
    static QString dataDir(const QString &overrideDir = {});
    /// The demo's host folder: `<data dir>/demo`.
    static QString demoDir(const QString &overrideDataDir = {});
    /// opsdeck-sim beside the running executable, unless $OPSDECK_SIM names another.
    static QString simBinary();
    /// opsdeck.conf: `$XDG_CONFIG_HOME/opsdeck/opsdeck.conf` (~/.config/...), one
    /// file for the window and the command line; read with settingsvalues.h.
    static QString configFile();
};

} // namespace opsdeck::settings
