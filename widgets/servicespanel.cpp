#include "servicespanel.h"

#include "servicecard.h"
#include "servicestatusmodel.h"

#include <QGridLayout>
#include <QLabel>
#include <QTimer>

using opsdeck::probes::ServiceStatusModel;

ServicesPanel::ServicesPanel(ServiceStatusModel *model, QWidget *parent)
    : QWidget(parent), m_model(model), m_grid(new QGridLayout(this)), m_placeholder(new QLabel)
{
    m_grid->setContentsMargins(0, 0, 0, 0);
    m_grid->setSpacing(8);
    m_placeholder->setText(QStringLiteral("No services to watch. Open an inventory (File → Open "
                                          "inventory…) or start the demo: opsdeck --demo"));
    m_placeholder->setAlignment(Qt::AlignCenter);
    m_placeholder->setMinimumHeight(70);
    m_placeholder->setFrameShape(QFrame::StyledPanel);
    m_grid->addWidget(m_placeholder, 0, 0, 1, 4);
    connect(m_model, &QAbstractItemModel::modelReset, this, &ServicesPanel::rebuild);
    connect(m_model, &QAbstractItemModel::dataChanged, this,
            [this](const QModelIndex &topLeft, const QModelIndex &bottomRight) {
                refreshRows(topLeft.row(), bottomRight.row());
            });
    auto *ageTimer = new QTimer(this);
    connect(ageTimer, &QTimer::timeout, this, [this] {
        for (ServiceCard *card : std::as_const(m_cards))
            card->refreshAge();
    });
    ageTimer->start(1000);
    rebuild();
}

void ServicesPanel::rebuild()
{
    qDeleteAll(m_cards);
    m_cards.clear();
    m_placeholder->setVisible(m_model->rowCount() == 0);
    // Four across fits a PD pair, its router and proxy on one row.
    constexpr int columns = 4;
    for (int row = 0; row < m_model->rowCount(); ++row) {
        auto *card = new ServiceCard(this);
        m_grid->addWidget(card, row / columns, row % columns);
        connect(card, &ServiceCard::restartRequested, this, &ServicesPanel::restartRequested);
        m_cards.append(card);
    }
    if (!m_cards.isEmpty())
        refreshRows(0, static_cast<int>(m_cards.size()) - 1);
}

void ServicesPanel::refreshRows(int first, int last)
{
    for (int row = first; row <= last && row < m_cards.size(); ++row)
        m_cards[row]->setStatus(m_model->status(row));
}
