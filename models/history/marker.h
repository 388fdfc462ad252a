#pragma once

#include <QString>

namespace opsdeck::history {

/// A point on the time axis where something was done (a row of `markers`).
/// Later issues write them (verification, diagnosis, restart, knob, note...);
/// every time chart draws them.
struct Marker
{
    qint64 id = 0;     ///< assigned by the store; 0 before it is added
    qint64 timeMs = 0; ///< ms since the Unix epoch
    QString kind;      ///< "verification", "diagnosis", "restart", "knob", "note", ...
    QString text;      ///< one line for the chart's label
    QString link;      ///< what it refers to (an audit entry, a report folder); may be empty
    QString service;   ///< the service it concerns; empty for the whole cluster
};

} // namespace opsdeck::history
