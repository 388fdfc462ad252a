#include "workflowjournal.h"

#include "auditlog.h"
#include "privatefiles.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QRandomGenerator>
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

namespace opsdeck::workflows {

namespace {

const QString kSuffix = QStringLiteral(".journal");

// A line is written whole or the call fails: one write of the whole line.
bool appendLine(const QString &path, const QByteArray &line, QString *error)
{
    QString why;
    const int fd = settings::PrivateFiles::open(path, O_WRONLY | O_APPEND | O_CREAT, &why);
    if (fd < 0) {
        *error = why;
        return false;
    }
    const off_t before = ::lseek(fd, 0, SEEK_END);
    const ssize_t written = ::write(fd, line.constData(), size_t(line.size()));
    const bool ok = written == line.size() && ::fsync(fd) == 0;
    if (!ok) {
        *error = QStringLiteral("cannot write %1: %2")
                     .arg(path, QString::fromLocal8Bit(std::strerror(errno)));
        if (before >= 0 && ::ftruncate(fd, before) == 0) // never half a line
            ::fsync(fd);
    }
    ::close(fd);
    return ok;
}

} // namespace

int WorkflowJournal::Summary::resumeFrom() const
{
    if (!unended.isEmpty())
        return *std::min_element(unended.cbegin(), unended.cend());
    if (!failed.isEmpty())
        return *std::min_element(failed.cbegin(), failed.cend());
    return succeeded.isEmpty() ? 1 : *std::max_element(succeeded.cbegin(), succeeded.cend()) + 1;
}

QString WorkflowJournal::folderIn(const QString &dataDir)
{
    return QDir(dataDir).filePath(QStringLiteral("workflows"));
}

QString WorkflowJournal::newId(WorkflowKind kind)
{
    return QStringLiteral("%1-%2-%3")
        .arg(QDateTime::currentDateTimeUtc().toString(u"yyyyMMdd'T'HHmmss'Z'"),
             workflowKindName(kind))
        .arg(QRandomGenerator::system()->generate() & 0xffff, 4, 16, QLatin1Char('0'));
}

std::optional<WorkflowJournal> WorkflowJournal::create(const QString &dataDir,
                                                       const WorkflowPlan &plan, QString *error,
                                                       const QString &givenId)
{
    const QString folder = folderIn(dataDir);
    if (!settings::PrivateFiles::makeDir(folder, error))
        return std::nullopt;
    const QString id = givenId.isEmpty() ? newId(plan.kind) : givenId;
    WorkflowJournal journal(id, QDir(folder).filePath(id + kSuffix));
    QJsonObject event{{QStringLiteral("event"), QStringLiteral("plan")},
                      {QStringLiteral("id"), id},
                      {QStringLiteral("user"), history::AuditLog::currentUser()},
                      {QStringLiteral("inventory"), plan.inventoryPath},
                      {QStringLiteral("plan"), plan.json()}};
    if (!journal.append(event, error)) {
        // Nothing of it went in (a full disk): no empty journal is left to be
        // listed as a workflow without a name.
        if (QFileInfo(journal.path()).size() == 0)
            QFile::remove(journal.path());
        return std::nullopt;
    }
    return journal;
}

WorkflowJournal WorkflowJournal::reopen(const Summary &summary)
{
    return WorkflowJournal(summary.id, summary.path);
}

int WorkflowJournal::claim(const QString &path, QString *error)
{
    QString why;
    const int fd = settings::PrivateFiles::open(path, O_RDONLY, &why);
    if (fd < 0) {
        if (error)
            *error = why;
        return -1;
    }
    if (::flock(fd, LOCK_EX | LOCK_NB) == 0)
        return fd;
    const int code = errno;
    ::close(fd);
    if (error)
        *error =
            code == EWOULDBLOCK
                ? QStringLiteral("workflow %1 is still running in another process on this "
                                 "machine (it holds %2): nothing done; cancel it there, or "
                                 "wait for it to end")
                      .arg(QFileInfo(path).completeBaseName(), path)
                : QStringLiteral("%1: %2").arg(path, QString::fromLocal8Bit(std::strerror(code)));
    return -1;
}

int WorkflowJournal::claimAsRead(const Summary &summary, QString *error)
{
    const int claimed = claim(summary.path, error);
    if (claimed < 0)
        return -1;
    QString why;
    const std::optional<Summary> now = read(summary.path, &why);
    if (now && now->finished == summary.finished && now->outcome == summary.outcome &&
        now->lastStarted == summary.lastStarted && now->lastEnded == summary.lastEnded &&
        now->succeeded == summary.succeeded && now->failed == summary.failed &&
        now->unended == summary.unended)
        return claimed;
    release(claimed);
    if (error)
        *error = QStringLiteral("workflow %1 changed while this read it (%2): nothing done; look "
                                "again (`opsdeck-cli workflow list`)")
                     .arg(summary.id,
                          now ? (now->finished ? QStringLiteral("it ended %1").arg(now->outcome)
                                               : QStringLiteral("another process ran on in it"))
                              : why);
    return -1;
}

void WorkflowJournal::release(int claim)
{
    if (claim >= 0)
        ::close(claim); // drops the flock
}

bool WorkflowJournal::append(QJsonObject event, QString *error)
{
    event.insert(QStringLiteral("time"),
                 QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs));
    QString why;
    if (appendLine(m_path, QJsonDocument(event).toJson(QJsonDocument::Compact) + '\n', &why))
        return true;
    if (error)
        *error = QStringLiteral("workflow journal: %1").arg(why);
    return false;
}

std::optional<WorkflowJournal::Summary> WorkflowJournal::read(const QString &path, QString *error)
{
    QString why;
    const int fd = settings::PrivateFiles::open(path, O_RDONLY, &why);
    if (fd < 0) {
        *error = why;
        return std::nullopt;
    }
    QFile file;
    if (!file.open(fd, QIODevice::ReadOnly, QFileDevice::AutoCloseHandle)) {
        ::close(fd);
        *error = QStringLiteral("cannot read %1").arg(path);
        return std::nullopt;
    }
    if (file.size() > kMaxBytes) {
        *error = QStringLiteral("%1: %2 bytes, more than a journal holds (%3): not read")
                     .arg(path)
                     .arg(file.size())
                     .arg(kMaxBytes);
        return std::nullopt;
    }
    Summary summary;
    summary.path = path;
    int number = 0;
    while (!file.atEnd()) {
        // Unbounded per line: the file is at most kMaxBytes (a plan line of
        // many services' long start commands passes 1 MiB).
        const QByteArray line = file.readLine();
        ++number;
        const QJsonObject event = QJsonDocument::fromJson(line).object();
        const QString kind = event.value(QStringLiteral("event")).toString();
        if (event.isEmpty() || (number == 1) != (kind == u"plan")) {
            // A line cut by a crash mid-write can only be the last one.
            if (!file.atEnd() || number == 1) {
                *error = QStringLiteral("%1:%2: not a workflow journal line").arg(path).arg(number);
                return std::nullopt;
            }
            break;
        }
        const int n = event.value(QStringLiteral("n")).toInt();
        if (kind == u"plan") {
            summary.id = event.value(QStringLiteral("id")).toString();
            summary.inventory = event.value(QStringLiteral("inventory")).toString();
            summary.plan = event.value(QStringLiteral("plan")).toObject();
            summary.started = QDateTime::fromString(event.value(QStringLiteral("time")).toString(),
                                                    Qt::ISODateWithMs);
        } else if (kind == u"step-start") {
            summary.lastStarted = n;
            summary.finished = false;
            summary.outcome.clear();
            summary.unended.append(n);
            summary.failed.removeAll(n); // run again after a resume
        } else if (kind == u"step-end") {
            summary.lastEnded = n;
            summary.lastEndedOk = event.value(QStringLiteral("ok")).toBool();
            summary.unended.removeAll(n);
            summary.endedDetail.insert(n, event.value(QStringLiteral("detail")).toString());
            if (summary.lastEndedOk) {
                summary.succeeded.append(n);
            } else {
                summary.failed.append(n);
                summary.detail = event.value(QStringLiteral("detail")).toString();
            }
        } else if (kind == u"end") {
            summary.finished = true;
            summary.outcome = event.value(QStringLiteral("outcome")).toString();
            summary.detail = event.value(QStringLiteral("detail")).toString();
        } else if (kind == u"resume") {
            summary.finished = false;
            summary.outcome.clear();
        }
    }
    // Found by its name: a copy under another name must not pass for it.
    if (QFileInfo(path).fileName() != summary.id + kSuffix) {
        *error = QStringLiteral("%1: it says it is workflow %2, which is not its name")
                     .arg(path, summary.id);
        return std::nullopt;
    }
    return summary;
}

QVector<WorkflowJournal::Summary> WorkflowJournal::list(const QString &dataDir,
                                                        QStringList *problems)
{
    QVector<Summary> out;
    const QFileInfoList files =
        QDir(folderIn(dataDir))
            .entryInfoList({QStringLiteral("*") + kSuffix}, QDir::Files | QDir::System, QDir::Name);
    for (const QFileInfo &file : files) {
        QString why;
        if (auto summary = read(file.absoluteFilePath(), &why))
            out.append(*summary);
        else if (problems)
            problems->append(why);
    }
    // Ids begin with the UTC time: newest first by name.
    std::sort(out.begin(), out.end(),
              [](const Summary &a, const Summary &b) { return a.id > b.id; });
    return out;
}

std::optional<WorkflowJournal::Summary> WorkflowJournal::find(const QString &dataDir,
                                                              const QString &id, QString *error)
{
    QStringList problems;
    for (const Summary &summary : list(dataDir, &problems)) {
        if (id.isEmpty() ? summary.resumable() : summary.id == id)
            return summary;
    }
    *error = id.isEmpty() ? QStringLiteral("no unfinished, failed or cancelled workflow in %1")
                                .arg(folderIn(dataDir))
                          : QStringLiteral("no workflow %1 in %2").arg(id, folderIn(dataDir));
    if (!problems.isEmpty())
        *error += QStringLiteral(" (unreadable: %1)").arg(problems.join(QStringLiteral("; ")));
    return std::nullopt;
}

} // namespace opsdeck::workflows
