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
    /// One path's probes in the stalled rounds, for the banner's table: one
    /// text per round, "3.0 ms" or "> 6.0 s (timed out)" (a bound), "—" when
    /// the path sent nothing that round, or what failed.
    struct EvidenceRow
    {
        QString path;  ///< ProbePath::name, "via proxy"
        QString entry; ///< its entry service, "proxy-0"
        QStringList fresh;
        QStringList reused;
    };

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
    /// The same numbers as a table: the implicated path first, then every other path.
    QVector<EvidenceRow> evidenceRows;
    /// Clock time (HH:mm:ss) of each stalled round's reused probe, the table's columns.
    QStringList roundTimes;
    /// The decode services' running and waiting requests (summed over decodes,
    /// from /v1/loads read just before each stalled round's probes), the
    /// largest seen in the stalled rounds; -1 when they could not be read.
    /// 0 and 0 is the incident's "the engines are idle".
    double decodeRunningMax = -1;
    double decodeWaitingMax = -1;
    /// What not to conclude: "The engines answer fresh requests at once: this is
    /// the connection layer at proxy-0; do not change engine knobs for it."
    QString caution;
    /// Services in front of the hop (proxies entered by shallower paths) whose
    /// *fresh* probes stalled too in the stalled rounds: they pool upstream
    /// connections (nginx, Envoy, HAProxy), so their clients see the stall even on
    /// a new connection, whenever the proxy picks a pooled one. Empty when every
    /// shallower path's fresh probes answered at once.
    QStringList poolingProxies;
    /// How long the stall really lasts, s: one more reused probe on the hop's
    /// path, sent after the diagnosis with a long deadline (ProbeRounds::
    /// measureStall); -1 when not measured. The round's probes time out at a
    /// few seconds, which is a lower bound, never the stall's length.
    double stallS = -1;
    /// When the long probe timed out too: its deadline, s (the stall lasts at
    /// least this long); -1 otherwise.
    double stallLowerBoundS = -1;
    /// "stall measured: 20.4 s on a kept connection", "stall lasts more than
    /// 300 s (the measuring probe timed out)"; empty when not measured.
    QString stallLengthText() const;

    /// `roleName(role)`: "proxy", "router", "decode", ...
    QString roleName() const { return inventory::roleName(role); }
    /// One line for a history marker or a banner title:
    /// "keep-alive stall at proxy-0 (proxy): reused connections stall, fresh ones answer";
    /// with pooling proxies in front it claims nothing a path contradicts: "keep-alive
    /// stall at router-0 (router): reused connections stall; fresh ones answer there,
    /// but through nginx-0, which pools upstream connections, new ones stall too".
    QString headline() const;
    /// A history marker's text: the headline, or once the stall was measured
    /// the short "keep-alive stall at proxy-0 (proxy) measured: 20.4 s on a kept
    /// connection" / "... lasts more than 300 s" (a chart label, read at a glance).
    QString markerText() const;
};

} // namespace opsdeck::probes
