#pragma once

#include <QString>
#include <QStringList>
#include <QVector>

namespace opsdeck::workflows {

/// One node of a workflow's tree, declared as data before anything runs (the
/// shape of Qt Creator's Tasking: a sequence or a parallel group of children,
/// with an on-error policy; a leaf is one action on one host). Plain data.
struct WorkflowStep
{
    enum class Mode
    {
        Action,   ///< a leaf: `action` on `host`
        Sequence, ///< children one after the other
        Parallel  ///< children all at once; done when every one is
    };
    /// What a leaf does; WorkflowRunner carries it out, and `commands` says it
    /// in the exact words a person would type (or the requests it sends).
    enum class Action
    {
        None,
        CheckBootstrap, ///< the router's prefill bootstrap port = prefill's /server_info
        Stop,           ///< SIGTERM the service's verified process; SIGKILL past the deadline
        WaitExited,     ///< its port closed on its host (GPU memory is freed only then)
        Start,          ///< its start command, then its identity beside the pid file
        WaitHealthy,    ///< GET its health URL until 200
        WaitBootstrap,  ///< prefill healthy, with the expected bootstrap port in /server_info
        RouterReady,    ///< router /readiness 200 and /workers lists every worker healthy
        Verify,         ///< the staged verification of the cluster
        /// the engines' bootstrap and transfer failure counters read, then
        /// again `watchS` later: any rise fails the step
        WatchFailures,
        EditKnob, ///< a serve script's knob: hash check, verified backup, atomic write
        Marker,   ///< a history marker ("before" / "after" the change)
        /// removed from the router's workers (DELETE /workers/{url}), then
        /// its running requests (its /metrics) waited down to 0
        Drain,
        /// added back to the router once it answers (POST /workers: its url,
        /// its role, a prefill's bootstrap port from its /server_info)
        Register
    };
    enum class OnError
    {
        Stop,    ///< the workflow stops here; rollback is offered
        Continue ///< noted, and the next step runs (a group's: its other children)
    };

    Mode mode = Mode::Action;
    Action action = Action::None;
    OnError onError = OnError::Stop;
    /// Leaves, numbered from 1 in the order they are listed (depth first):
    /// the plan's line numbers, the journal's and the resume point.
    int n = 0;
    QString title;   ///< "stop decode on gpu-1"
    QString host;    ///< inventory host name the commands run on ("" for HTTP checks)
    QString service; ///< the service acted on or checked
    /// What runs, exactly: shell commands on `host`, or "GET URL" lines.
    QStringList commands;
    int deadlineS = 0;  ///< the step fails when not done within this, s
    int killAfterS = 0; ///< Stop: SIGKILL when SIGTERM has not ended it within this, s
    int watchS = 0;     ///< WatchFailures: how long the counters are watched, s
    QString rollback;   ///< what undoes it, in words ("" when nothing does)
    QString diff;       ///< EditKnob: the script's unified diff, shown under the step
    QVector<WorkflowStep> children;

    static WorkflowStep sequence(QString title, QVector<WorkflowStep> children)
    {
        WorkflowStep step;
        step.mode = Mode::Sequence;
        step.title = std::move(title);
        step.children = std::move(children);
        return step;
    }
    static WorkflowStep parallel(QString title, QVector<WorkflowStep> children)
    {
        WorkflowStep step = sequence(std::move(title), std::move(children));
        step.mode = Mode::Parallel;
        return step;
    }
};

} // namespace opsdeck::workflows
