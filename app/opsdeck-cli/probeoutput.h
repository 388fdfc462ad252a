#pragma once

#include "probe.h"

#include <QJsonObject>
#include <QString>

namespace opsdeck::cli {

/// One probe as the JSON object `opsdeck-cli probe --json` prints per line.
/// Contract keys (issue 4): connection_reused (bool), local_port (int, 0: no
/// connection), connect_ms, ttfb_ms, total_ms (curl's time_connect,
/// time_starttransfer, time_total in ms), ttft_ms (ms to the first content
/// token of a stream; null when not streamed or none came), status (HTTP
/// status, 0: no answer), note (text for people). Extra keys: mode, kind,
/// namelookup_ms, tls_ms, bytes, stale_keep_alive, stale_idle_s, timed_out,
/// error (null when ok), started_at_ms (Unix ms).
QJsonObject probeJson(const probes::ProbeResult &result);

/// The column titles of the readable table.
QString probeTableHeader();
/// One readable line per probe, numbered from 1. Its note: `context` (what
/// was probed, e.g. "probed /health (...)"), then the result's own note — a
/// timed-out probe's as a lower bound ("> 6.0 s (timed out)") — and its error.
QString probeTableLine(int number, const probes::ProbeResult &result, const QString &context = {});

} // namespace opsdeck::cli
