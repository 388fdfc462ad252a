#pragma once

#include "auditentry.h"
#include "knobchange.h"
#include "remotefileinfo.h"
#include "scriptedit.h"
#include "scriptwarning.h"

#include <QHash>
#include <QMetaType>
#include <QObject>
#include <QVector>
#include <functional>
#include <memory>

namespace opsdeck::remote {
class RemoteFiles;
struct RemoteFileResult;
class Transport;
} // namespace opsdeck::remote

namespace opsdeck::knobs {

/// Serve scripts on one host, read, backed up and changed safely, through
/// the host's RemoteFiles (atomic writes that keep mode and owner) and
/// Transport (for `bash -n`): the same steps over LocalFiles and SFTP.
///
/// A change is planned first (plan(), planRestore()): the file's bytes and
/// SHA-256 at that moment, the bytes it would have, the unified diff and the
/// knob changes. apply() then, in order, stopping at the first failure with
/// nothing further done:
///  1. reads the file again: a hash other than the plan's aborts with
///     "changed on disk since preview";
///  2. copies it to `<script>.opsdeck-<UTC yyyyMMddTHHmmssZ>.bak` (`-2`, `-3`
///     when taken), with the script's permission bits, and reads the copy
///     back: not byte-identical (SHA-256) stops the edit;
///  3. calls the audit step (host, path, diff, backup path and hash): the
///     change runs only after its entry is on disk;
///  4. writes the new bytes atomically and reads them back.
/// Nothing here restarts a service: a changed knob takes effect at the next
/// start (Applied says so).
///
/// Callbacks run on the thread this object lives in; every call returns at
/// once. Errors name the host and the path.
class KnobFiles : public QObject
{
    Q_OBJECT
public:
    /// `files` and `transport` are the same host's; both outlive this object.
    KnobFiles(remote::RemoteFiles *files, remote::Transport *transport, QObject *parent = nullptr);
    ~KnobFiles() override;

    /// Largest serve script read (bigger: refused, never edited truncated).
    static constexpr qint64 kMaxScriptBytes = 4 * 1024 * 1024;

    struct Read
    {
        bool ok = false;
        QString error;
        QByteArray bytes;
        QByteArray sha256; ///< hex
        remote::RemoteFileInfo info;
    };
    struct Plan
    {
        bool ok = false;
        QString error;
        QString host;
        QString path;
        QByteArray before;
        QByteArray beforeSha256; ///< hex; apply() requires the file to still have it
        QByteArray after;
        uint permissions = 0644; ///< of the file when planned; its backup gets them too
        QString diff;            ///< unified diff, before → after
        /// The same with secret knobs' values redacted (redaction.h): for the audit log.
        QString auditDiff;
        QVector<KnobChange> changes;
        /// "set SGLANG_X=1", "comment --x", "restore from <backup>"; a secret
        /// knob's value redacted.
        QString what;
        int line = 0; ///< first line that changes
    };
    struct Applied
    {
        bool ok = false;
        QString error; ///< what stopped it; says whether the script was changed
        QString backupPath;
        QByteArray backupSha256; ///< hex
        QByteArray afterSha256;  ///< hex
    };
    struct Backup
    {
        QString path;
        bool byOpsDeck = false; ///< `.opsdeck-<time>.bak`; else made by hand
        qint64 modifiedMsecs = 0;
        qint64 size = 0;
        QByteArray sha256;           ///< hex; empty when it could not be read
        QVector<KnobChange> changes; ///< the script now compared with it (backup → now)
        QString error;
    };
    /// Called once its audit entry is on disk (`ok`), or could not be written
    /// (`error` says why); on the thread of the KnobFiles.
    using AuditDone = std::function<void(bool ok, const QString &error)>;
    /// Writes an audit entry of apply() and then calls `done`: `action` "edit"
    /// before the script is written (not ok: it stops, nothing is changed),
    /// then "edited" or "edit-failed" (state.error says why) once that is
    /// known. `state` holds the backup's path and hash. May answer at once
    /// (the command line) or later from an auditor's thread (the window).
    using AuditStep = std::function<void(const Plan &plan, const Applied &state,
                                         const QString &action, AuditDone done)>;

    void read(const QString &path, std::function<void(const Read &)> done);
    void plan(const QString &path, const ScriptEdit &edit, std::function<void(const Plan &)> done);
    /// Putting `backupPath` (a file beside the script) back: the same apply().
    void planRestore(const QString &path, const QString &backupPath,
                     std::function<void(const Plan &)> done);
    void apply(const Plan &plan, AuditStep audit, std::function<void(const Applied &)> done);
    /// Backups beside the script: OpsDeck's and `<script>.bak`,
    /// `<script>.*.bak`, `<script>.orig`, `<script>~`; newest first.
    void backups(const QString &path, std::function<void(const QVector<Backup> &)> done);
    /// The same, compared with `current`, the script's bytes just read.
    void backupsAgainst(const QString &path, const QByteArray &current,
                        std::function<void(const QVector<Backup> &)> done);
    /// `bash -n` on the host: empty when bash can parse the file, else bash's
    /// message ("line 4: syntax error near unexpected token `('").
    void syntaxCheck(const QString &path, std::function<void(const QString &)> done);

    /// The audit log's entry for `action` of apply(): kind `knob`, the host,
    /// and as detail the path, what (a secret's value redacted), the backup's
    /// path and SHA-256, the error if any, and the redacted diff.
    static history::AuditEntry auditEntry(const Plan &plan, const Applied &state,
                                          const QString &action);
    /// The backup that holds the script as it was at `msecs`: the first
    /// OpsDeck backup made after it (it holds the script from before that
    /// edit), else the newest backup from before it; nullptr when none.
    /// `backups` newest first, as backups() gives them.
    static const Backup *backupAsOf(const QVector<Backup> &backups, qint64 msecs);
    /// True when `name` is a backup of the script named `scriptName`.
    static bool isBackupName(const QString &scriptName, const QString &name, bool *byOpsDeck);
    static QByteArray sha256(const QByteArray &bytes);

private:
    using FileThen = std::function<void(const remote::RemoteFileResult &)>;
    void call(quint64 id, FileThen then);
    void onFile(quint64 id, const remote::RemoteFileResult &result);
    /// `<path>.opsdeck-<UTC second>[-N].bak`, the first not taken; empty
    /// when kMaxBackupsPerSecond are taken (the edit then fails).
    void backupName(const QString &path, int attempt, std::function<void(const QString &)> done);
    static constexpr int kMaxBackupsPerSecond = 20;
    /// Calls `then` with why `path` cannot be changed when it is a symbolic
    /// link (list(), which does not follow links) or a file with another
    /// name (a hard link: the atomic write would leave that name on the old
    /// script), else with an empty text.
    void refuseLink(const QString &path, std::function<void(const QString &)> then);
    /// `go` when `path` is no link and not named as one of OpsDeck's own
    /// files (inventory::isOwnFileName()), else `done` with the refusal.
    void unlessLink(const QString &path, std::function<void(const Plan &)> done,
                    std::function<void()> go);
    void planEdit(const QString &path, const ScriptEdit &edit,
                  std::function<void(const Plan &)> done);
    void planRestoreOf(const QString &path, const QString &backupPath,
                       std::function<void(const Plan &)> done);
    void planBytes(const Read &read, const QString &path, const QByteArray &after,
                   const QString &what, int line, std::function<void(const Plan &)> done);
    void hashBackups(QVector<Backup> backups, int next, QByteArray current,
                     std::function<void(const QVector<Backup> &)> done);
    void writeScript(const Plan &plan, std::shared_ptr<Applied> state,
                     std::function<void(const QString &, bool)> fail, AuditStep audit,
                     std::function<void(const Applied &)> done);

    remote::RemoteFiles *m_files;
    remote::Transport *m_transport;
    QHash<quint64, FileThen> m_pending;
    QHash<quint64, std::function<void(const QString &)>> m_checks;
};

} // namespace opsdeck::knobs

Q_DECLARE_METATYPE(opsdeck::knobs::KnobFiles::Plan)
Q_DECLARE_METATYPE(opsdeck::knobs::KnobFiles::Applied)
