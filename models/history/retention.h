#pragma once

#include <QtGlobal>

namespace opsdeck::history {

/// How long history is kept. Raw blocks whose newest sample is older than
/// `rawMs` are deleted, and 1-minute rollups older than `rollupMs`; markers
/// are kept (they are the record of what was done).
struct Retention
{
    qint64 rawMs = 24LL * 3600 * 1000;         ///< raw samples, ms (default 24 h)
    qint64 rollupMs = 30LL * 24 * 3600 * 1000; ///< 1-minute rollups, ms (default 30 days)
};

} // namespace opsdeck::history
