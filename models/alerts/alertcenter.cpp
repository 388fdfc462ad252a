#include "alertcenter.h"

using namespace Qt::StringLiterals;

namespace opsdeck::alerts {

AlertCenter::AlertCenter(QObject *parent) : QObject(parent)
{
    qRegisterMetaType<Alert>();
}

QString AlertCenter::bannerText() const
{
    if (m_active.size() == 1)
        return m_active.first().text;
    QStringList texts;
    for (const Alert &alert : m_active)
        texts.append(alert.text);
    return texts.isEmpty() ? QString()
                           : u"%1 alerts: "_s.arg(m_active.size()) + texts.join(u" | "_s);
}

void AlertCenter::raise(const Alert &alert)
{
    bool replaced = false;
    for (Alert &active : m_active) {
        if (active.key() == alert.key()) {
            active = alert;
            replaced = true;
        }
    }
    if (!replaced)
        m_active.append(alert);
    Q_EMIT changed();
    Q_EMIT alertRaised(alert);
}

void AlertCenter::clear(const Alert &alert)
{
    const qsizetype removed =
        m_active.removeIf([&](const Alert &a) { return a.key() == alert.key(); });
    if (removed == 0)
        return;
    Q_EMIT changed();
    Q_EMIT alertCleared(alert);
}

void AlertCenter::clearAll()
{
    if (m_active.isEmpty())
        return;
    m_active.clear();
    Q_EMIT changed();
}

} // namespace opsdeck::alerts
