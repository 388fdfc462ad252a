#pragma once

#include <QStringList>

namespace opsdeck::cli {

/// `opsdeck-cli probe URL [--fresh|--reused] [--idle-gap S] [--count N]
/// [--stream] [--chat] [--json] [--timeout-ms MS] [--cacert FILE] [--insecure]
/// [--proxy URL] [--api-key-secret KEY] [--max-tokens N] [--model NAME]`
/// (issue 4): probes one URL with the probe engine (models/probes, libcurl)
/// and prints one line per probe (with --json one JSON object per line, keys
/// in probeoutput.h).
///
/// A URL ending in /chat/completions, or --chat/--stream, sends a tiny chat
/// completion {"model", "messages":[{"role":"user","content":"ping"}],
/// "max_tokens": 8}, the model being the first id of GET .../v1/models of the
/// same origin unless --model; anything else is a GET. --fresh (default): a new
/// connection per probe. --reused: the first probe opens the keep-alive
/// connection (a warm-up), each next one goes on it after --idle-gap seconds
/// (default 10). --count: probes in all, 1..10000 (default 1). --proxy only
/// from the command line: http_proxy & co. in the environment are ignored.
/// The API key is read from the secret store (`opsdeck-cli secret set KEY`)
/// and never printed.
///
/// Exit 0 when every probe answered 2xx (a stale keep-alive replaced is fine
/// for the service), 1 when any failed, 2 bad input, 3 when any timed out or
/// the run was interrupted (SIGINT/SIGTERM cancel the probe in flight).
int runProbe(const QStringList &arguments);

} // namespace opsdeck::cli
