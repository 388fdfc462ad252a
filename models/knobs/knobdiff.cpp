#include "knobdiff.h"

#include <QHash>

namespace opsdeck::knobs {

namespace {

// The value as the server sees it: a shell variable nobody exports is not
// in its environment; a flag without a value is present all the same.
QString seen(const Knob &knob)
{
    if (knob.kind == Knob::Kind::Assignment && !knob.exported)
        return knob.value + QStringLiteral(" (not exported)");
    return knob.value;
}

} // namespace

QString KnobChange::changeName(Change change)
{
    switch (change) {
    case Change::Added:
        return QStringLiteral("added");
    case Change::Removed:
        return QStringLiteral("removed");
    case Change::Changed:
        return QStringLiteral("changed");
    }
    return {};
}

QString KnobChange::text() const
{
    const bool flag = kind == Knob::Kind::Flag;
    switch (change) {
    case Change::Added:
        if (flag)
            return QStringLiteral("+ %1 %2").arg(name, after).trimmed();
        return QStringLiteral("+ %1%2=%3")
            .arg(kind == Knob::Kind::Export ? QStringLiteral("export ") : QString(), name, after);
    case Change::Removed:
        return QStringLiteral("- %1").arg(name);
    case Change::Changed:
        return QStringLiteral("~ %1 %2 → %3").arg(name, before, after);
    }
    return {};
}

QVector<KnobChange> knobDiff(const ServeScript &before, const ServeScript &after)
{
    const QVector<Knob> older = before.knobs();
    const QVector<Knob> newer = after.knobs();
    QHash<QString, Knob> olderByName;
    for (const Knob &knob : older)
        olderByName.insert(knob.name, knob);
    QHash<QString, bool> inNewer;
    QVector<KnobChange> changes;
    for (const Knob &knob : newer) {
        inNewer.insert(knob.name, true);
        const auto was = olderByName.constFind(knob.name);
        if (was == olderByName.constEnd()) {
            changes.append({knob.name, knob.kind, {}, seen(knob), KnobChange::Change::Added});
        } else if (seen(*was) != seen(knob) || was->hasValue != knob.hasValue) {
            changes.append(
                {knob.name, knob.kind, seen(*was), seen(knob), KnobChange::Change::Changed});
        }
    }
    for (const Knob &knob : older)
        if (!inNewer.contains(knob.name))
            changes.append({knob.name, knob.kind, seen(knob), {}, KnobChange::Change::Removed});
    return changes;
}

} // namespace opsdeck::knobs
