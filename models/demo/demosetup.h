#pragma once

#include "managedprocess.h"

#include <QString>
#include <optional>

namespace opsdeck::demo {

/// A keep-alive fault for the demo: `proxy-reused-stall=SECONDS` or
/// `router-reused-stall=SECONDS` — requests on a reused client connection of
/// that hop stall SECONDS before being forwarded (the incident of DESIGN.md).
struct DemoFault
{
    QString hop;        ///< "proxy" or "router"
    double seconds = 0; ///< stall, s (0 < seconds <= 3600)

    /// Empty text gives no fault; a bad one returns nothing and sets `error`.
    static std::optional<DemoFault> parse(const QString &text, QString *error);
};

struct DemoOptions
{
    QString dir;            ///< the demo host folder (AppPaths::demoDir by default)
    QString simBinary;      ///< opsdeck-sim to exec from the serve scripts
    int trafficClients = 8; ///< concurrent clients of the traffic generator; 0 = none
    std::optional<DemoFault> fault;
    QString transferBackend = QStringLiteral("mooncake"); ///< mooncake or nixl

    /// The demo's flags as the window and `opsdeck-cli demo up` take them,
    /// each as given (an absent flag: nullopt).
    struct Flags
    {
        std::optional<QString> dir;             ///< --dir
        std::optional<QString> dataDir;         ///< --data-dir (the demo folder is under it)
        std::optional<QString> traffic;         ///< --traffic: clients, 0 to 256
        std::optional<QString> fault;           ///< --fault: DemoFault::parse
        std::optional<QString> transferBackend; ///< --transfer-backend: mooncake or nixl
    };
    /// The options those flags give (the sim beside the running program), or
    /// nothing with `error` naming the bad flag ("bad --traffic '1.5': a number
    /// of clients from 0 to 256"). One parser for both programs.
    static std::optional<DemoOptions> fromFlags(const Flags &flags, QString *error);
};

/// Writes the demo host folder: one serve script per service (each exports
/// its knobs and execs opsdeck-sim, as real SGLang serve scripts do), the
/// traffic script, `logs/`, `run/`, and `inventory.yaml` pointing at them,
/// with free loopback ports chosen now so two demos never collide.
/// Templates come from resources/demo (compiled in). Any thread.
class DemoSetup
{
public:
    /// Returns the inventory path, or nothing with `error` set (names the file).
    static std::optional<QString> write(const DemoOptions &options, QString *error);
    static QString inventoryPath(const QString &dir);
    /// Whether `dir` can be the demo folder: no characters that would need
    /// quoting in shell commands, and a folder that exists or can be made and
    /// written. Returns false with `error` naming the folder.
    static bool checkDir(const QString &dir, QString *error);
    /// Whether `dir` is a demo's folder: its inventory.yaml is one the demo
    /// wrote (its first line), or, with none, its run/ holds an identity
    /// written for one of its pid files.
    static bool isDemos(const QString &dir);
    /// The traffic generator as a managed process of the demo's local host.
    /// `program`: see ManagedProcess::program.
    static processes::ManagedProcess trafficProcess(const QString &dir, const QString &program);
};

} // namespace opsdeck::demo
