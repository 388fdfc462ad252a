#include "knobjson.h"

#include <QJsonObject>

using namespace Qt::StringLiterals;

namespace opsdeck::cli {

QJsonArray knobChangesJson(const QVector<knobs::KnobChange> &changes)
{
    QJsonArray array;
    for (const knobs::KnobChange &change : changes)
        array.append(QJsonObject{{u"name"_s, change.name},
                                 {u"kind"_s, knobs::Knob::kindName(change.kind)},
                                 {u"before"_s, change.before},
                                 {u"after"_s, change.after},
                                 {u"change"_s, knobs::KnobChange::changeName(change.change)}});
    return array;
}

} // namespace opsdeck::cli
