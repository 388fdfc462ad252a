#pragma once

#include <QMetaType>

namespace opsdeck::remote {

/// Which stream of a command a chunk of output (Transport::commandOutput)
/// came from. The two are separate pipes (local) or separate SSH data
/// streams (RFC 4254 §5.2, extended data type 1 for stderr): their bytes
/// are never mixed.
enum class OutputChannel
{
    StandardOutput,
    StandardError
};

} // namespace opsdeck::remote

Q_DECLARE_METATYPE(opsdeck::remote::OutputChannel)
