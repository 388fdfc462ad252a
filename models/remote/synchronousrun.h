#pragma once

#include "transport.h"

namespace opsdeck::remote {

/// Runs `request` and waits for its result in a local event loop. For the
/// command line and tests only: the GUI thread never calls this (DESIGN.md,
/// threads). The request's own deadline bounds the wait.
CommandResult runAndWait(Transport &transport, const CommandRequest &request);

} // namespace opsdeck::remote
