#pragma once

#include <QStringList>

namespace opsdeck::cli {

/// `opsdeck-cli workflow plan KIND --inventory FILE --cluster NAME [--service
/// NAME] [--knob KEY[=VALUE]] [--backup PATH] [--json]`: the numbered plan
/// (RunbookPlanner), with its warnings and refusal; KIND is restart,
/// co-restart, restart-proxy, revert-knob or restore-knob. `--json`:
/// `{"kind","cluster","steps":[{"n","title","host","commands":[...],
/// "deadline_s","rollback"}],"evidence":{...},"warnings":[...]}` (plus the
/// keys WorkflowPlan::json() adds). Exit 0, 2 bad input.
///
/// `workflow run ... --confirm NAME [--reason TEXT] [--despite-evidence]
/// [--json]`: the guards (WorkflowGuard, the typed confirmation being
/// `--confirm`), then the plan run headless with each step's start and end
/// printed as it happens. Exit 0 only when every step and the verification
/// passed, 1 when a step failed, 2 bad input or a refused guard, 3 cancelled
/// (SIGINT, SIGTERM, SIGHUP: the running step is cancelled and journaled).
///
/// `workflow resume|abandon --inventory FILE [--id ID]`: the unfinished
/// workflow (the newest, or ID) from its journal: resume runs it again from
/// the step that did not end well (the inventory must still be armed and
/// give the same plan); abandon marks it ended. Both audited.
/// `workflow list [--json]`: the journals of the data dir, newest first.
/// Every action takes `--data-dir DIR`.
int runWorkflow(const QStringList &arguments);

} // namespace opsdeck::cli
