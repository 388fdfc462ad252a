#include "audittablemodel.h"

#include "visibletext.h"

#include <QSet>
#include <algorithm>

using namespace Qt::StringLiterals;

namespace opsdeck::history {

AuditTableModel::AuditTableModel(QObject *parent) : QAbstractTableModel(parent) {}

void AuditTableModel::setEntries(QVector<AuditEntry> entries)
{
    m_all = std::move(entries);
    refilter();
}

void AuditTableModel::setTextFilter(const QString &text)
{
    m_text = text.trimmed();
    refilter();
}

void AuditTableModel::setKindFilter(const QString &kind)
{
    m_kind = kind;
    refilter();
}

void AuditTableModel::setSince(const std::optional<QDateTime> &since)
{
    m_since = since;
    refilter();
}

QStringList AuditTableModel::kinds() const
{
    QSet<QString> kinds;
    for (const AuditEntry &entry : m_all)
        kinds.insert(entry.kind);
    QStringList sorted(kinds.begin(), kinds.end());
    sorted.sort();
    return sorted;
}

QVector<AuditEntry> AuditTableModel::shown() const
{
    QVector<AuditEntry> entries;
    entries.reserve(m_rows.size());
    for (auto row = m_rows.crbegin(); row != m_rows.crend(); ++row)
        entries.append(m_all.at(*row));
    return entries;
}

bool AuditTableModel::matches(const AuditEntry &entry) const
{
    if (!m_kind.isEmpty() && entry.kind != m_kind)
        return false;
    if (m_since && entry.time < *m_since)
        return false;
    if (m_text.isEmpty())
        return true;
    for (const QString &field : {entry.user, entry.kind, entry.host, entry.action, entry.workflow,
                                 entry.detail, entry.program})
        if (field.contains(m_text, Qt::CaseInsensitive))
            return true;
    return false;
}

void AuditTableModel::refilter()
{
    beginResetModel();
    m_rows.clear();
    // Newest first: the last thing done is what a person looks for.
    for (int i = static_cast<int>(m_all.size()) - 1; i >= 0; --i)
        if (matches(m_all.at(i)))
            m_rows.append(i);
    endResetModel();
}

int AuditTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int AuditTableModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant AuditTableModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= m_rows.size())
        return {};
    const AuditEntry &e = entry(index.row());
    if (role == Qt::ToolTipRole)
        return logging::visibleText(e.detail);
    if (role != Qt::DisplayRole)
        return {};
    switch (index.column()) {
    case Time:
        return e.time.toLocalTime().toString(u"yyyy-MM-dd HH:mm:ss"_s);
    case User:
        return e.user;
    case Kind:
        return e.kind;
    case Host:
        return e.host;
    case Action:
        return e.action;
    case Workflow:
        return e.workflow;
    case Detail:
        // Written by other programs too: control characters are shown, never obeyed.
        return logging::visibleText(e.detail);
    default:
        return {};
    }
}

QVariant AuditTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    static const QStringList names{u"Time"_s,   u"User"_s,     u"Kind"_s,  u"Host"_s,
                                   u"Action"_s, u"Workflow"_s, u"Detail"_s};
    return names.value(section);
}

} // namespace opsdeck::history
