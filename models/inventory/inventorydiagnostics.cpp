#include "inventorydiagnostics.h"

#include "visibletext.h"

#include <algorithm>
#include <tuple>
#include <yaml-cpp/mark.h>

using namespace Qt::StringLiterals;

namespace opsdeck::inventory::detail {

Position positionOf(const YAML::Mark &mark)
{
    if (mark.is_null() || mark.line < 0)
        return {};
    return {mark.line + 1, mark.column + 1};
}

InventoryDiagnostics::InventoryDiagnostics(QString file) : m_file(std::move(file)) {}

void InventoryDiagnostics::add(Position where, const QString &field, const QString &message)
{
    // A key or value quoted may hold anything YAML allows (a NUL, an escape
    // sequence, a bidi override): shown, never cut or obeyed by the terminal.
    m_errors.append({m_file, where.line, where.column, logging::visibleText(field),
                     logging::visibleText(message)});
    if (!field.isEmpty())
        m_failed.insert(field);
}

void InventoryDiagnostics::add(const QString &field, const QString &message)
{
    add(position(field), field, message);
}

void InventoryDiagnostics::remember(const QString &field, Position where)
{
    m_positions.insert(field, where);
}

Position InventoryDiagnostics::position(const QString &field) const
{
    return m_positions.value(field);
}

bool InventoryDiagnostics::failed(const QString &field) const
{
    return m_failed.contains(field);
}

QVector<ValidationError> InventoryDiagnostics::sorted() const
{
    // Checks run in passes (structure, then names and references), so the raw
    // order is by pass; readers expect the order of the file.
    QVector<ValidationError> errors = m_errors;
    std::stable_sort(errors.begin(), errors.end(), [](const auto &a, const auto &b) {
        return std::tie(a.line, a.column) < std::tie(b.line, b.column);
    });
    return errors;
}

} // namespace opsdeck::inventory::detail
