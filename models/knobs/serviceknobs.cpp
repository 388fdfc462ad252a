#include "serviceknobs.h"

#include "knobdrift.h"
#include "localfiles.h"
#include "processview.h"
#include "sftpfiles.h"
#include "sshtransport.h"
#include "transport.h"

#include <QDateTime>

namespace opsdeck::knobs {

ServiceKnobs::ServiceKnobs(QObject *parent) : QObject(parent) {}

ServiceKnobs::~ServiceKnobs() = default;

void ServiceKnobs::setInventory(const inventory::Inventory &inventory,
                                std::function<remote::Transport *(const QString &)> transportOf,
                                AuditFunction audit, MarkFunction mark)
{
    m_inventory = inventory;
    m_transportOf = std::move(transportOf);
    m_audit = std::move(audit);
    m_mark = std::move(mark);
    m_hosts.clear();
    m_commands.clear();
    m_service.clear();
    m_backups.clear();
    ++m_generation;
    m_model.clear();
    Q_EMIT inventoryChanged();
}

QStringList ServiceKnobs::services() const
{
    QStringList names;
    for (const inventory::Service &service : m_inventory.services)
        if (!service.serveScript.isEmpty())
            names.append(service.name);
    return names;
}

const inventory::Service *ServiceKnobs::selected() const
{
    return m_inventory.service(m_service);
}

QString ServiceKnobs::confirmationNeeded() const
{
    const inventory::Service *service = selected();
    return service && service->isProduction() ? service->name : QString();
}

remote::RemoteFiles *ServiceKnobs::remoteFilesOf(const QString &host)
{
    return filesOf(host) ? m_hosts.value(host)->files.get() : nullptr;
}

KnobFiles *ServiceKnobs::filesOf(const QString &host)
{
    if (const auto known = m_hosts.constFind(host); known != m_hosts.cend())
        return (*known)->knobs.get();
    remote::Transport *transport = m_transportOf ? m_transportOf(host) : nullptr;
    if (!transport)
        return nullptr;
    auto files = std::make_shared<HostFiles>();
    if (auto *ssh = qobject_cast<remote::SshTransport *>(transport))
        files->files = std::make_unique<remote::SftpFiles>(ssh);
    else
        files->files = std::make_unique<remote::LocalFiles>(host);
    files->knobs = std::make_unique<KnobFiles>(files->files.get(), transport);
    connect(transport, &remote::Transport::commandFinished, this,
            [this](quint64 id, const remote::CommandResult &result) {
                if (const auto then = m_commands.take(id))
                    then(result);
            });
    m_hosts.insert(host, files);
    return files->knobs.get();
}

void ServiceKnobs::select(const QString &name)
{
    m_service = name;
    const quint64 generation = ++m_generation;
    m_backups.clear();
    m_model.clear();
    const inventory::Service *service = selected();
    if (!service || service->serveScript.isEmpty())
        return;
    KnobFiles *files = filesOf(service->host);
    if (!files)
        return Q_EMIT problem(QStringLiteral("host %1 is not connected").arg(service->host));
    const QString path = service->serveScript;
    files->read(path, [this, generation, files, path, name](const KnobFiles::Read &read) {
        if (generation != m_generation)
            return;
        if (!read.ok)
            return Q_EMIT problem(read.error);
        const ServeScript script = ServeScript::parse(read.bytes);
        m_model.setScript(script);
        Q_EMIT loaded(name, path);
        readDrift(script);
        files->backupsAgainst(
            path, read.bytes, [this, generation](const QVector<KnobFiles::Backup> &backups) {
                if (generation != m_generation)
                    return;
                m_backups = backups;
                if (m_backups.size() == 1 && m_backups.first().path.isEmpty())
                    m_backups.clear(); // the folder could not be listed: no backups shown
                Q_EMIT backupsChanged();
            });
    });
}

void ServiceKnobs::readDrift(const ServeScript &script)
{
    const inventory::Service *service = selected();
    remote::Transport *transport = m_transportOf ? m_transportOf(service->host) : nullptr;
    if (!transport)
        return;
    const inventory::Host *host = m_inventory.host(service->host);
    const quint64 generation = m_generation;
    const quint64 id = transport->run(
        ProcessView::request(service->pidFile, service->url.port(), host && host->sudo));
    m_commands.insert(id, [this, generation, script,
                           hostName = service->host](const remote::CommandResult &result) {
        if (generation != m_generation)
            return;
        const ProcessView process = ProcessView::parse(result, hostName);
        const QVector<KnobDrift> drift =
            process.pid > 0 ? knobDrift(script, process) : QVector<KnobDrift>{};
        m_model.setDrift(drift, process.pid > 0,
                         process.pid > 0 ? QString() : QStringLiteral("not running"));
        Q_EMIT driftRead(m_model.driftCount(), process.problem);
    });
}

void ServiceKnobs::planEdit(const ScriptEdit &edit)
{
    const inventory::Service *service = selected();
    KnobFiles *files = service ? filesOf(service->host) : nullptr;
    if (!files)
        return Q_EMIT problem(QStringLiteral("no service selected"));
    files->plan(service->serveScript, edit, [this](const KnobFiles::Plan &plan) {
        if (!plan.ok)
            return Q_EMIT problem(plan.error);
        Q_EMIT planned(plan);
    });
}

void ServiceKnobs::planRestore(const QString &backupPath)
{
    const inventory::Service *service = selected();
    KnobFiles *files = service ? filesOf(service->host) : nullptr;
    if (!files)
        return Q_EMIT problem(QStringLiteral("no service selected"));
    files->planRestore(service->serveScript, backupPath, [this](const KnobFiles::Plan &plan) {
        if (!plan.ok)
            return Q_EMIT problem(plan.error);
        Q_EMIT planned(plan);
    });
}

void ServiceKnobs::apply(const KnobFiles::Plan &plan, const QString &typedName)
{
    const inventory::Service *service = selected();
    KnobFiles *files = service ? filesOf(service->host) : nullptr;
    if (!files || plan.path != service->serveScript)
        return Q_EMIT problem(QStringLiteral("the plan is not for the selected service"));
    // The guards, again here: a view may not be trusted to have checked them.
    if (!m_inventory.armed)
        return Q_EMIT problem(QStringLiteral("%1 is not armed (armed: false): it changes "
                                             "nothing on its hosts")
                                  .arg(m_inventory.path));
    if (const QString needed = confirmationNeeded(); !needed.isEmpty() && typedName != needed)
        return Q_EMIT problem(
            QStringLiteral("%1 is tagged production: type its name to confirm").arg(needed));
    const QString serviceName = service->name;
    files->apply(
        plan,
        [this, serviceName](const KnobFiles::Plan &p, const KnobFiles::Applied &state,
                            const QString &action, const KnobFiles::AuditDone &done) {
            if (!m_audit)
                return done(false, QStringLiteral("no audit log is open"));
            std::function<void()> afterwards;
            if (action == u"edited" && m_mark) {
                history::Marker marker;
                marker.timeMs = QDateTime::currentMSecsSinceEpoch();
                marker.kind = QStringLiteral("knob");
                marker.text = QStringLiteral("knob: %1 in %2 on %3")
                                  .arg(p.what, p.path.mid(p.path.lastIndexOf(u'/') + 1), p.host);
                marker.link = p.path;
                marker.service = serviceName;
                afterwards = [mark = m_mark, marker] { mark(marker); };
            }
            m_audit(KnobFiles::auditEntry(p, state, action), this, done, afterwards);
        },
        [this](const KnobFiles::Applied &result) {
            Q_EMIT applied(result);
            refresh();
        });
}

void ServiceKnobs::changedSince(const QString &time)
{
    const inventory::Service *service = selected();
    if (!service)
        return Q_EMIT problem(QStringLiteral("no service selected"));
    const std::optional<QString> spec = ChangedSince::dateSpec(time);
    if (!spec)
        return Q_EMIT problem(
            QStringLiteral("\"%1\": give HH:MM, 2h / 30m / 1d, or ISO 8601").arg(time));
    const inventory::Host *host = m_inventory.host(service->host);
    QStringList folders = host ? host->watchPaths : QStringList();
    if (folders.isEmpty())
        for (const inventory::Service &s : m_inventory.services)
            if (s.host == service->host && s.serveScript.contains(u'/')) {
                const QString folder = s.serveScript.left(s.serveScript.lastIndexOf(u'/'));
                if (!folders.contains(folder))
                    folders.append(folder);
            }
    filesOf(service->host); // its answers are routed here
    remote::Transport *transport = m_transportOf ? m_transportOf(service->host) : nullptr;
    if (!transport || folders.isEmpty())
        return Q_EMIT problem(QStringLiteral("nothing to look at on %1").arg(service->host));
    const quint64 id = transport->run(ChangedSince::request(folders, *spec));
    m_commands.insert(id, [this, hostName = service->host](const remote::CommandResult &result) {
        const ChangedSince changed = ChangedSince::parse(result, hostName);
        if (!changed.error.isEmpty())
            return Q_EMIT problem(changed.error);
        Q_EMIT changedSinceRead(changed);
    });
}

} // namespace opsdeck::knobs
