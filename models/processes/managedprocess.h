#pragma once

#include "inventory.h"

#include <QString>

namespace opsdeck::processes {

/// A process OpsDeck starts and stops on a host: a service of the inventory,
/// or a helper process of the demo (its traffic generator). The commands run
/// through the host's transport with `bash -s`.
struct ManagedProcess
{
    QString name;
    QString host;   ///< inventory host name
    QString start;  ///< starts it detached and writes pidFile
    QString stop;   ///< asks it to stop (SIGTERM)
    QString status; ///< exits 0 while it runs
    QString kill;   ///< last resort after the stop deadline (SIGKILL)
    QString forget; ///< run once it is gone: removes the pid file, so it is never signalled again
    QString pidFile;
    /// When set, the derived status also requires the pid's command line to
    /// contain this text: a stale pid file whose pid now belongs to another
    /// process must not make OpsDeck signal that process.
    QString program;

    /// From an inventory service; empty stop/status/kill/forget are derived
    /// from the pid file (and `program`, when given).
    static ManagedProcess fromService(const inventory::Service &service,
                                      const QString &program = {});
    /// Fills empty stop/status/kill/forget from pidFile.
    void deriveMissingCommands();
};

} // namespace opsdeck::processes
