#pragma once

#include <QByteArray>
#include <QString>

namespace opsdeck::history {

/// One check's full result (a row of `checks`): a batch check or a staged
/// verification, kept whole as the JSON document the CLI prints
/// (probes::batchCheckToJson / verificationToJson), so every number is saved
/// and later readers need no schema change when a field is added.
struct CheckRecord
{
    qint64 id = 0;     ///< assigned by the store; 0 before it is added
    qint64 timeMs = 0; ///< when the check started, ms since the Unix epoch
    QString kind;      ///< "batch-check" or "verification"
    QString cluster;   ///< inventory cluster name
    QByteArray json;   ///< compact JSON object (UTF-8)
};

} // namespace opsdeck::history
