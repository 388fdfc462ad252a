#pragma once

#include "auditentry.h"
#include "changedsince.h"
#include "inventory.h"
#include "knobfiles.h"
#include "knobtablemodel.h"
#include "marker.h"

#include <QHash>
#include <QObject>
#include <functional>
#include <memory>

namespace opsdeck::remote {
class RemoteFiles;
class Transport;
} // namespace opsdeck::remote

namespace opsdeck::knobs {

/// What the Knobs tab shows and does for one inventory: the selected
/// service's serve script (KnobTableModel), its drift against the running
/// process, its backups, "what changed since" on its host; edits, comment-outs
/// and restores planned and applied through KnobFiles. The widgets only view.
///
/// Guards: an inventory that is not `armed: true` plans (previews) but never
/// applies; a service tagged production needs its name typed
/// (confirmationNeeded()); every apply writes its audit entry first (the
/// `audit` function, on the auditor's thread) and its `knob` marker after.
/// Nothing restarts: the table says which knobs need a restart to take effect.
/// Thread: GUI; every answer is a signal.
class ServiceKnobs : public QObject
{
    Q_OBJECT
public:
    /// Writes `entry`, then calls `done` on `context`'s thread; `afterwards`
    /// (when given) runs where the entry was written, once it is.
    using AuditFunction = std::function<void(
        const history::AuditEntry &entry, QObject *context,
        std::function<void(bool ok, const QString &error)> done, std::function<void()> afterwards)>;
    /// Adds a history marker; called by `afterwards` (not on the GUI thread).
    using MarkFunction = std::function<void(const history::Marker &marker)>;

    explicit ServiceKnobs(QObject *parent = nullptr);
    ~ServiceKnobs() override;

    /// A newly opened inventory; `transportOf` gives each host's transport
    /// (valid until the next setInventory()).
    void setInventory(const inventory::Inventory &inventory,
                      std::function<remote::Transport *(const QString &host)> transportOf,
                      AuditFunction audit, MarkFunction mark);

    KnobTableModel *model() { return &m_model; }
    /// Services with a serve script, in inventory order.
    QStringList services() const;
    bool armed() const { return m_inventory.armed; }
    QString inventoryPath() const { return m_inventory.path; }
    const inventory::Service *selected() const;
    /// The name to type before an apply (the service tagged production); empty: none.
    QString confirmationNeeded() const;
    const QVector<KnobFiles::Backup> &backups() const { return m_backups; }

    /// Reads the service's script, then its process and its backups.
    void select(const QString &service);
    void refresh() { select(m_service); }
    void planEdit(const ScriptEdit &edit);
    void planRestore(const QString &backupPath);
    /// Applies `plan` when armed and `typedName` is the confirmation needed.
    void apply(const KnobFiles::Plan &plan, const QString &typedName);
    /// Files changed on the selected service's host since `time`
    /// (ChangedSince::dateSpec forms).
    void changedSince(const QString &time);

    /// The KnobFiles and the files of `host` (made on first use over its
    /// transport); nullptr when it has no transport. Valid until the next
    /// setInventory(). Workflows edit serve scripts through the same ones.
    KnobFiles *filesOf(const QString &host);
    remote::RemoteFiles *remoteFilesOf(const QString &host);

Q_SIGNALS:
    /// setInventory() was called: the services may have changed.
    void inventoryChanged();
    void loaded(const QString &service, const QString &scriptPath);
    void driftRead(int drifted, const QString &problem);
    void backupsChanged();
    void planned(const opsdeck::knobs::KnobFiles::Plan &plan);
    void applied(const opsdeck::knobs::KnobFiles::Applied &result);
    void changedSinceRead(const opsdeck::knobs::ChangedSince &changed);
    /// Why something could not be done; names the host, the file or the guard.
    void problem(const QString &text);

private:
    void readDrift(const ServeScript &script);

    inventory::Inventory m_inventory;
    std::function<remote::Transport *(const QString &)> m_transportOf;
    AuditFunction m_audit;
    MarkFunction m_mark;
    QString m_service;
    KnobTableModel m_model;
    QVector<KnobFiles::Backup> m_backups;
    quint64 m_generation = 0; ///< answers for an earlier selection are dropped
    struct HostFiles
    {
        std::unique_ptr<remote::RemoteFiles> files;
        std::unique_ptr<KnobFiles> knobs;
    };
    QHash<QString, std::shared_ptr<HostFiles>> m_hosts;
    QHash<quint64, std::function<void(const remote::CommandResult &)>> m_commands;
};

} // namespace opsdeck::knobs
