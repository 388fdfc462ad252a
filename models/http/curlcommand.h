#pragma once

#include "probe.h"

#include <QString>

namespace opsdeck::probes {

/// "Copy as curl" (issue 4): one shell command line (bash/sh) that sends the
/// probe `request` again with /usr/bin/curl and prints, per transfer, one line
/// of the same timings with curl's -w variables (seconds, as curl prints them):
///   time_namelookup=… time_connect=… time_appconnect=… time_starttransfer=…
///   time_total=… num_connects=… local_port=… http_code=…
///
/// Every argument is single-quoted, so a URL or a body with quotes, `$` or
/// spaces reaches curl unchanged. The API key never appears: when the request
/// has one, the header reads it from the environment at run time,
/// -H "Authorization: Bearer $OPSDECK_API_KEY" (the only double-quoted word).
/// Proxy as in the request (`--proxy URL`, else `--noproxy '*'` so an
/// http_proxy in the environment is ignored, as the engine ignores it); TLS
/// with `--cacert FILE` or `-k`; `--http1.1`; `--max-time` from timeoutMs;
/// chat bodies as `--data-raw` (POST implied) with Content-Type: application/json.
///
/// Fresh mode: one transfer. Reused mode: curl has no idle gap between the
/// transfers of one invocation, so the URL is given twice in one command
/// (each with `-o /dev/null`): the second transfer reuses the connection the
/// first opened, and its line shows num_connects=0 and the same local_port —
/// the reused latency without the idle gap. TTFT of a stream has no -w
/// variable; time_starttransfer is the first byte.
QString curlCommandFor(const ProbeRequest &request);

} // namespace opsdeck::probes
