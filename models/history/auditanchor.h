#pragma once

#include <QByteArray>
#include <QList>
#include <optional>

namespace opsdeck::history {

/// How far a keyed audit log's chain was last seen, kept in the secret store
/// beside its key (AuditKey: `audit/chain-anchor/<16 hex>`): the entry count
/// and that entry's keyed link (the HMAC that the next line's `prev` holds).
/// The head file beside the log catches an end cut off, but an older log put
/// back with its older head is valid on its own: only something outside the
/// data folder remembers that the log once went further. An append moves the
/// anchor forward while the log still holds it, and never over a log that
/// does not, so the evidence of a cut stays.
struct AuditAnchor
{
    qint64 entries = 0; ///< the log held at least this many entries
    QByteArray link;    ///< HMAC-SHA256 (hex) of line `entries`, as the next `prev`

    /// "ENTRIES LINK", as kept in the secret store.
    QByteArray text() const { return QByteArray::number(entries) + ' ' + link; }
    /// The anchor in `text`, or none when it is not one.
    static std::optional<AuditAnchor> parse(const QByteArray &text)
    {
        const QList<QByteArray> parts = text.trimmed().split(' ');
        bool ok = false;
        const qint64 entries = parts.value(0).toLongLong(&ok);
        if (parts.size() != 2 || !ok || entries < 1 || parts.at(1).size() != 64)
            return std::nullopt;
        return AuditAnchor{entries, parts.at(1)};
    }
};

} // namespace opsdeck::history
