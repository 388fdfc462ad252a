// WorkflowRunner: whether the 200 a wait step saw comes from the process the
// workflow started. A server that died at start ("port already in use")
// behind an old one brought back by a watchdog or a teammate would
// otherwise pass every wait, and the run would report a fix that is not
// running.
#include "managedprocess.h"
#include "workflowrunnerleaf.h"

#include <QPointer>

using namespace Qt::StringLiterals;

namespace opsdeck::workflows {

void WorkflowRunner::confirmServing(const std::shared_ptr<Leaf> &leaf,
                                    const inventory::Service &service, const QString &done)
{
    const processes::ManagedProcess process = processes::ManagedProcess::fromService(service);
    remote::Transport *transport = m_context.transportFor(service.host);
    // No pid file or port (an inventory's own status): HTTP is all there is.
    if (process.holdsPort.isEmpty() || !transport)
        return endLeaf(leaf, true, done);
    if (leaf->confirming)
        return;
    leaf->confirming = true;
    remote::CommandRequest request;
    request.script = process.holdsPort;
    request.deadline = std::chrono::seconds(10);
    auto id = std::make_shared<quint64>(0);
    auto answered = std::make_shared<QMetaObject::Connection>();
    *answered = connect(
        transport, &remote::Transport::commandFinished, this,
        [this, leaf, id, answered, done, name = service.name,
         log = service.log](quint64 finished, const remote::CommandResult &result) {
            if (finished != *id)
                return;
            disconnect(*answered);
            leaf->confirming = false;
            if (leaf->ended)
                return;
            const QString said = QString::fromUtf8(result.standardOutput).trimmed();
            const bool exited = result.outcome == remote::CommandResult::Outcome::Exited;
            const QString seeLog = log.isEmpty() ? QString() : u": see its log "_s + log;
            if (exited && result.exitCode == 0)
                return endLeaf(leaf, true, said.isEmpty() ? done : done + u"; "_s + said);
            if (exited && result.exitCode == 1)
                return endLeaf(leaf, false,
                               u"%1 answers on its port, but the process its pid file names is "
                               "not running any more%2"_s.arg(name, seeLog));
            if (exited && result.exitCode == processes::ManagedProcess::kNotOurs)
                return endLeaf(leaf, false,
                               u"%1 answers on its port, but %2: not the %1 this workflow "
                               "started%3"_s.arg(name, said, seeLog));
            // No answer: asked again at the next healthy poll.
            leaf->lastSeen = u"who serves %1's port: %2"_s.arg(
                name, said.isEmpty() ? result.describeWithReason() : said);
        });
    *id = transport->run(request);
}

} // namespace opsdeck::workflows
