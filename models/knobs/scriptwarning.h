#pragma once

#include <QString>

namespace opsdeck::knobs {

/// Something in a serve script that makes bash read it otherwise than a
/// person would (a CRLF line ending, a knob set twice, a value after `exec`),
/// or a part OpsDeck does not follow. `line` is 1-based; 0 for the whole file.
struct ScriptWarning
{
    int line = 0;
    QString reason;
};

} // namespace opsdeck::knobs
