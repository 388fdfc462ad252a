#pragma once

#include "alert.h"

#include <QObject>
#include <QVector>

namespace opsdeck::alerts {

/// The active alerts, for the window's banner (and anything else that shows
/// them). Connect AlertEvaluator::alertRaised/alertCleared to raise()/clear()
/// (AlertThread::connectCenter does, queued), then show active() or
/// bannerText() whenever changed() is emitted.
///
/// Thread: lives in the thread that shows it (the GUI thread); not thread-safe.
class AlertCenter : public QObject
{
    Q_OBJECT
public:
    explicit AlertCenter(QObject *parent = nullptr);

    /// Active alerts, oldest raise first; one per Alert::key().
    const QVector<Alert> &active() const { return m_active; }
    bool isEmpty() const { return m_active.isEmpty(); }
    /// One line for a banner: the single alert's text, or "N alerts: text1 | text2 ...";
    /// empty when nothing is active.
    QString bannerText() const;

public Q_SLOTS:
    /// Adds `alert`, or replaces the active one with the same key.
    void raise(const opsdeck::alerts::Alert &alert);
    /// Removes the active alert with `alert`'s key (nothing when there is none).
    void clear(const opsdeck::alerts::Alert &alert);
    /// Forgets every alert (a new inventory was loaded).
    void clearAll();

Q_SIGNALS:
    /// active() changed.
    void changed();
    /// Re-emitted for listeners such as DesktopNotifier, after active() is updated.
    void alertRaised(const opsdeck::alerts::Alert &alert);
    void alertCleared(const opsdeck::alerts::Alert &alert);

private:
    QVector<Alert> m_active;
};

} // namespace opsdeck::alerts
