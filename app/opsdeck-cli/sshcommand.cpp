#include "sshcommand.h"

#include "cliinventory.h"
#include "clioutput.h"
#include "hostconnections.h"
#include "hostkeyauditor.h"
#include "inventory.h"
#include "numberoption.h"
#include "sshsecrets.h"
#include "sshtransport.h"
#include "synchronousrun.h"

#include <QFileInfo>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <termios.h>
#include <unistd.h>

using opsdeck::remote::CommandRequest;
using opsdeck::remote::CommandResult;
using opsdeck::remote::SshConnectionState;
using opsdeck::remote::SshSettings;

namespace opsdeck::cli {

namespace {

void writeRaw(std::FILE *stream, const QByteArray &bytes)
{
    std::fwrite(bytes.constData(), 1, static_cast<size_t>(bytes.size()), stream);
    std::fflush(stream);
}

// HOST from the inventory (kind ssh), else `[user@]host[:port]` / an ssh config alias.
bool resolveHost(const QString &host, const QString &inventoryFile, SshSettings &settings)
{
    if (inventoryFile.isEmpty()) {
        QString name = host;
        const qsizetype at = name.lastIndexOf(u'@');
        if (at >= 0) {
            settings.user = name.left(at);
            name = name.mid(at + 1);
        }
        // host:port or [address]:port, but not a bare IPv6 address (more
        // than one colon outside brackets).
        const qsizetype colon = name.lastIndexOf(u':');
        const bool bracketed = name.startsWith(u'[') && colon > 0 && name.at(colon - 1) == u']';
        if (colon == 0 || (bracketed && colon == 2)) {
            printError(QStringLiteral("bad host '%1': no host name before the port").arg(host));
            return false;
        }
        if (colon > 0 && (bracketed || name.count(u':') == 1)) {
            bool ok = false;
            const int port = name.mid(colon + 1).toInt(&ok);
            if (!ok || port < 1 || port > 65535) {
                printError(QStringLiteral("bad port in '%1': 1 to 65535").arg(host));
                return false;
            }
            settings.port = port;
            name = name.left(colon);
            if (bracketed)
                name = name.mid(1, name.size() - 2);
        }
        settings.host = name;
        return true;
    }
    const std::optional<inventory::Inventory> loaded = loadInventoryOrSay(inventoryFile);
    if (!loaded)
        return false;
    const inventory::Host *entry = loaded->host(host);
    if (!entry) {
        printError(QStringLiteral("%1: no host '%2' in the inventory").arg(inventoryFile, host));
        return false;
    }
    if (entry->kind != inventory::HostKind::Ssh) {
        printError(QStringLiteral("%1: host '%2' is of kind %3, not ssh")
                       .arg(inventoryFile, host, inventory::hostKindName(entry->kind)));
        return false;
    }
    // As the window reaches it: the name as an ssh config alias, the
    // inventory's address, port and user as overrides.
    settings = hosts::HostConnections::sshSettings(*entry, {});
    return true;
}

// A password or passphrase the keychain does not hold, asked on the terminal
// with echo off; never when stdin is not a terminal (a pipe, CI, a cron job),
// so the command never waits for a person who is not there. Runs in the
// session thread (SshSecrets::Prompt), once per key.
std::optional<QByteArray> askOnTerminal(const QString &question)
{
    termios normal{};
    if (!::isatty(STDIN_FILENO) || ::tcgetattr(STDIN_FILENO, &normal) != 0)
        return std::nullopt;
    termios quiet = normal;
    quiet.c_lflag &= ~static_cast<tcflag_t>(ECHO);
    writeRaw(stderr, question.toLocal8Bit());
    ::tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet);
    // Read byte by byte from the descriptor: stdio's buffer would keep a copy;
    // reserved, so no reallocation leaves a partial copy behind either.
    QByteArray answer;
    answer.reserve(4096);
    char c = 0;
    bool ended = false;
    while (answer.size() < 4096 && ::read(STDIN_FILENO, &c, 1) == 1) {
        if (c == '\n') {
            ended = true;
            break;
        }
        answer += c;
    }
    c = 0;
    ::tcsetattr(STDIN_FILENO, TCSAFLUSH, &normal);
    writeRaw(stderr, "\n");
    if (!ended) {
        ::explicit_bzero(answer.data(), static_cast<size_t>(answer.size()));
        return std::nullopt;
    }
    return answer;
}

// "SIGTERM" -> 15; 0 for a name this system does not know.
int signalNumber(const QString &name)
{
    for (int n = 1; n < NSIG; ++n) {
        const char *abbrev = ::sigabbrev_np(n);
        if (abbrev && name == QStringLiteral("SIG") + QLatin1String(abbrev))
            return n;
    }
    return 0;
}

int exitCodeFor(const CommandResult &result, const SshConnectionState &state, const QString &host)
{
    switch (result.outcome) {
    case CommandResult::Outcome::Exited:
        if (!result.inputPrompt.isEmpty())
            printError(QStringLiteral("%1: the command asked for input with stdin closed: “%2” "
                                      "(nothing answers a prompt; make the command "
                                      "non-interactive)")
                           .arg(host, result.inputPrompt));
        return result.exitCode;
    case CommandResult::Outcome::Signalled: {
        printError(QStringLiteral("%1: command killed by %2").arg(host, result.signalName));
        const int number = signalNumber(result.signalName);
        return number > 0 ? 128 + number : ExitFailed;
    }
    case CommandResult::Outcome::TimedOut:
        printError(QStringLiteral("%1: %2; the command was sent TERM, then KILL")
                       .arg(host, result.describe()));
        return ExitUnknown;
    case CommandResult::Outcome::Cancelled:
    case CommandResult::Outcome::Unknown:
        printError(QStringLiteral("%1: %2: %3").arg(host, result.describe(), result.errorText));
        return ExitUnknown;
    case CommandResult::Outcome::FailedToStart:
        break;
    }
    printError(result.errorText);
    switch (state.failure) {
    case SshConnectionState::Failure::HostKeyRefused:
        return ExitHostKeyRefused;
    case SshConnectionState::Failure::Config:
        return ExitBadInput;
    default:
        return ExitFailed;
    }
}

} // namespace

int runSsh(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Run one command on a host over SSH (the console's transport)."));
    parser.addPositionalArgument(QStringLiteral("host"),
                                 QStringLiteral("Inventory host, ssh config alias or "
                                                "[user@]host[:port] ([address]:port for IPv6)."));
    parser.addPositionalArgument(QStringLiteral("command"),
                                 QStringLiteral("After --: the program and its arguments."));
    parser.addOption({QStringLiteral("inventory"),
                      QStringLiteral("Resolve HOST in this inventory (kind ssh)."),
                      QStringLiteral("file")});
    parser.addOption({QStringLiteral("ssh-config"),
                      QStringLiteral("OpenSSH client config (default: the settings' [ssh] "
                                     "config_file, else ~/.ssh/config)."),
                      QStringLiteral("file")});
    parser.addOption({QStringLiteral("known-hosts"),
                      QStringLiteral("known_hosts file (default: the settings' [ssh] "
                                     "known_hosts_file, else ~/.ssh/known_hosts)."),
                      QStringLiteral("file")});
    parser.addOption({QStringLiteral("accept-new-host-key"),
                      QStringLiteral("Accept and save an unknown host key with exactly this "
                                     "fingerprint."),
                      QStringLiteral("SHA256:...")});
    parser.addOption({QStringLiteral("identity"),
                      QStringLiteral("Private key file to use (repeatable); default: ssh-agent, "
                                     "then the config's IdentityFile or ~/.ssh/id_*."),
                      QStringLiteral("file")});
    parser.addOption({QStringLiteral("timeout"),
                      QStringLiteral("Deadline of the command in seconds (default 30); also "
                                     "bounds the connect (at least 1 s, default 10)."),
                      QStringLiteral("s")});
    parser.addOption(dataDirOption());
    if (!parseArguments(parser, arguments))
        return ExitBadInput;
    QStringList positional = parser.positionalArguments();
    if (positional.size() < 2) {
        printError(QStringLiteral("usage: opsdeck-cli ssh HOST [options] -- COMMAND..."));
        return ExitBadInput;
    }
    const QString host = positional.takeFirst();

    SshSettings settings;
    if (!resolveHost(host, parser.value(QStringLiteral("inventory")), settings))
        return ExitBadInput;
    const auto files = sshFileOptions(parser);
    settings.configFile = files.sshConfigFile;
    settings.knownHostsFile = files.knownHostsFile;
    settings.acceptedFingerprint = parser.value(QStringLiteral("accept-new-host-key"));
    settings.identityFiles = parser.values(QStringLiteral("identity"));
    if (!settings.acceptedFingerprint.isEmpty() &&
        !settings.acceptedFingerprint.startsWith(u"SHA256:")) {
        printError(QStringLiteral("bad --accept-new-host-key '%1': give the SHA256:... "
                                  "fingerprint as ssh-keygen -l prints it")
                       .arg(settings.acceptedFingerprint));
        return ExitBadInput;
    }
    for (const QString &file : {settings.configFile, settings.knownHostsFile}) {
        if (!file.isEmpty() && QFileInfo(file).isDir()) {
            printError(QStringLiteral("%1: is a directory, not a file").arg(file));
            return ExitBadInput;
        }
    }

    CommandRequest request;
    request.argv = positional;
    if (parser.isSet(QStringLiteral("timeout"))) {
        // Below 1 ms the deadline would be 0: refused, not run as a 0 ms deadline.
        const std::optional<double> timeout =
            secondsOption(parser, QStringLiteral("timeout"), 0.001, 86400, 0);
        if (!timeout)
            return ExitBadInput;
        request.deadline = std::chrono::milliseconds(static_cast<qint64>(*timeout * 1000));
        // TCP and key exchange against a port that never speaks SSH would
        // otherwise take the full default connect limit.
        settings.connectTimeout =
            std::max<std::chrono::milliseconds>(request.deadline, std::chrono::seconds(1));
    }
    // Password and key passphrases: the keychain, else asked once on a terminal.
    remote::SshSecrets::install(settings, &askOnTerminal);
    // Host-key decisions (accepted, refused) go to the audit log, as in the window.
    auto auditor = hosts::HostKeyAuditor::inDataDir(parser.value(QStringLiteral("data-dir")));
    settings.hostKeyDecided = [auditor](const remote::HostKeyDecision &decision, QString *error) {
        return auditor->record(decision, error);
    };

    remote::SshTransport transport(host, settings);
    // Output is copied as it comes (a long command shows progress); the
    // chunks add up to the result's kept bytes exactly (transport.h).
    QObject::connect(&transport, &remote::Transport::commandOutput, &transport,
                     [](quint64, remote::OutputChannel channel, const QByteArray &chunk) {
                         writeRaw(channel == remote::OutputChannel::StandardError ? stderr : stdout,
                                  chunk);
                     });
    const CommandResult result = remote::runAndWait(transport, request);
    // The host-key entries are on disk before the command reports.
    auditor->flush();
    if (result.standardOutputDropped || result.standardErrorDropped)
        printError(QStringLiteral("output past the %1-byte cap not shown: %2 bytes of stdout, "
                                  "%3 of stderr")
                       .arg(request.outputCap)
                       .arg(result.standardOutputDropped)
                       .arg(result.standardErrorDropped));
    return exitCodeFor(result, transport.connectionState(), host);
}

} // namespace opsdeck::cli
