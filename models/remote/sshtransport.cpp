#include "sshtransport.h"

#include "inputprompt.h"
#include "sshjobqueue.h"
#include "sudocommand.h"

namespace opsdeck::remote {

SshTransport::SshTransport(QString hostName, SshSettings settings, QObject *parent)
    : Transport(parent), m_hostName(std::move(hostName))
{
    qRegisterMetaType<SshConnectionState>();
    qRegisterMetaType<CommandResult>();
    // The queue's callbacks run in its thread: hop to ours. A call still in
    // flight when the transport is deleted is dropped with its context.
    m_queue = std::make_unique<SshJobQueue>(
        std::move(settings), m_hostName,
        [this](quint64 id, const CommandResult &result) {
            QMetaObject::invokeMethod(
                this,
                [this, id, result] {
                    --m_pending;
                    CommandResult finished = result;
                    readOutcomeFromOutput(finished);
                    if (const auto sudo = m_sudoRequests.find(id); sudo != m_sudoRequests.end()) {
                        SudoCommand::explainFailure(finished, m_hostName, *sudo);
                        m_sudoRequests.erase(sudo);
                    }
                    Q_EMIT commandFinished(id, finished);
                },
                Qt::QueuedConnection);
        },
        [this](const SshConnectionState &state) {
            QMetaObject::invokeMethod(
                this, [this, state] { Q_EMIT connectionStateChanged(state); },
                Qt::QueuedConnection);
        },
        // Queued calls from one thread to one object run in the order posted:
        // every chunk reaches us before the commandFinished posted after it.
        [this](quint64 id, OutputChannel channel, const QByteArray &chunk) {
            QMetaObject::invokeMethod(
                this, [this, id, channel, chunk] { Q_EMIT commandOutput(id, channel, chunk); },
                Qt::QueuedConnection);
        });
}

SshTransport::~SshTransport() = default;

quint64 SshTransport::run(const CommandRequest &request)
{
    const quint64 id = m_nextId++;
    ++m_pending;
    if (request.sudo)
        m_sudoRequests.insert(id, request);
    m_queue->push(id, request.sudo ? SudoCommand::wrapped(request) : request);
    return id;
}

void SshTransport::cancel(quint64 id)
{
    m_queue->cancel(id);
}

void SshTransport::runSessionTask(SessionTask task)
{
    // Tasks need no id of the queue's own: cancel() is for commands.
    m_queue->pushTask(0, std::move(task));
}

void SshTransport::acceptHostKey(const QString &fingerprint)
{
    m_queue->setAcceptedFingerprint(fingerprint);
}

SshConnectionState SshTransport::connectionState() const
{
    return m_queue->state();
}

} // namespace opsdeck::remote
