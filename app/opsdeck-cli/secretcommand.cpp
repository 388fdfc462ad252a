#include "secretcommand.h"

#include "clioutput.h"
#include "secretstore.h"

#include <QJsonObject>
#include <cstdio>
#include <termios.h>
#include <unistd.h>

using namespace Qt::StringLiterals;
using opsdeck::secrets::SecretResult;
using opsdeck::secrets::SecretStore;

namespace opsdeck::cli {

namespace {

using Status = SecretResult::Status;

// Reads the value without echo from a terminal, else the whole of stdin.
// std::fread rather than QFile: no Qt buffer keeps a copy we cannot wipe.
QByteArray readValue(const QString &key)
{
    QByteArray value;
    const bool terminal = ::isatty(STDIN_FILENO) == 1;
    termios saved{};
    if (terminal) {
        std::fprintf(stderr, "value for %s (not echoed): ", key.toLocal8Bit().constData());
        std::fflush(stderr);
        ::tcgetattr(STDIN_FILENO, &saved);
        termios quiet = saved;
        quiet.c_lflag &= ~static_cast<tcflag_t>(ECHO);
        ::tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet);
    }
    char chunk[4096];
    for (;;) {
        if (terminal) {
            if (!std::fgets(chunk, sizeof chunk, stdin))
                break;
            value.append(chunk);
            if (value.endsWith('\n'))
                break;
            continue;
        }
        const size_t n = std::fread(chunk, 1, sizeof chunk, stdin);
        value.append(chunk, static_cast<qsizetype>(n));
        if (n < sizeof chunk)
            break;
    }
    std::fill(std::begin(chunk), std::end(chunk), '\0');
    if (terminal) {
        ::tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved);
        std::fputc('\n', stderr);
    }
    if (value.endsWith('\n'))
        value.chop(value.endsWith("\r\n") ? 2 : 1);
    return value;
}

int exitFor(const SecretResult &result)
{
    return result.status == Status::Failed || result.status == Status::TimedOut ? ExitUnknown
                                                                                : ExitFailed;
}

} // namespace

int runSecret(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        u"Keeps API keys and passwords in the keychain (service \"opsdeck\").\n"
        "  set KEY     the value is read from stdin, never echoed\n"
        "  delete KEY  removes it\n"
        "  check KEY   says whether it is stored (never the value)\n"
        "Keys: http/<service>/api-key, ssh/<host>/<user>; audit/... (the audit chain's key "
        "and anchor) are checked only."_s);
    parser.addPositionalArgument(u"action"_s, u"set, delete or check"_s);
    parser.addPositionalArgument(u"key"_s, u"e.g. http/decode/api-key"_s);
    parser.addOption(jsonOption());
    if (!parseArguments(parser, arguments))
        return ExitBadInput;
    const QStringList positional = parser.positionalArguments();
    const QString action = positional.value(0);
    if (positional.size() != 2 ||
        (action != u"set"_s && action != u"delete"_s && action != u"check"_s)) {
        printError(u"usage: opsdeck-cli secret set|delete|check KEY"_s);
        return ExitBadInput;
    }
    const QString key = positional.at(1);
    if (const QString problem = SecretStore::keyProblem(key); !problem.isEmpty()) {
        printError(problem);
        return ExitBadInput;
    }

    // The audit chain's key and anchor are the log's evidence: set or
    // deleted by hand, they would let an edited log pass or block every
    // later entry. Only the audit log itself writes them.
    if (key.startsWith(u"audit/"_s) && action != u"check"_s) {
        printError(u"%1 is the audit log's own (its chain key or anchor): not set or deleted "
                   "by hand"_s.arg(key));
        return ExitBadInput;
    }
    SecretStore store;
    if (action == u"set"_s) {
        QByteArray value = readValue(key);
        if (value.isEmpty()) {
            printError(u"no value on stdin for %1"_s.arg(key));
            return ExitBadInput;
        }
        const SecretResult result = store.writeBlocking(key, value);
        SecretStore::wipe(value);
        if (!result.ok()) {
            printError(result.error);
            return exitFor(result);
        }
        if (parser.isSet(jsonOption()))
            printJson(QJsonDocument(QJsonObject{{u"key"_s, key}, {u"stored"_s, true}}));
        else
            printLine(u"stored %1"_s.arg(key));
        return ExitOk;
    }

    // The Secret Service deletes a missing key without a word: read to tell.
    SecretResult existing = store.readBlocking(key);
    SecretStore::wipe(existing.value);
    if (existing.status != Status::Ok && existing.status != Status::NotFound) {
        printError(existing.error);
        return exitFor(existing);
    }
    const bool stored = existing.ok();
    if (action == u"check"_s) {
        if (parser.isSet(jsonOption()))
            printJson(QJsonDocument(QJsonObject{{u"key"_s, key}, {u"stored"_s, stored}}));
        else
            printLine(stored ? u"%1: stored"_s.arg(key) : u"%1: not stored"_s.arg(key));
        return stored ? ExitOk : ExitFailed;
    }
    if (!stored) {
        printError(existing.error);
        return ExitFailed;
    }
    const SecretResult removed = store.removeBlocking(key);
    if (!removed.ok()) {
        printError(removed.error);
        return exitFor(removed);
    }
    if (parser.isSet(jsonOption()))
        printJson(QJsonDocument(QJsonObject{{u"key"_s, key}, {u"deleted"_s, true}}));
    else
        printLine(u"deleted %1"_s.arg(key));
    return ExitOk;
}

} // namespace opsdeck::cli
