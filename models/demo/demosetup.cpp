#include "demosetup.h"

#include "apppaths.h"
#include "privatefiles.h"
#include "shellquote.h"
#include "visibletext.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QRegularExpression>
#include <QSaveFile>
#include <QTcpServer>
#include <memory>
#include <vector>

namespace opsdeck::demo {

std::optional<DemoFault> DemoFault::parse(const QString &text, QString *error)
{
    static const QRegularExpression form(QRegularExpression::anchoredPattern(
        QStringLiteral("(proxy|router)-reused-stall=([0-9]+(?:\\.[0-9]+)?)")));
    const auto match = form.match(text);
    const double seconds = match.hasMatch() ? match.captured(2).toDouble() : 0;
    if (!match.hasMatch() || seconds <= 0 || seconds > 3600) {
        *error = QStringLiteral("bad --fault '%1': expected proxy-reused-stall=SECONDS or "
                                "router-reused-stall=SECONDS (0 < SECONDS <= 3600)")
                     .arg(text);
        return std::nullopt;
    }
    return DemoFault{match.captured(1), seconds};
}

std::optional<DemoOptions> DemoOptions::fromFlags(const Flags &flags, QString *error)
{
    DemoOptions options;
    options.dir =
        flags.dir ? *flags.dir : settings::AppPaths::demoDir(flags.dataDir.value_or(QString()));
    options.simBinary = settings::AppPaths::simBinary();
    if (flags.traffic) {
        static const QRegularExpression digits(
            QRegularExpression::anchoredPattern(QStringLiteral("[0-9]{1,3}")));
        const int clients = flags.traffic->toInt();
        if (!digits.match(*flags.traffic).hasMatch() || clients > 256) {
            *error = QStringLiteral("bad --traffic '%1': a number of clients from 0 to 256")
                         .arg(*flags.traffic);
            return std::nullopt;
        }
        options.trafficClients = clients;
    }
    if (flags.fault) {
        options.fault = DemoFault::parse(*flags.fault, error);
        if (!options.fault)
            return std::nullopt;
    }
    if (flags.transferBackend) {
        if (*flags.transferBackend != u"mooncake" && *flags.transferBackend != u"nixl") {
            *error = QStringLiteral("bad --transfer-backend '%1': mooncake or nixl")
                         .arg(*flags.transferBackend);
            return std::nullopt;
        }
        options.transferBackend = *flags.transferBackend;
    }
    return options;
}

namespace {

// The first line of resources/demo/inventory.yaml: a folder whose inventory
// starts so is a demo's, to be replaced.
constexpr char kInventoryFirstLine[] = "# OpsDeck demo inventory";

// A port nothing listens on, taken by `held` until it is let go: ports picked
// one after another while the earlier ones are held are all different (the
// kernel may hand a just-closed port out again).
int freePort(std::vector<std::unique_ptr<QTcpServer>> &held)
{
    auto server = std::make_unique<QTcpServer>();
    if (!server->listen(QHostAddress::LocalHost, 0))
        return 0;
    const int port = server->serverPort();
    held.push_back(std::move(server));
    return port;
}

bool writeFromTemplate(const QString &templateName, const QString &target,
                       const QHash<QString, QString> &values, bool executable, QString *error)
{
    QFile source(QStringLiteral(":/demo/") + templateName);
    if (!source.open(QIODevice::ReadOnly)) {
        *error = QStringLiteral("demo template %1 is missing from the build").arg(templateName);
        return false;
    }
    QString text = QString::fromUtf8(source.readAll());
    for (auto it = values.cbegin(); it != values.cend(); ++it)
        text.replace(QLatin1Char('@') + it.key() + QLatin1Char('@'), it.value());
    // Written whole or not at all: a half-written serve script must never run.
    // The user's alone whatever the umask: start commands and pid files are
    // what demo down acts on.
    QFileDevice::Permissions mode = QFileDevice::ReadOwner | QFileDevice::WriteOwner;
    if (executable)
        mode |= QFileDevice::ExeOwner;
    QSaveFile file(target);
    if (!file.open(QIODevice::WriteOnly) || !file.setPermissions(mode) ||
        file.write(text.toUtf8()) < 0 || !file.commit()) {
        *error = QStringLiteral("cannot write %1: %2").arg(target, file.errorString());
        return false;
    }
    return true;
}

} // namespace

QString DemoSetup::inventoryPath(const QString &dir)
{
    return QDir(dir).absoluteFilePath(QStringLiteral("inventory.yaml"));
}

namespace {

// Whether `dir`/run holds an identity written for one of its pid files.
bool demoRunIn(const QString &dir)
{
    const QDir run(QDir(dir).filePath(QStringLiteral("run")));
    const QByteArray named = "\npidfile=" + QFile::encodeName(run.absolutePath()) + '/';
    for (const QFileInfo &identity :
         run.entryInfoList({QStringLiteral("*.pid.identity")}, QDir::Files)) {
        QFile file(identity.filePath());
        if (file.open(QIODevice::ReadOnly) && file.read(4096).contains(named))
            return true;
    }
    return false;
}

} // namespace

bool DemoSetup::isDemos(const QString &dir)
{
    QFile inventory(inventoryPath(dir));
    return inventory.open(QIODevice::ReadOnly)
               ? inventory.readLine(256).startsWith(kInventoryFirstLine)
               : demoRunIn(dir);
}

bool DemoSetup::checkDir(const QString &path, QString *error)
{
    const QString dir = QDir(path).absolutePath();
    // The folder is pasted into shell commands and YAML: refuse what would
    // need escaping there rather than quote it in three syntaxes.
    static const QRegularExpression unsafe(QStringLiteral("[^A-Za-z0-9_./+,=@:~ -]"));
    QStringList refused; // each character once, as the terminal can show it
    for (auto it = unsafe.globalMatch(dir); it.hasNext();) {
        const QString shown = logging::visibleText(it.next().captured(0));
        const QString quoted = shown == u"'" ? QStringLiteral("\"'\"") : u'\'' + shown + u'\'';
        if (!refused.contains(quoted))
            refused << quoted;
    }
    // YAML ends a plain key at ": " (and at a last ':'): "a: b" would split the path.
    if (dir.contains(QStringLiteral(": ")) || dir.endsWith(u':'))
        refused << QStringLiteral("': ' (a colon before a space or at the end)");
    if (!refused.isEmpty()) {
        *error = QStringLiteral("demo folder %1 has characters that are unsafe in shell commands "
                                "and YAML: %2 (letters, digits, space and _ . / + , = @ : ~ - "
                                "are allowed)")
                     .arg(logging::visibleText(dir), refused.join(QStringLiteral(", ")));
        return false;
    }
    const QFileInfo info(dir);
    if (info.exists() && !info.isDir()) {
        *error = QStringLiteral("demo folder %1 exists and is not a folder").arg(dir);
        return false;
    }
    // A folder of the person's own is never written over: the demo's files
    // replace only a demo's (its inventory says so on its first line).
    QStringList mine;
    for (const QString &name : QDir(QStringLiteral(":/demo")).entryList(QDir::Files)) {
        if (QFileInfo::exists(QDir(dir).filePath(name)))
            mine << name;
    }
    // One whose inventory is gone but whose run/ holds an identity the demo
    // wrote for it is a demo's too: up and down then ask for the inventory
    // back (DemoCluster). A run/ folder alone is not (a deployment's folder
    // often has one beside its own serve scripts).
    if (!mine.isEmpty() && !isDemos(dir)) {
        *error = QStringLiteral("demo folder %1 holds %2, which the demo would write over, and is "
                                "not a demo's (its inventory.yaml is not one the demo wrote): "
                                "choose another folder")
                     .arg(dir, mine.join(QStringLiteral(", ")));
        return false;
    }
    // Nor written through a link at a name the demo writes (a serve script
    // of the person's linked in to try it): the file it names would be
    // replaced, a log appended to.
    QStringList links;
    QStringList names = QDir(QStringLiteral(":/demo")).entryList(QDir::Files);
    names << QStringLiteral("logs") << QStringLiteral("run") << QStringLiteral("recorder.pid")
          << QStringLiteral("recorder.pid.identity") << QStringLiteral("recorder.pid.start-lock");
    for (const QString &sub : {QStringLiteral("logs"), QStringLiteral("run")})
        for (const QString &name :
             QDir(QDir(dir).filePath(sub))
                 .entryList(QDir::AllEntries | QDir::System | QDir::Hidden | QDir::NoDotAndDotDot))
            names << sub + u'/' + name;
    for (const QString &name : std::as_const(names))
        if (QFileInfo(QDir(dir).filePath(name)).isSymLink())
            links << name;
    if (!links.isEmpty()) {
        *error = QStringLiteral("demo folder %1 holds links where the demo writes (%2): it never "
                                "writes through a link; remove them or choose another folder")
                     .arg(dir, links.join(QStringLiteral(", ")));
        return false;
    }
    if (!settings::PrivateFiles::makeDir(dir) || !QFileInfo(dir).isWritable()) {
        *error = QStringLiteral("demo folder %1 cannot be created or written").arg(dir);
        return false;
    }
    return true;
}

std::optional<QString> DemoSetup::write(const DemoOptions &options, QString *error)
{
    const QString dir = QDir(options.dir).absolutePath();
    if (!checkDir(dir, error))
        return std::nullopt;
    for (const QString &sub : {QStringLiteral("/logs"), QStringLiteral("/run")}) {
        if (!settings::PrivateFiles::makeDir(dir + sub)) {
            *error = QStringLiteral("cannot create folder %1").arg(dir + sub);
            return std::nullopt;
        }
    }
    QHash<QString, QString> values;
    values[QStringLiteral("DIR")] = dir;
    values[QStringLiteral("SIM")] = options.simBinary;
    values[QStringLiteral("MODEL")] = QStringLiteral("Qwen/Qwen3-8B");
    values[QStringLiteral("BACKEND")] = options.transferBackend;
    values[QStringLiteral("CLIENTS")] = QString::number(options.trafficClients);
    std::vector<std::unique_ptr<QTcpServer>> held; // let go before the services start
    for (const char *name : {"PREFILL_PORT", "BOOTSTRAP_PORT", "DECODE_PORT", "ROUTER_PORT",
                             "ROUTER_METRICS_PORT", "PROXY_PORT"}) {
        const int port = freePort(held);
        if (port == 0) {
            *error = QStringLiteral("no free port on 127.0.0.1 for the demo");
            return std::nullopt;
        }
        values[QString::fromLatin1(name)] = QString::number(port);
    }
    const QString faultFlag =
        options.fault ? QStringLiteral("--fault reused-stall=%1").arg(options.fault->seconds)
                      : QString();
    const bool faultAtProxy = options.fault && options.fault->hop == u"proxy";
    values[QStringLiteral("PROXY_FAULT")] = faultAtProxy ? faultFlag : QString();
    values[QStringLiteral("ROUTER_FAULT")] = faultAtProxy ? QString() : faultFlag;

    const struct
    {
        const char *name;
        bool executable;
    } files[] = {{"serve_prefill.sh", true}, {"serve_decode.sh", true}, {"serve_router.sh", true},
                 {"serve_proxy.sh", true},   {"traffic.sh", true},      {"inventory.yaml", false}};
    for (const auto &file : files) {
        const QString name = QString::fromLatin1(file.name);
        if (!writeFromTemplate(name, dir + QLatin1Char('/') + name, values, file.executable, error))
            return std::nullopt;
    }
    return inventoryPath(dir);
}

processes::ManagedProcess DemoSetup::trafficProcess(const QString &given, const QString &program)
{
    // Absolute, as the identity recorded at the start names it: `demo down
    // --dir demo` must find the generator `demo up --dir /abs/demo` started.
    const QString dir = QDir(given).absolutePath();
    processes::ManagedProcess process;
    process.program = program;
    process.name = QStringLiteral("traffic");
    process.host = QStringLiteral("local");
    process.pidFile = dir + QStringLiteral("/run/traffic.pid");
    process.requireIdentity = true;
    process.start = QStringLiteral("umask 077; setsid bash %1 </dev/null >>%2 2>&1 & echo $! >%3")
                        .arg(shell::singleQuoted(dir + QStringLiteral("/traffic.sh")),
                             shell::singleQuoted(dir + QStringLiteral("/logs/traffic.log")),
                             shell::singleQuoted(process.pidFile));
    process.deriveMissingCommands();
    return process;
}

} // namespace opsdeck::demo
