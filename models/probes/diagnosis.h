#pragma once

#include "inventory.h"

#include <QString>
#include <QVector>

namespace opsdeck::probes {

/// A connection-scoped stall placed on one hop by StallDiagnoser (issue 4,
/// "stall diagnosis"): reused keep-alive probes through that hop stalled for
/// the configured number of consecutive rounds while every path entering
/// deeper answered fresh and reused at once. Plain data, any thread.
struct Diagnosis
{
    QString hop; ///< the implicated service (inventory name), e.g. "proxy-0"
    inventory::Role role = inventory::Role::Proxy; ///< its role
    QString pathName;                              ///< the path that entered at it, "via proxy"
    int depth = 0;                                 ///< ProbePath::depth of that path
    QVector<int> rounds;                           ///< the rounds (1-based) that stalled
    qint64 firstStallMs = 0; ///< start of the first stalled reused probe, ms since the Unix epoch
    qint64 lastStallMs = 0;  ///< start of the last one, ms since the Unix epoch
    /// Plain words with numbers and times: the reused and fresh totals through
    /// the hop per stalled round (timeouts with their clock times), then each
    /// deeper path's reused and fresh totals in the same rounds.
    QString evidence;
    /// The decode services' running and waiting requests (summed over decodes,
    /// from /v1/loads read just before each stalled round's probes), the
    /// largest seen in the stalled rounds; -1 when they could not be read.
    /// 0 and 0 is the incident's "the engines are idle".
    double decodeRunningMax = -1;
    double decodeWaitingMax = -1;
    /// What not to conclude: "The engines answer fresh requests at once: this is
    /// the connection layer at proxy-0; do not change engine knobs for it."
    QString caution;

    /// `roleName(role)`: "proxy", "router", "decode", ...
    QString roleName() const { return inventory::roleName(role); }
    /// One line for a history marker or a banner title:
    /// "keep-alive stall at proxy-0 (proxy): reused connections stall, fresh ones answer".
    QString headline() const;
};

} // namespace opsdeck::probes
