#pragma once

#include "knob.h"

#include <QString>

namespace opsdeck::knobs {

/// One knob that differs between two versions of a serve script
/// (`opsdeck-cli knobs diff --json`: keys `name`, `kind`, `before`, `after`,
/// `change`).
struct KnobChange
{
    enum class Change
    {
        Added,
        Removed,
        Changed
    };
    QString name;
    Knob::Kind kind = Knob::Kind::Export; ///< as the newer version sets it (the older when removed)
    QString before;                       ///< the value before; empty when added
    QString after;                        ///< the value after; empty when removed
    Change change = Change::Changed;

    /// `added`, `removed`, `changed`.
    static QString changeName(Change change);
    /// One line: `+ export SGLANG_SM120_MMA_TARGET_CTAS=512`,
    /// `~ --max-running-requests 64 → 96`, `- SGLANG_X`.
    QString text() const;
};

} // namespace opsdeck::knobs
