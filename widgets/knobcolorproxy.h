#pragma once

#include <QIdentityProxyModel>

/// Colours for the Knobs tab's table: a knob whose running process differs
/// from the script in red, a knob on a line with a warning in amber. The
/// model (models/knobs, no Qt Gui) only says which.
class KnobColorProxy : public QIdentityProxyModel
{
    Q_OBJECT
public:
    using QIdentityProxyModel::QIdentityProxyModel;
    QVariant data(const QModelIndex &index, int role) const override;
};
