#pragma once

#include "commandrequest.h"
#include "commandresult.h"

#include <QMetaType>
#include <QString>
#include <QStringList>
#include <QVector>
#include <optional>

namespace opsdeck::knobs {

/// "What changed since": the files under a host's watched folders modified
/// after a time, found by one command on the host (`find -newermt`, as an
/// engineer would type it), and the git state of folders inside a work tree.
/// Bounded: at most `kMaxFiles` files are listed; `total` counts them all.
/// Folders are named as the host's shell would (`~/x`, `$HOME/x`, relative to
/// the home), never as find's options (`-delete` is the folder `./-delete`);
/// the records cross as NUL-separated base64, so no file name forges one.
struct ChangedSince
{
    static constexpr int kMaxFiles = 10000;

    struct File
    {
        QString path;
        qint64 modifiedMsecs = 0; ///< ms since the Unix epoch
        qint64 size = 0;          ///< bytes
    };
    struct Git
    {
        QString folder;    ///< the watched folder
        QString topLevel;  ///< its work tree
        QString head;      ///< HEAD's commit
        QStringList dirty; ///< `git status --porcelain` lines (at most 100)
    };

    qint64 sinceMsecs = 0; ///< the time, as the host resolved it
    QVector<File> files;   ///< newest first
    qint64 total = 0;      ///< files found (more than files.size() past the bound)
    QVector<Git> git;
    /// Watched folders that are not there (or not folders) on the host.
    QStringList missing;
    QString error; ///< why nothing could be listed; names the host

    /// How `date -d` on the host reads a user's time: ISO 8601 as written,
    /// `HH:MM` as today at that time (the host's local time), `2h`, `30m`,
    /// `1d` as that long ago, `@EPOCH` as is; nullopt for anything else.
    static std::optional<QString> dateSpec(const QString &time);
    /// The command: `folders` on the host, since `dateSpec`.
    static remote::CommandRequest request(const QStringList &folders, const QString &dateSpec);
    static ChangedSince parse(const remote::CommandResult &result, const QString &host);
};

} // namespace opsdeck::knobs

Q_DECLARE_METATYPE(opsdeck::knobs::ChangedSince)
