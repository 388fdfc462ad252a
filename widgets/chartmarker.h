#pragma once

#include <QString>
#include <QtGlobal>

/// One thing done at a point in time, drawn on every time chart as a
/// labelled vertical line (a knob reverted, a restart, a probe run).
/// Plain data; the history's markers table (time, kind, text, link) is
/// where panels read them from.
struct ChartMarker
{
    qint64 timeMs = 0; ///< when it happened, ms since the Unix epoch (UTC)
    QString kind;      ///< short category shown before the text, e.g. "restart"; may be empty
    QString text;      ///< what happened, e.g. "decode restarted"; elided on the chart when long
};
