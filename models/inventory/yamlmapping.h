#pragma once

#include "inventorydiagnostics.h"

#include <QHash>
#include <QString>
#include <QStringList>
#include <optional>
#include <yaml-cpp/yaml.h>

namespace opsdeck::inventory::detail {

enum class Need
{
    Optional,
    Required
};

/// "a, b or c": the expected values in a message.
QString alternatives(const QStringList &words);

/// The word of `known` at most two edits from `word` (case ignored), the
/// closest first; empty when none is that close.
QString nearest(const QString &word, const QStringList &known);
/// How a node looks, for "expected X, found Y": `'text'`, "a list", "a mapping", "nothing".
QString describe(const YAML::Node &node);

/// One YAML mapping of the inventory (the top level, a host, a service, a
/// cluster), read field by field. The constructor reports unknown and repeated
/// keys, so a typo never passes silently; each getter reports a wrong type or
/// value, remembers where the value sits, and returns nullopt when the field
/// is absent or wrong. A value of `~`/`null`/nothing counts as absent.
class YamlMapping
{
public:
    /// `path` is the dotted path of the mapping (`services[2]`; empty for the
    /// top level); `known` the keys it may have, in the order messages list them.
    YamlMapping(InventoryDiagnostics &diagnostics, const YAML::Node &node, QString path,
                const QStringList &known);

    /// Reports "expected a mapping" at the position remembered for `path` unless `node` is one.
    static bool expectMapping(InventoryDiagnostics &diagnostics, const YAML::Node &node,
                              const QString &path);

    QString path() const { return m_path; }
    QString path(const QString &key) const;
    bool has(const QString &key) const;

    std::optional<QString> text(const QString &key, Need need = Need::Optional);
    /// `true` or `false` only: `yes`/`on` are ambiguous for a safety switch.
    std::optional<bool> boolean(const QString &key);
    std::optional<int> integer(const QString &key, int min, int max);
    /// A duration (parseDurationS: `60s`, `10m`, `1h`, or seconds) in minS..maxS, s.
    std::optional<double> duration(const QString &key, double minS, double maxS);
    /// A list of non-empty strings; Required also means "not empty".
    std::optional<QStringList> textList(const QString &key, Need need = Need::Optional);
    /// A list node, for the hosts/services/clusters entries; nullopt when absent or not a list.
    std::optional<YAML::Node> sequence(const QString &key);
    /// A nested mapping node (a service's `http:`); nullopt when absent or not a mapping.
    std::optional<YAML::Node> mapping(const QString &key);

    /// An error about the value of `key` (at the value, or at the key when the value is empty).
    void error(const QString &key, const QString &message);
    void missing(const QString &key, const QString &why = {});

private:
    struct Entry
    {
        YAML::Node key;
        YAML::Node value;
    };

    const Entry *present(const QString &key);
    Position valuePosition(const Entry &entry) const;

    InventoryDiagnostics &m_diagnostics;
    QString m_path;
    Position m_position;
    QHash<QString, Entry> m_entries;
};

} // namespace opsdeck::inventory::detail
