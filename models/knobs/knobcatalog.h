#pragma once

#include <QHash>
#include <QString>
#include <QStringList>
#include <optional>

namespace opsdeck::knobs {

/// What OpsDeck knows about a knob: from `resources/knobs/catalog.json`
/// (compiled in), whose `about` names its sources. Unknown knobs have no
/// entry and are read and edited all the same.
struct KnobInfo
{
    QString name;
    QString meaning;
    QString defaultValue; ///< as the engine's docs give it (may be a rule, "derived from …")
    QString unit;         ///< "s", "requests", "port"; empty when it has none
    QStringList sides;    ///< which services read it: prefill, decode, router

    /// One paragraph for a tooltip or the edit dialog.
    QString help() const;
};

/// The catalog of known knobs. Thread: any (read-only after builtIn()).
class KnobCatalog
{
public:
    /// The compiled-in catalog, read once.
    static const KnobCatalog &builtIn();
    /// Parses a catalog document; `error` names what is wrong (the built-in
    /// one is checked by a test).
    static std::optional<KnobCatalog> fromJson(const QByteArray &json, QString *error);

    std::optional<KnobInfo> info(const QString &name) const;
    int size() const { return int(m_knobs.size()); }
    QStringList names() const { return m_order; }

private:
    QHash<QString, KnobInfo> m_knobs;
    QStringList m_order;
};

} // namespace opsdeck::knobs
