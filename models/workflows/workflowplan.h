#pragma once

#include "knobfiles.h"
#include "workflowkind.h"
#include "workflowstep.h"

#include <QJsonObject>
#include <QString>
#include <QStringList>
#include <QVector>
#include <optional>

namespace opsdeck::workflows {

/// A workflow as planned: what it is for, its tree of steps (numbered), the
/// warnings and the evidence the plan shows, and what the operator must type
/// to run it. Built by RunbookPlanner, shown whole before anything runs, then
/// run by WorkflowRunner. Plain data.
struct WorkflowPlan
{
    WorkflowKind kind = WorkflowKind::Restart;
    QString inventoryPath; ///< the inventory file it was planned from (absolute)
    QString cluster;
    QString service; ///< the service given with --service ("" for a cluster-wide workflow)
    QString knob;    ///< revert-knob / restore-knob: KEY or KEY=VALUE as given
    WorkflowStep root;
    /// Said before anything runs, most serious first ("restarting only decode
    /// of a PD pair ...").
    QStringList warnings;
    /// Why the plan cannot run as asked (a guard that planning already knows
    /// refuses, e.g. one side of a nixl pair); empty when it can.
    QString refusal;
    /// What the operator must type to confirm: the service's name when
    /// `service` is given, else the cluster's.
    QString confirmationTarget() const { return service.isEmpty() ? cluster : service; }
    /// A production service or cluster among the targets: a reason is needed too.
    bool production = false;
    /// The evidence the plan shows (Evidence::json(), EvidenceGuard::apply()).
    QJsonObject evidence;
    QStringList evidenceLines; ///< the same, one line each, for the text
    /// Set when the evidence points at another hop than the one the plan acts
    /// on: running then needs Confirmation::despiteEvidence.
    QString evidenceWarning;
    /// The workflow the evidence points at instead, as a command ("" when none).
    QString offer;
    /// The same offer as data: its kind, and the service for a restart.
    std::optional<WorkflowKind> offerKind;
    QString offerService;
    /// revert-knob / restore-knob: the edit of each serve script, planned
    /// (bytes and hash at preview time) before anything runs; step `n` applies it.
    struct KnobEdit
    {
        int n = 0;
        QString service;
        knobs::KnobFiles::Plan plan;
    };
    QVector<KnobEdit> knobEdits;
    /// Per service acted on (its name): its host (name, kind, address, port,
    /// user) and what names its process and files (serve_script, pid_file,
    /// start, stop, status, url), as planned. A resume refuses when they
    /// changed: the steps' commands do not show what the stop checks.
    QJsonObject targets;

    /// Numbers the leaves 1..N depth first; returns N.
    int number();
    /// The leaves in order (their `n` is 1..N after number()).
    QVector<const WorkflowStep *> leaves() const;
    /// The leaf numbered `n`, or nullptr.
    const WorkflowStep *leaf(int n) const;
    /// One numbered line per leaf (`3. stop decode on gpu-1: kill -TERM ...`),
    /// under a header naming the workflow and its target, after the warnings.
    QString text() const;
    /// `{"kind","cluster","steps":[{"n","title","host","commands":[...],
    /// "deadline_s","rollback"}],"evidence":{...},"warnings":[...]}` (the
    /// CLI's contract), plus "service", "refusal", "confirm" and per step
    /// "service", "action", "parallel" (the title of its parallel group) and,
    /// on the failure watch, "watch_s"; "targets" (see `targets`).
    QJsonObject json() const;
};

/// A leaf's action as a word for JSON and the journal ("stop", "wait-exited"...).
QString actionName(WorkflowStep::Action action);

} // namespace opsdeck::workflows
