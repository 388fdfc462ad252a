#pragma once

#include "inventory.h"

#include <QHash>
#include <QSet>
#include <QString>
#include <QVector>

namespace YAML {
struct Mark;
}

namespace opsdeck::inventory::detail {

/// A place in the inventory file, 1-based; 0 when unknown or the file as a whole.
struct Position
{
    int line = 0;
    int column = 0;
};

/// yaml-cpp marks are 0-based and -1 when unset.
Position positionOf(const YAML::Mark &mark);

/// Errors found while loading one inventory, and where each field's value sits,
/// so that checks running after the read (names, references) still point at the
/// right line. One per load; never shared between threads.
class InventoryDiagnostics
{
public:
    explicit InventoryDiagnostics(QString file);

    /// Records an error; `field` also counts as failed().
    void add(Position where, const QString &field, const QString &message);
    /// Same, at the place remember()ed for `field`.
    void add(const QString &field, const QString &message);

    void remember(const QString &field, Position where);
    Position position(const QString &field) const;
    /// True when `field` already has an error: later checks skip it, so that one
    /// mistake gives one message, not a cascade.
    bool failed(const QString &field) const;

    bool isEmpty() const { return m_errors.isEmpty(); }
    /// Every error in file order; errors at the same place keep the order found.
    QVector<ValidationError> sorted() const;

private:
    QString m_file;
    QVector<ValidationError> m_errors;
    QHash<QString, Position> m_positions;
    QSet<QString> m_failed;
};

} // namespace opsdeck::inventory::detail
