#include "knobtablemodel.h"

#include "knobcatalog.h"

namespace opsdeck::knobs {

void KnobTableModel::setScript(const ServeScript &script)
{
    beginResetModel();
    m_knobs = script.knobs();
    m_warnings.clear();
    for (const ScriptWarning &warning : script.warnings())
        m_warnings[warning.line].append(warning.reason);
    m_drift.clear();
    m_compared = false;
    m_why = QStringLiteral("reading the process…");
    endResetModel();
}

void KnobTableModel::setDrift(const QVector<KnobDrift> &drift, bool compared, const QString &why)
{
    m_drift.clear();
    for (const KnobDrift &item : drift)
        m_drift.insert(item.name, item);
    m_compared = compared;
    m_why = why;
    if (!m_knobs.isEmpty())
        Q_EMIT dataChanged(index(0, Drift), index(int(m_knobs.size()) - 1, Drift));
}

void KnobTableModel::clear()
{
    beginResetModel();
    m_knobs.clear();
    m_warnings.clear();
    m_drift.clear();
    endResetModel();
}

int KnobTableModel::driftCount() const
{
    int count = 0;
    for (const KnobDrift &item : m_drift)
        count += item.drifted() ? 1 : 0;
    return count;
}

int KnobTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_knobs.size());
}

int KnobTableModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant KnobTableModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= m_knobs.size())
        return {};
    const Knob &knob = m_knobs.at(index.row());
    const auto drift = m_drift.constFind(knob.name);
    if (role == NameRole)
        return knob.name;
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case Name:
            return knob.name;
        case Value:
            return knob.hasValue ? knob.value : QStringLiteral("(no value)");
        case Line:
            return knob.line;
        case Kind:
            return QString(Knob::kindName(knob.kind) +
                           (knob.kind == Knob::Kind::Assignment && !knob.exported
                                ? QStringLiteral(" (not exported)")
                                : QString()));
        case Drift:
            if (drift != m_drift.cend())
                return drift->says();
            return m_compared ? QStringLiteral("—") : m_why;
        default:
            return {};
        }
    }
    if (role == Qt::ToolTipRole) {
        QStringList parts;
        if (const std::optional<KnobInfo> info = KnobCatalog::builtIn().info(knob.name))
            parts.append(info->help());
        if (!knob.references.isEmpty())
            parts.append(QStringLiteral("Expands %1 (shown unexpanded).")
                             .arg(knob.references.join(QStringLiteral(", "))));
        for (const QString &warning : m_warnings.value(knob.line))
            parts.append(QStringLiteral("Warning: ") + warning);
        return parts.isEmpty() ? QVariant() : QVariant(parts.join(QStringLiteral("\n")));
    }
    if (role == DriftedRole)
        return drift != m_drift.cend() && drift->drifted();
    if (role == WarnedRole)
        return m_warnings.contains(knob.line);
    return {};
}

QVariant KnobTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Name:
        return QStringLiteral("Knob");
    case Value:
        return QStringLiteral("Value");
    case Line:
        return QStringLiteral("Line");
    case Kind:
        return QStringLiteral("Kind");
    case Drift:
        return QStringLiteral("Running process");
    default:
        return {};
    }
}

} // namespace opsdeck::knobs
