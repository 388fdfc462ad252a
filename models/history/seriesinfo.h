#pragma once

#include <QString>

namespace opsdeck::history {

/// A series the store holds (a row of the `series` table).
struct SeriesInfo
{
    qint64 id = 0;
    QString service; ///< inventory service name
    QString key;     ///< series key, see SeriesKey
    QString unit;    ///< as shown on an axis ("requests", "ms", "tokens/s", ...)
};

} // namespace opsdeck::history
