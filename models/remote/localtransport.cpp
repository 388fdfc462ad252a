#include "localtransport.h"

#include "inputprompt.h"
#include "sudocommand.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QProcess>
#include <QTimer>
#include <csignal>
#include <spdlog/spdlog.h>
#include <unistd.h>

namespace opsdeck::remote {

struct LocalTransport::Job
{
    quint64 id = 0;
    QProcess *process = nullptr;
    QTimer *deadline = nullptr;
    QElapsedTimer clock;
    qint64 cap = 0;
    CommandResult result;
    // Set when we killed it, so the exit is reported as why we did.
    std::optional<CommandResult::Outcome> killedBecause;
    std::optional<CommandRequest> sudoRequest; ///< as given, when run through sudo
};

LocalTransport::LocalTransport(QString hostName, QObject *parent)
    : Transport(parent), m_hostName(std::move(hostName))
{
}

LocalTransport::~LocalTransport()
{
    // Nothing may outlive the transport: kill what still runs.
    for (Job *job : std::as_const(m_jobs)) {
        job->process->disconnect(this);
        killGroup(*job, CommandResult::Outcome::Cancelled);
        job->process->waitForFinished(2000);
        delete job->process;
        delete job;
    }
}

// Keeps what fits under the cap and returns it (what is streamed); counts the rest.
static QByteArray appendCapped(QByteArray &kept, qint64 &dropped, const QByteArray &chunk,
                               qint64 cap)
{
    const qint64 room = std::max<qint64>(0, cap - kept.size());
    const QByteArray taken = chunk.left(std::min<qint64>(room, chunk.size()));
    kept.append(taken);
    dropped += chunk.size() - taken.size();
    return taken;
}

quint64 LocalTransport::run(const CommandRequest &given)
{
    const CommandRequest request = given.sudo ? SudoCommand::wrapped(given) : given;
    auto *job = new Job;
    if (given.sudo)
        job->sudoRequest = given;
    job->id = m_nextId++;
    job->cap = request.outputCap;
    job->process = new QProcess;
    QProcess *process = job->process;

    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (const QString &key : request.environment.keys())
        env.insert(key, request.environment.value(key));
    process->setProcessEnvironment(env);
    // A HOME that does not exist (a service account's) runs from /, as ssh
    // does for such a login, rather than failing every command.
    QString directory = request.workingDirectory;
    if (directory.isEmpty())
        directory = QFileInfo(QDir::homePath()).isDir() ? QDir::homePath() : QDir::rootPath();
    process->setWorkingDirectory(directory);
    // A new session per command: the deadline kills the whole group, and a
    // service it starts in the background cannot hold our terminal.
    process->setChildProcessModifier([] { ::setsid(); });
    if (!request.input && !request.argv.isEmpty())
        process->setStandardInputFile(QProcess::nullDevice());

    connect(process, &QProcess::readyReadStandardOutput, this, [this, job] { readOutput(*job); });
    connect(process, &QProcess::readyReadStandardError, this, [this, job] { readOutput(*job); });
    connect(process, &QProcess::errorOccurred, this, [this, job](QProcess::ProcessError error) {
        if (error != QProcess::FailedToStart)
            return;
        CommandResult result;
        result.outcome = CommandResult::Outcome::FailedToStart;
        result.errorText = job->process->errorString();
        finish(job->id, result);
    });
    connect(process, &QProcess::finished, this,
            [this, job](int exitCode, QProcess::ExitStatus status) {
                readOutput(*job);
                CommandResult result = std::move(job->result);
                if (job->killedBecause) {
                    result.outcome = *job->killedBecause;
                } else if (status == QProcess::CrashExit) {
                    // QProcess reports the terminating signal as the exit code.
                    result.outcome = CommandResult::Outcome::Signalled;
                    result.signalName = signalName(exitCode);
                } else {
                    result.outcome = CommandResult::Outcome::Exited;
                    result.exitCode = exitCode;
                }
                finish(job->id, std::move(result));
            });

    job->deadline = new QTimer(process);
    job->deadline->setSingleShot(true);
    connect(job->deadline, &QTimer::timeout, this,
            [this, job] { killGroup(*job, CommandResult::Outcome::TimedOut); });

    m_jobs.insert(job->id, job);
    job->clock.start();
    if (const QString invalid = request.invalidReason(); !invalid.isEmpty()) {
        CommandResult refused;
        refused.outcome = CommandResult::Outcome::FailedToStart;
        refused.errorText = invalid;
        // Queued: the caller has the id before it hears the result.
        QMetaObject::invokeMethod(
            this, [this, id = job->id, refused] { finish(id, refused); }, Qt::QueuedConnection);
        return job->id;
    }
    const std::optional<QByteArray> standardInput =
        request.argv.isEmpty() ? std::optional(request.scriptStandardInput()) : request.input;
    if (request.argv.isEmpty())
        process->start(QStringLiteral("bash"), {QStringLiteral("-s")});
    else
        process->start(request.argv.first(), request.argv.mid(1));
    if (standardInput) {
        process->write(*standardInput);
        process->closeWriteChannel();
    }
    job->deadline->start(request.deadline);
    return job->id;
}

void LocalTransport::readOutput(Job &job)
{
    // Kept bytes first, then the signals: a slot that cancels the command
    // finds the job's result already holding what it was shown.
    const quint64 id = job.id;
    const QByteArray out = appendCapped(job.result.standardOutput, job.result.standardOutputDropped,
                                        job.process->readAllStandardOutput(), job.cap);
    const QByteArray err = appendCapped(job.result.standardError, job.result.standardErrorDropped,
                                        job.process->readAllStandardError(), job.cap);
    if (!out.isEmpty())
        Q_EMIT commandOutput(id, OutputChannel::StandardOutput, out);
    if (!err.isEmpty())
        Q_EMIT commandOutput(id, OutputChannel::StandardError, err);
}

void LocalTransport::killGroup(Job &job, CommandResult::Outcome why)
{
    if (job.process->state() == QProcess::NotRunning)
        return;
    job.killedBecause = why;
    const auto pid = static_cast<pid_t>(job.process->processId());
    if (pid > 0)
        ::kill(-pid, SIGKILL);
}

void LocalTransport::cancel(quint64 id)
{
    if (Job *job = m_jobs.value(id))
        killGroup(*job, CommandResult::Outcome::Cancelled);
}

void LocalTransport::finish(quint64 id, CommandResult result)
{
    Job *job = m_jobs.take(id);
    if (!job)
        return; // FailedToStart and finished can both arrive; report once
    result.elapsedMs = job->clock.elapsed();
    if (result.outcome == CommandResult::Outcome::TimedOut)
        result.errorText = QStringLiteral("timed out on host %1").arg(m_hostName);
    readOutcomeFromOutput(result);
    if (job->sudoRequest)
        SudoCommand::explainFailure(result, m_hostName, *job->sudoRequest);
    // The timer lives with the process until deleteLater: a deadline due in
    // this same event-loop pass must not reach the deleted job.
    job->deadline->stop();
    job->deadline->disconnect(this);
    job->process->disconnect(this);
    job->process->deleteLater();
    delete job;
    Q_EMIT commandFinished(id, result);
}

} // namespace opsdeck::remote
