// HostSignalsScript::parse: reading the script's records (hostsignalsscript.h).
#include "hostsignalsscript.h"
#include "nvidiasmicsv.h"

#include <QSet>

namespace opsdeck::remote {

namespace {

struct Clock
{
    qint64 now = 0;      ///< host time, s since the epoch
    qint64 bootTime = 0; ///< btime, s since the epoch
    qint64 hz = 0;       ///< CLK_TCK
};

QVector<qint64> pidList(const QString &text)
{
    QVector<qint64> pids;
    for (const QString &part : text.split(QLatin1Char(','), Qt::SkipEmptyParts))
        pids.append(part.toLongLong());
    return pids;
}

// `@@proc KIND PID PPID STATE START_TICKS RSS_KB ANCESTORS ARGS`
std::optional<ProcessSample> readProcess(const QStringList &fields, const Clock &clock,
                                         QVector<qint64> *ancestors)
{
    if (fields.size() < 9)
        return std::nullopt;
    ProcessSample process;
    const QString &kind = fields.at(1);
    process.kind = kind == u"main"    ? ProcessSample::Kind::Main
                   : kind == u"child" ? ProcessSample::Kind::Child
                                      : ProcessSample::Kind::OldInstance;
    bool ok = false;
    process.pid = fields.at(2).toLongLong(&ok);
    if (!ok)
        return std::nullopt;
    process.parentPid = fields.at(3).toLongLong();
    process.state = fields.at(4).isEmpty() ? QChar() : fields.at(4).at(0);
    const qint64 ticks = fields.at(5).toLongLong(&ok);
    if (ok && clock.hz > 0) {
        const qint64 startMs = clock.bootTime * 1000 + ticks * 1000 / clock.hz;
        process.startedAt = QDateTime::fromMSecsSinceEpoch(startMs, Qt::UTC);
        process.uptimeSeconds = std::max<qint64>(clock.now - startMs / 1000, 0);
    }
    const qint64 rssKiB = fields.at(6).toLongLong(&ok);
    process.rssBytes = ok ? rssKiB * 1024 : -1;
    *ancestors = pidList(fields.at(7));
    process.args = fields.mid(8).join(QLatin1Char('\t'));
    return process;
}

// A `port` process is an old instance unless it is related to Main.
void classifyPortProcesses(ServiceProcesses &service,
                           const QHash<qint64, QVector<qint64>> &ancestors)
{
    const ProcessSample *main = service.mainProcess();
    if (!main)
        return;
    const qint64 mainPid = main->pid;
    const QVector<qint64> mainAncestors = ancestors.value(mainPid);
    for (auto &process : service.processes) {
        if (process.kind != ProcessSample::Kind::OldInstance)
            continue;
        if (ancestors.value(process.pid).contains(mainPid))
            process.kind = ProcessSample::Kind::Child;
        else if (mainAncestors.contains(process.pid))
            process.kind = ProcessSample::Kind::Parent;
    }
}

void readGpu(HostSignalsSample &sample, int exitCode, const QByteArray &output,
             const QStringList &fields, int timeoutS)
{
    if (exitCode == 124) {
        sample.gpuState = HostSignalsSample::GpuState::Failed;
        sample.gpuError = QStringLiteral("nvidia-smi did not answer within %1 s").arg(timeoutS);
        return;
    }
    if (exitCode != 0) {
        sample.gpuState = HostSignalsSample::GpuState::Failed;
        // The start says what went wrong; the rest of a flood would fill the panel.
        QString text = QString::fromUtf8(output.left(4096)).simplified();
        if (text.size() > 300)
            text = text.left(300) + QStringLiteral("\u2026");
        sample.gpuError = text.isEmpty() ? QStringLiteral("exit %1").arg(exitCode)
                                         : QStringLiteral("%1 (exit %2)").arg(text).arg(exitCode);
        return;
    }
    const auto parsed = NvidiaSmiCsv::parse(output, fields);
    sample.gpuWarnings = parsed.warnings;
    if (!parsed.ok()) {
        sample.gpuState = HostSignalsSample::GpuState::Failed;
        sample.gpuError = parsed.error;
        return;
    }
    sample.gpuState = HostSignalsSample::GpuState::Available;
    sample.gpus = parsed.gpus;
}

ServiceProcesses::PidFileState pidFileState(const QString &word)
{
    using State = ServiceProcesses::PidFileState;
    if (word == u"missing")
        return State::Missing;
    if (word == u"unreadable")
        return State::Unreadable;
    if (word == u"invalid")
        return State::Invalid;
    if (word == u"pid")
        return State::NotRunning; // until its main process is read
    return State::NotConfigured;
}

} // namespace

HostSignalsSample HostSignalsScript::parse(const QByteArray &output, const QString &host,
                                           const QVector<ServiceProcessQuery> &services,
                                           const QStringList &gpuFields, int nvidiaSmiTimeoutS)
{
    HostSignalsSample sample;
    sample.host = host;
    Clock clock;
    bool clockSeen = false;
    QHash<qint64, QVector<qint64>> ancestors;
    const QList<QByteArray> lines = output.split('\n');
    int currentIndex = -1; // into sample.services; an index, since appending moves them
    for (int i = 0; i < lines.size(); ++i) {
        const QByteArray &line = lines.at(i);
        if (line.startsWith("@@gpu\t")) {
            const QList<QByteArray> parts = line.split('\t');
            if (parts.value(1) == "none") {
                sample.gpuState = HostSignalsSample::GpuState::NoNvidiaSmi;
                continue;
            }
            QByteArray gpuOutput;
            int j = i + 1;
            for (; j < lines.size() && lines.at(j) != "@@gpu-end"; ++j)
                gpuOutput += lines.at(j) + '\n';
            i = j;
            readGpu(sample, parts.value(2).toInt(), gpuOutput, gpuFields, nvidiaSmiTimeoutS);
            continue;
        }
        const QStringList fields = QString::fromUtf8(line).split(QLatin1Char('\t'));
        const QString &tag = fields.first();
        if (tag == u"@@clock" && fields.size() >= 4) {
            clock = {fields.at(1).toLongLong(), fields.at(2).toLongLong(),
                     fields.at(3).toLongLong()};
            clockSeen = clock.hz > 0 && clock.bootTime > 0;
        } else if (tag == u"@@service" && fields.size() >= 2) {
            const int index = fields.at(1).toInt();
            if (index < 0 || index >= services.size()) {
                sample.error =
                    QStringLiteral("host %1: the poll named service #%2, which was not asked for")
                        .arg(host)
                        .arg(fields.at(1));
                return sample;
            }
            sample.services.append(ServiceProcesses{});
            currentIndex = static_cast<int>(sample.services.size()) - 1;
            sample.services.last().query = services.at(index);
        } else if (tag == u"@@pidfile" && currentIndex >= 0 && fields.size() >= 2) {
            ServiceProcesses *current = &sample.services[currentIndex];
            current->pidFileState = pidFileState(fields.at(1));
            if (fields.at(1) == u"pid")
                current->pidFromFile = fields.value(2).toLongLong();
            else if (fields.at(1) == u"invalid")
                current->pidFileText = fields.mid(2).join(QLatin1Char('\t'));
        } else if (tag == u"@@proc" && currentIndex >= 0) {
            ServiceProcesses *current = &sample.services[currentIndex];
            QVector<qint64> processAncestors;
            auto process = readProcess(fields, clock, &processAncestors);
            if (!process)
                continue;
            ancestors.insert(process->pid, processAncestors);
            if (process->kind == ProcessSample::Kind::Main)
                current->pidFileState = process->isZombie()
                                            ? ServiceProcesses::PidFileState::Zombie
                                            : ServiceProcesses::PidFileState::Running;
            current->processes.append(*process);
        }
    }
    for (auto &service : sample.services)
        classifyPortProcesses(service, ancestors);
    if (!clockSeen)
        sample.error = QStringLiteral("host %1: the poll's output has no @@clock line (is /proc "
                                      "there and bash 4.4 or newer?)")
                           .arg(host);
    else if (sample.services.size() != services.size())
        sample.error = QStringLiteral("host %1: the poll reported %2 of %3 services")
                           .arg(host)
                           .arg(sample.services.size())
                           .arg(services.size());
    return sample;
}

} // namespace opsdeck::remote
