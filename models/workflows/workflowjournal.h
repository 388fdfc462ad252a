#pragma once

#include "workflowplan.h"

#include <QDateTime>
#include <QHash>
#include <QJsonObject>
#include <QString>
#include <QVector>
#include <optional>

namespace opsdeck::workflows {

/// A workflow's journal: `<data dir>/workflows/<id>.journal`, one JSON object
/// per line, each written and fsynced before the call returns, so that a
/// console or CLI that died mid-workflow (SIGKILL, power) knows on its next
/// start where it stopped:
///   {"event":"plan","id","time","user","inventory","plan":{WorkflowPlan::json()}}
///   {"event":"step-start","n","time"}            before a leaf runs
///   {"event":"step-end","n","time","ok","ms","detail"}  after it
///   {"event":"end","time","outcome","detail"}   outcome: succeeded, failed,
///                                               cancelled or abandoned
/// A journal without "end" is unfinished. Files 0600, the folder 0700.
/// Thread: any; one object per workflow, used from one thread.
class WorkflowJournal
{
public:
    /// What a journal says, read back.
    struct Summary
    {
        QString id;
        QString path;
        QString inventory; ///< the inventory file it was planned from
        QJsonObject plan;  ///< WorkflowPlan::json() as it was run
        QDateTime started;
        bool finished = false;
        QString outcome;     ///< "end"'s outcome; "" while unfinished
        QString detail;      ///< "end"'s detail, else the last failed step's
        int lastStarted = 0; ///< the last leaf that started (0: none)
        int lastEnded = 0;   ///< the last leaf that ended
        bool lastEndedOk = true;
        QVector<int> succeeded;          ///< the leaves that ended ok, in order
        QVector<int> failed;             ///< the leaves that ended not ok
        QVector<int> unended;            ///< the leaves that started and never ended
        QHash<int, QString> endedDetail; ///< each ended leaf's detail (its last end)
        /// The first leaf to run on resume: the lowest that started and never
        /// ended (steps of a parallel group may end in any order), else the
        /// lowest that failed, else the one after the highest that ended.
        int resumeFrom() const;
        /// Unfinished (a console that died), or ended failed or cancelled:
        /// `workflow resume` may run it again, `abandon` may end it.
        bool resumable() const
        {
            return !finished || outcome == u"failed" || outcome == u"cancelled";
        }
    };

    /// `<dataDir>/workflows`.
    static QString folderIn(const QString &dataDir);
    /// Starts the journal of `plan` (writes its "plan" line). Nothing and
    /// `error` (naming the file) when it cannot be written: the workflow then
    /// does not run.
    static std::optional<WorkflowJournal> create(const QString &dataDir, const WorkflowPlan &plan,
                                                 QString *error, const QString &id = {});
    /// A new workflow's id: `<UTC yyyyMMddTHHmmssZ>-<kind>-<4 hex>` (its journal's
    /// name, and what its cluster lock names).
    static QString newId(WorkflowKind kind);
    /// The journal of an earlier workflow, to go on writing (resume, abandon).
    static WorkflowJournal reopen(const Summary &summary);

    /// Claims the journal at `path` for the process that runs (or abandons)
    /// its workflow: an flock(2) on the file, held on the returned descriptor
    /// (close-on-exec) until release(). A second resume, or an abandon, of a
    /// workflow still running elsewhere on this machine is refused by it.
    /// -1 with `error` (naming the workflow and the file) when another
    /// process holds it or the file cannot be opened.
    static int claim(const QString &path, QString *error);
    /// claim() of the journal `summary` was read from, then the journal read
    /// again: -1 with `error` when it no longer reads as `summary` (another
    /// process resumed, ran on, ended or abandoned it between the read and
    /// the claim), so that nothing acts on what it was.
    static int claimAsRead(const Summary &summary, QString *error);
    /// Gives a claim up (nothing for -1).
    static void release(int claim);

    /// Appends one event (adds "time"); false with `error` naming the file.
    bool append(QJsonObject event, QString *error);

    QString id() const { return m_id; }
    QString path() const { return m_path; }

    /// Journals larger than this are refused when read (64 MiB).
    static constexpr qint64 kMaxBytes = 64 * 1024 * 1024;
    /// Reads one journal; nothing and `error` (FILE:LINE) when it is not one,
    /// is larger than kMaxBytes, or its id is not its file's name.
    static std::optional<Summary> read(const QString &path, QString *error);
    /// Every journal of the data dir, newest first; unreadable ones named in
    /// `problems`.
    static QVector<Summary> list(const QString &dataDir, QStringList *problems = nullptr);
    /// The journal whose id is `id` (or the newest resumable one when `id` is
    /// empty); nothing and `error` when there is none.
    static std::optional<Summary> find(const QString &dataDir, const QString &id, QString *error);

private:
    WorkflowJournal(QString id, QString path) : m_id(std::move(id)), m_path(std::move(path)) {}
    QString m_id;
    QString m_path;
};

} // namespace opsdeck::workflows
