#include "commandtable.h"

#include "auditcommand.h"
#include "auditkey.h"
#include "batchcheckcommand.h"
#include "changedsincecommand.h"
#include "clioutput.h"
#include "democommand.h"
#include "diagnosecommand.h"
#include "knobscommand.h"
#include "lockcommand.h"
#include "metricscommand.h"
#include "probecommand.h"
#include "ratecommand.h"
#include "recordcommand.h"
#include "secretcommand.h"
#include "sshcommand.h"
#include "statuscommand.h"
#include "verifycommand.h"
#include "workflowcommand.h"

using namespace Qt::StringLiterals;

namespace opsdeck::cli {

namespace {

// The flags every check against an inventory takes beside its own.
const QString inventoryFlags = u"[--ssh-config FILE] [--known-hosts FILE] [--data-dir DIR]"_s;

} // namespace

const std::vector<CliCommand> &commandTable()
{
    static const std::vector<CliCommand> table{
        {u"demo"_s, u"up"_s,
         u"[--dir DIR] [--data-dir DIR] [--traffic N] [--fault "
         u"proxy-reused-stall=S|router-reused-stall=S] "
         "[--transfer-backend mooncake|nixl] [--force] [--json]"_s,
         u"start the simulated PD cluster and its recorder; prints the inventory's path"_s,
         &runDemo},
        {u"demo"_s, u"down"_s, u"[--dir DIR] [--data-dir DIR] [--force]"_s,
         u"stop every process of the demo; returns when each has exited"_s, &runDemo},
        {u"status"_s, QString(), u"--inventory FILE [--timeout MS] [--json] "_s + inventoryFlags,
         u"one health check of every service (exit 1 unless all are healthy)"_s, &runStatus},
        {u"metrics"_s, u"summarize"_s, u"FILE|URL [--profile P] [--timeout MS] [--json]"_s,
         u"parse one /metrics page into the values the console shows"_s, &runMetrics},
        {u"metrics"_s, u"rate"_s,
         u"FILE1 FILE2 (--interval S | --at T1 T2) [--profile P] [--json]"_s,
         u"per-second rates and latency quantiles between two scrapes"_s, &runMetricsRate},
        {u"record"_s, QString(),
         u"--inventory FILE [--pid-file FILE] [--interval-ms MS] [--no-watch] [--recover] "_s +
             inventoryFlags,
         u"record history, and run the keep-alive watch, without a window until SIGTERM"_s,
         &runRecord},
        {u"diagnose"_s, QString(),
         u"--inventory FILE --cluster NAME [--rounds N] [--idle-gap S] [--timeout-ms MS] "
         "[--probe auto|health] [--measure-stall S] [--json] "_s +
             inventoryFlags,
         u"fresh vs reused keep-alive probes per path; names the stalling hop (exit 1 when one "
         "stalls, 3 inconclusive)"_s,
         &runDiagnose},
        {u"probe"_s, QString(),
         u"URL [--fresh|--reused] [--idle-gap S] [--count N] [--chat] [--stream] [--max-tokens N] "
         "[--model NAME] [--timeout-ms MS] [--cacert FILE] [--insecure] [--proxy URL] "
         "[--api-key-secret KEY] [--json]"_s,
         u"fresh or kept-alive probes with curl's timings, one line per probe"_s, &runProbe},
        {u"verify"_s, QString(),
         u"--inventory FILE --cluster NAME [-n N] [--idle-gap S] [--skip-keepalive] "
         "[--confirm NAME] [--json] "_s +
             inventoryFlags,
         u"health -> end-to-end -> keep-alive through the clients' path -> batch check (exit 1 "
         "at the first failed stage)"_s,
         &runVerify},
        {u"batch-check"_s, QString(),
         u"--inventory FILE --cluster NAME [-n N] [--confirm NAME] [--json] "_s + inventoryFlags,
         u"N concurrent chats while sampling decode running requests: BATCHED (exit 0), "
         "SERIALIZED or PARTIAL (exit 1)"_s,
         &runBatchCheck},
        {u"ssh"_s, QString(),
         u"HOST [--inventory FILE] [--ssh-config FILE] [--known-hosts FILE] "
         "[--accept-new-host-key SHA256:...] [--identity FILE] [--timeout S] [--data-dir DIR] "
         "-- COMMAND..."_s,
         u"one command over SSH; its exit code (signal: 128+N), 3 timeout, 4 host key refused"_s,
         &runSsh},
        {u"audit"_s, QString(), u"[--verify] [--since TIME] [--json] [--data-dir DIR]"_s,
         u"the audit log, oldest first; --verify checks its chain (exit 1 broken or truncated)"_s,
         &runAudit},
        {u"knobs"_s, u"read"_s,
         u"SCRIPT [--host HOST --inventory FILE] [--json] "_s + inventoryFlags,
         u"every knob of a serve script as bash assigns it, with warnings (exit 1 when bash -n "
         "fails)"_s,
         &runKnobs},
        {u"knobs"_s, u"set"_s,
         u"SCRIPT KEY [VALUE] [--host HOST --inventory FILE] [--knob NAME] [--confirm NAME] "
         "[--dry-run] [--json] "_s +
             inventoryFlags,
         u"change one knob: diff, verified backup, audit entry, atomic write (no restart)"_s,
         &runKnobs},
        {u"knobs"_s, u"unset"_s,
         u"SCRIPT KEY [--host HOST --inventory FILE] [--knob NAME] [--confirm NAME] [--dry-run] "
         "[--json] [--data-dir DIR]"_s,
         u"remove a knob from the script, as set"_s, &runKnobs},
        {u"knobs"_s, u"comment"_s,
         u"SCRIPT KEY [--host HOST --inventory FILE] [--knob NAME] [--confirm NAME] [--dry-run] "
         "[--json] [--data-dir DIR]"_s,
         u"comment a knob out (back to the server's default), as set"_s, &runKnobs},
        {u"knobs"_s, u"backups"_s,
         u"SCRIPT [--host HOST --inventory FILE] [--json] "_s + inventoryFlags,
         u"OpsDeck's and hand-made backups beside the script, with their knob changes"_s,
         &runKnobs},
        {u"knobs"_s, u"restore"_s,
         u"SCRIPT BACKUP [--host HOST --inventory FILE] [--confirm NAME] [--dry-run] [--json] "
         "[--data-dir DIR]"_s,
         u"put a backup back, as set (the current script is backed up first)"_s, &runKnobs},
        {u"knobs"_s, u"diff"_s, u"A B [--host HOST --inventory FILE] [--json] "_s + inventoryFlags,
         u"two versions of a serve script knob by knob (exit 1 when they differ)"_s, &runKnobs},
        {u"knobs"_s, u"drift"_s, u"--inventory FILE --service NAME [--json] "_s + inventoryFlags,
         u"a service's serve script against its running process (exit 1 restart needed, 3 "
         "process unreadable)"_s,
         &runKnobs},
        {u"changed-since"_s, QString(),
         u"--inventory FILE --host HOST [--since TIME] [--json] "_s + inventoryFlags,
         u"files changed on a host since a time, and each serve script's knob diff"_s,
         &runChangedSince},
        {u"workflow"_s, u"plan"_s,
         u"KIND --inventory FILE --cluster NAME [--service NAME] [--knob KEY[=VALUE]] "
         "[--backup PATH] [--drain] [--json] "_s +
             inventoryFlags,
         u"the numbered plan of restart, co-restart, restart-proxy, revert-knob or restore-knob"_s,
         &runWorkflow},
        {u"workflow"_s, u"run"_s,
         u"KIND --inventory FILE --cluster NAME [--service NAME] [--knob KEY[=VALUE]] "
         "[--backup PATH] --confirm NAME [--reason TEXT] [--idle-gap S] [--failure-watch S] "
         "[--drain [--drain-timeout S]] [--auto-rollback] "
         "[--despite-evidence] [--json] "_s +
             inventoryFlags,
         u"run it headless, guarded and journaled (exit 1 a step failed, 2 refused, 3 "
         "cancelled)"_s,
         &runWorkflow},
        {u"workflow"_s, u"resume"_s,
         u"--inventory FILE --confirm NAME [--id ID] [--reason TEXT] [--despite-evidence] "
         "[--idle-gap S] [--failure-watch S] [--auto-rollback] [--json] "_s +
             inventoryFlags,
         u"run an unfinished, failed or cancelled workflow again from the step that did not end "
         "well, guarded as a new run"_s,
         &runWorkflow},
        {u"workflow"_s, u"abandon"_s, u"--inventory FILE [--id ID] [--json] [--data-dir DIR]"_s,
         u"mark an unfinished workflow ended, running nothing more"_s, &runWorkflow},
        {u"workflow"_s, u"list"_s, u"[--json] [--data-dir DIR]"_s,
         u"the workflows of the data dir, newest first, and where unfinished ones stopped"_s,
         &runWorkflow},
        {u"lock"_s, u"status"_s, u"--inventory FILE --cluster NAME [--json] "_s + inventoryFlags,
         u"who holds a cluster's workflow lock, since when, stale or not (exit 1 held)"_s,
         &runLock},
        {u"lock"_s, u"break"_s,
         u"--inventory FILE --cluster NAME --confirm NAME "_s + inventoryFlags,
         u"remove the lock whoever holds it, after an audit entry naming the holder"_s, &runLock},
        {u"secret"_s, u"set"_s, u"KEY [--json]"_s,
         u"store a secret in the keychain, read from stdin (never echoed)"_s, &runSecret},
        {u"secret"_s, u"delete"_s, u"KEY [--json]"_s, u"remove a secret from the keychain"_s,
         &runSecret},
        {u"secret"_s, u"check"_s, u"KEY [--json]"_s,
         u"say whether a secret is stored (never its value)"_s, &runSecret},
    };
    return table;
}

QString usageText()
{
    QString text = u"usage: opsdeck-cli <command> [options]\n\ncommands:\n"_s;
    for (const CliCommand &command : commandTable()) {
        const QString head =
            command.action.isEmpty() ? command.name : command.name + u' ' + command.action;
        text += u"  %1 %2\n      %3\n"_s.arg(head, command.synopsis, command.purpose);
    }
    text += u"\nEvery command takes --help; --version prints the version. Exit codes: 0 ok, 1 "
            "unhealthy or failed,\n2 bad input, 3 unknown or timed out, 4 host key refused.\n"_s;
    return text;
}

int dispatch(QStringList arguments)
{
    const QString name = arguments.value(1);
    QStringList actions;
    const CliCommand *found = nullptr;
    for (const CliCommand &command : commandTable()) {
        if (command.name != name)
            continue;
        if (command.action.isEmpty()) {
            found = &command;
            break;
        }
        actions << command.action;
        // The action is the first word after the command, before any flag.
        if (arguments.value(2) == command.action)
            found = &command;
    }
    const bool asksHelp = arguments.value(2) == u"--help" || arguments.value(2) == u"-h";
    if (!found) {
        if (actions.isEmpty()) {
            printError(u"unknown command '%1' (see opsdeck-cli --help)"_s.arg(name));
        } else if (asksHelp) {
            // "metrics --help": the usage lines of its actions.
            for (const CliCommand &command : commandTable())
                if (command.name == name)
                    printLine(u"opsdeck-cli %1 %2 %3\n    %4"_s.arg(
                        name, command.action, command.synopsis, command.purpose));
            return ExitOk;
        } else {
            printError(u"opsdeck-cli %1 needs an action first: %2 (got '%3')"_s.arg(
                name, actions.join(u", "_s), arguments.value(2)));
        }
        return ExitBadInput;
    }
    // The handler's parser sees "opsdeck-cli <command>" as its program name.
    arguments.removeAt(1);
    arguments[0] = u"opsdeck-cli "_s + name;
    const int code = found->run(arguments);
    // An audit entry written on another thread (an SSH session's) has its
    // anchor on its way to the keychain: kept before the process ends.
    history::AuditKey::settle();
    return code;
}

} // namespace opsdeck::cli
