#pragma once

#include "knob.h"
#include "processview.h"
#include "servescript.h"

#include <QString>
#include <QVector>

namespace opsdeck::knobs {

/// One knob compared between a serve script and the process running now
/// (`opsdeck-cli knobs drift --json`, keys `name`, `kind`, `script`,
/// `process`, `state`, `says`).
struct KnobDrift
{
    enum class State
    {
        InSync,
        Differs,       ///< both set, to different values
        OnlyInScript,  ///< the script sets it, the process runs without it
        OnlyInProcess, ///< the process runs with it, the script no longer sets it
        NotCompared    ///< the script's value runs a command (`$(...)`): not compared
    };
    QString name;
    Knob::Kind kind = Knob::Kind::Export;
    QString script;  ///< the script's value, `$VAR`s expanded as bash would
    QString process; ///< the process's value
    State state = State::InSync;

    bool drifted() const
    {
        return state == State::Differs || state == State::OnlyInScript ||
               state == State::OnlyInProcess;
    }
    /// `in-sync`, `differs`, `only-in-script`, `only-in-process`, `not-compared`.
    static QString stateName(State state);
    /// "script says 256, process runs with 512 — restart needed to take effect", "in sync".
    QString says() const;
};

/// The script's exported variables and launch flags against the process's
/// environment and arguments. A variable the script sets but does not
/// export is not compared (the server never sees it). `$VAR` and `${VAR}`
/// in the script's values are expanded with the script's own variables,
/// then the process's environment. Variables the process has that the script
/// does not set are reported for engine knob names only (SGLANG_*, VLLM_*):
/// the rest of an environment is inherited. With the environment unread,
/// only flags are compared. Pure; any thread.
QVector<KnobDrift> knobDrift(const ServeScript &script, const ProcessView &process);

} // namespace opsdeck::knobs
