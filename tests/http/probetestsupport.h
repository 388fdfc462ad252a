#pragma once

#include "probe.h"

#include <QString>
#include <chrono>

namespace opsdeck::test {

/// A GET probe of `baseUrl` + `path` (e.g. "/health") in `mode`, 10 s timeout.
probes::ProbeRequest getProbe(const QString &baseUrl, const QString &path,
                              probes::ConnectionMode mode);
/// A tiny chat probe (max_tokens `maxTokens`) of `baseUrl`/v1/chat/completions.
probes::ProbeRequest chatProbe(const QString &baseUrl, probes::ProbeKind kind,
                               probes::ConnectionMode mode, int maxTokens = 8);
/// Lets a kept-alive connection sit idle for `gap` (the idle gap of a Reused
/// probe is the thing under test, not a wait for a condition): Qt events are
/// processed meanwhile, bounded by `gap`.
void idleFor(std::chrono::milliseconds gap);

} // namespace opsdeck::test
