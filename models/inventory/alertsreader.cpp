#include "alertsreader.h"

#include <yaml-cpp/yaml.h>

using namespace Qt::StringLiterals;

namespace opsdeck::inventory::detail {

namespace {

QStringList settingsKeys()
{
    return {u"e2e_interval_s"_s, u"e2e_timeout_s"_s, u"rules"_s};
}

QStringList ruleKeys()
{
    return {u"kind"_s, u"service"_s, u"cluster"_s, u"for_s"_s};
}

QStringList kindNames()
{
    return {alertKindName(AlertKind::SchedulerStuck), alertKindName(AlertKind::E2eFailing),
            alertKindName(AlertKind::FailuresRising)};
}

constexpr int maxHoldS = 86400;

} // namespace

AlertsReader::AlertsReader(InventoryDiagnostics &diagnostics) : m_diagnostics(diagnostics) {}

AlertSettings AlertsReader::read(const YAML::Node &node)
{
    AlertSettings settings;
    const QString path = u"alerts"_s;
    if (!node.IsDefined() || node.IsNull())
        return settings;
    m_diagnostics.remember(path, positionOf(node.Mark()));
    if (!YamlMapping::expectMapping(m_diagnostics, node, path))
        return settings;
    YamlMapping fields(m_diagnostics, node, path, settingsKeys());
    settings.e2eIntervalS = fields.integer(u"e2e_interval_s"_s, 0, maxHoldS).value_or(30);
    settings.e2eTimeoutS = fields.integer(u"e2e_timeout_s"_s, 1, 300).value_or(10);
    const std::optional<YAML::Node> list = fields.sequence(u"rules"_s);
    if (!list)
        return settings; // absent: the default rules stay
    settings.rules.clear();
    int index = 0;
    for (const YAML::Node &item : *list) {
        const QString itemPath = u"alerts.rules[%1]"_s.arg(index++);
        // yaml-cpp marks an empty entry at the next token, a line too far; the list is closer.
        m_diagnostics.remember(itemPath, positionOf(item.IsNull() ? list->Mark() : item.Mark()));
        if (!YamlMapping::expectMapping(m_diagnostics, item, itemPath)) {
            settings.rules.append(AlertRule{}); // indexes keep matching `rules[i]` paths
            continue;
        }
        YamlMapping ruleFields(m_diagnostics, item, itemPath, ruleKeys());
        settings.rules.append(readRule(ruleFields));
    }
    return settings;
}

AlertRule AlertsReader::readRule(YamlMapping &fields)
{
    AlertRule rule;
    const std::optional<QString> kindText = fields.text(u"kind"_s, Need::Required);
    std::optional<AlertKind> kind;
    if (kindText) {
        kind = alertKindFromName(*kindText);
        if (!kind)
            fields.error(u"kind"_s, u"unknown alert kind '%1' (expected %2)"_s.arg(
                                        *kindText, alternatives(kindNames())));
    }
    rule.kind = kind.value_or(AlertKind::SchedulerStuck);
    rule.forS = AlertRule::defaultForS(rule.kind);
    rule.service = fields.text(u"service"_s).value_or(QString());
    rule.cluster = fields.text(u"cluster"_s).value_or(QString());
    if (!kind)
        return rule; // the other fields' fit depends on the kind
    const QString name = alertKindName(*kind);
    // A target of the wrong sort would silently watch nothing.
    if (*kind == AlertKind::SchedulerStuck && fields.has(u"cluster"_s))
        fields.error(u"cluster"_s,
                     u"%1 watches a decode service: write 'service', not 'cluster'"_s.arg(name));
    if (*kind != AlertKind::SchedulerStuck && fields.has(u"service"_s))
        fields.error(u"service"_s,
                     u"%1 watches a cluster: write 'cluster', not 'service'"_s.arg(name));
    if (*kind == AlertKind::E2eFailing) {
        if (fields.has(u"for_s"_s))
            fields.error(
                u"for_s"_s,
                u"e2e_failing fires on its end-to-end probes' outcomes; it takes no for_s"_s);
    } else {
        rule.forS = fields.integer(u"for_s"_s, 1, maxHoldS).value_or(rule.forS);
    }
    return rule;
}

} // namespace opsdeck::inventory::detail
