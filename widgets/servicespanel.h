#pragma once

#include <QWidget>

class QGridLayout;
class QLabel;
class ServiceCard;

namespace opsdeck::probes {
class ServiceStatusModel;
}

/// Health of every service at a glance: one ServiceCard per row of the
/// ServiceStatusModel, refreshed when that row changes and once a second
/// for the "for N s" texts. A view only.
class ServicesPanel : public QWidget
{
    Q_OBJECT
public:
    explicit ServicesPanel(opsdeck::probes::ServiceStatusModel *model, QWidget *parent = nullptr);

    int cardCount() const { return static_cast<int>(m_cards.size()); }
    ServiceCard *card(int row) const { return m_cards.value(row); }

Q_SIGNALS:
    /// A card's Restart… was pressed.
    void restartRequested(const QString &service);

private:
    void rebuild();
    void refreshRows(int first, int last);

    opsdeck::probes::ServiceStatusModel *m_model;
    QGridLayout *m_grid;
    QLabel *m_placeholder; ///< shown while there is no service
    QList<ServiceCard *> m_cards;
};
