#pragma once

#include "checkrecord.h"
#include "historypoint.h"
#include "historysample.h"
#include "marker.h"
#include "retention.h"
#include "rollup.h"
#include "seriesinfo.h"
#include "walbase.h"

#include <QSqlError>
#include <QString>
#include <QVector>
#include <memory>
#include <optional>

class QSqlQuery;

namespace opsdeck::history {

/// The history database: one SQLite file (`history.sqlite` in the data dir)
/// through Qt Sql (QSQLITE), in WAL mode (readers never wait for the
/// writer), synchronous=NORMAL (a power cut may lose the last transaction,
/// never corrupt the file), busy_timeout 5 s. After each write (a batch, a
/// marker, a check) the WAL is checkpointed and truncated unless a reader is
/// in a query at that moment: SQLite replays a WAL into whatever file has
/// the database's name, so one left by a killed writer would overwrite a
/// file restored by hand; kept empty, it holds at most the write in flight.
///
/// Schema (user_version 2; version 1 lacked `checks`, which open() adds):
///   series(id, service, key, unit, UNIQUE(service, key))
///   blocks(id, series_id, start_ms, end_ms, count, data BLOB)
///       raw samples, up to a few hundred per row, SampleBlockCodec-encoded;
///       start_ms/end_ms are the block's oldest/newest sample time (ms)
///   rollups_1m(series_id, minute_ms, min, max, mean, last, count)
///       per minute of finite samples; PRIMARY KEY(series_id, minute_ms)
///   markers(id, time_ms, kind, text, link, service)
///   checks(id, time_ms, kind, cluster, json)
///       one batch check or staged verification each, its whole JSON result
/// All times are ms since the Unix epoch.
///
/// Only one HistoryWriter writes samples (it holds a lock file); any number
/// of stores may read, and markers and checks may be added from any store.
/// Thread: each instance owns its own connection (a unique connection name)
/// and must be created, used and destroyed on one thread. Errors: calls
/// return false / nothing and lastError() names the file and SQLite's reason.
class HistoryStore
{
public:
    /// `path`: the database file; created with its schema by open().
    explicit HistoryStore(const QString &path);
    ~HistoryStore();
    HistoryStore(const HistoryStore &) = delete;
    HistoryStore &operator=(const HistoryStore &) = delete;

    /// `<dataDir>/history.sqlite`.
    static QString pathIn(const QString &dataDir);

    /// Opens (creating the file and schema when missing). `checkFirst`: run
    /// quickCheck() before any statement that could write, and fail on a
    /// corrupt file (lastErrorIsCorruption()) leaving it byte for byte.
    /// Fails, writing nothing, on a file of a newer schema (`user_version`
    /// above kSchemaVersion) or one holding tables OpsDeck does not keep
    /// (another program's SQLite database).
    bool open(bool checkFirst = false);
    /// The schema this build writes (`PRAGMA user_version`); 2 added `checks`.
    static constexpr int kSchemaVersion = 2;
    bool isOpen() const;
    QString path() const { return m_path; }
    QString lastError() const { return m_error; }
    /// What open() did that the user must hear of, without failing: a WAL
    /// left by a killed process for a file since replaced, set aside instead
    /// of replayed (WalBase). Empty otherwise.
    QString openNotice() const { return m_notice; }
    /// True when the last error was SQLite's "corrupt" (SQLITE_CORRUPT) or
    /// "not a database" (SQLITE_NOTADB): writing on would lose more.
    bool lastErrorIsCorruption() const { return m_corrupt; }
    /// Whether the file was written in place by another program while open
    /// (WalBase::writtenOutside(): a backup copied over it): the text naming
    /// it, else empty. Then keepWalOnClose() before closing.
    QString writtenOutside() const { return m_walBase.writtenOutside(); }
    /// From now on no checkpoint of this connection, nor its close, writes
    /// the WAL's pages into the file (they belong to the file as it was; the
    /// next open sets them aside).
    void keepWalOnClose();
    /// `PRAGMA quick_check`: empty when the file is sound, else SQLite's first
    /// findings (and lastErrorIsCorruption() is true). O(size of the file).
    QString quickCheck();

    // Writing (the writer's thread). A batch is one transaction.
    bool beginBatch();
    bool commitBatch();
    void rollbackBatch();
    /// The id of (service, key), created when new; its unit is updated.
    std::optional<qint64> seriesId(const QString &service, const QString &key, const QString &unit);
    /// Writes a block of samples (ordered by time or not); `blockId` 0 inserts
    /// a new row, else rewrites that row in place. Returns the row id.
    std::optional<qint64> writeBlock(qint64 seriesId, qint64 blockId,
                                     const QVector<Sample> &samples);
    /// Adds a minute's summary, merged with what the row already holds (a
    /// minute split across a restart is summarised once, from both parts).
    bool mergeRollup(qint64 seriesId, const Rollup &rollup);
    /// Returns the new marker's id.
    std::optional<qint64> addMarker(const Marker &marker);
    /// Opens the database at `databasePath` on this thread, adds `marker` and
    /// closes it: for a command or job that leaves one marker. Nothing (with
    /// `error` naming the file and SQLite's reason) when it could not.
    static std::optional<qint64> addMarkerTo(const QString &databasePath, const Marker &marker,
                                             QString *error = nullptr);
    /// Saves a check's result (any store, like markers). Returns the row's id.
    std::optional<qint64> addCheck(const CheckRecord &check);
    /// Deletes raw blocks and rollups past `retention`, measured back from
    /// `nowMs`. Returns the number of rows deleted, or nothing on error.
    std::optional<qint64> prune(const Retention &retention, qint64 nowMs);

    // Reading.
    /// Points of one series in [fromMs, toMs], oldest first: raw samples
    /// where raw blocks are still kept, 1-minute rollups (mean, min, max)
    /// before the oldest kept raw sample. Empty for an unknown series.
    QVector<HistoryPoint> points(const QString &service, const QString &key, qint64 fromMs,
                                 qint64 toMs);
    /// Raw samples only, in [fromMs, toMs], oldest first.
    QVector<Sample> rawSamples(const QString &service, const QString &key, qint64 fromMs,
                               qint64 toMs);
    /// 1-minute rollups whose minute starts in [fromMs, toMs], oldest first.
    QVector<Rollup> rollups(const QString &service, const QString &key, qint64 fromMs, qint64 toMs);
    /// Markers with time in [fromMs, toMs], oldest first.
    QVector<Marker> markers(qint64 fromMs, qint64 toMs);
    /// Checks with time in [fromMs, toMs], oldest first; only those of `kind`
    /// when it is not empty.
    QVector<CheckRecord> checks(qint64 fromMs, qint64 toMs, const QString &kind = {});
    QVector<SeriesInfo> seriesList();

private:
    /// False (lastError() saying why) for a newer schema or another program's tables.
    bool isOurs();
    bool exec(const QString &sql);
    bool fail(const QString &what, const QString &reason);
    bool fail(const QString &what, const QSqlError &error);
    std::optional<qint64> findSeries(const QString &service, const QString &key);
    QVector<Sample> rawOf(qint64 seriesId, qint64 fromMs, qint64 toMs);
    QVector<Rollup> rollupsOf(qint64 seriesId, qint64 fromMs, qint64 toMs);

    /// The statement in `slot`, prepared on first use and kept: the writer
    /// runs the same few statements for every series at every flush, and
    /// parsing them each time was most of its SQLite cost.
    QSqlQuery &prepared(std::unique_ptr<QSqlQuery> &slot, const QString &sql);
    /// After each write: checkpoints the WAL into the file and truncates it
    /// (see the class comment); nothing after keepWalOnClose(). A file
    /// written outside since the last checkpoint is not written into (and
    /// keepWalOnClose() follows), unless `adopt`: the checkpoint ending open().
    void emptyWal(bool adopt = false);

    QString m_path;
    QString m_connection; ///< unique Qt Sql connection name of this instance
    QString m_error;
    QString m_notice;
    bool m_corrupt = false;
    bool m_keepWal = false; ///< keepWalOnClose() was called
    WalBase m_walBase;      ///< every checkpoint goes through it
    std::unique_ptr<QSqlQuery> m_insertBlock;
    std::unique_ptr<QSqlQuery> m_updateBlock;
    std::unique_ptr<QSqlQuery> m_mergeRollup;
};

} // namespace opsdeck::history
