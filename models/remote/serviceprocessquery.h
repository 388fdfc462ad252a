#pragma once

#include <QString>

namespace opsdeck::remote {

/// What HostSignals needs to find one service's processes on its host: plain
/// data taken from the inventory (inventory::Service name, pidFile, url's port).
struct ServiceProcessQuery
{
    QString service; ///< Service::name, for messages
    /// Path on the host of the pid file `start` writes (Service::pidFile). A
    /// path starting with `~/` is taken under the host user's $HOME; one starting
    /// with `$` is expanded by the host's shell, as the inventory says. Empty:
    /// no pid file, only the port is searched.
    QString pidFile;
    /// The service's port (Service::url): processes whose arguments say
    /// `--port N` or `--port=N` belong to it (SGLang, vLLM and opsdeck-sim all
    /// take the flag). 0: not searched.
    int port = 0;
};

} // namespace opsdeck::remote
