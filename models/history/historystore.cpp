#include "historystore.h"

#include "privatefiles.h"
#include "sampleblockcodec.h"

#include <QDir>
#include <QFileInfo>
#include <QSqlDatabase>
#include <QSqlDriver>
#include <QSqlError>
#include <QSqlQuery>
#include <QVariant>
#include <algorithm>
#include <atomic>
#include <spdlog/spdlog.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

namespace opsdeck::history {

namespace {

std::atomic<quint64> connectionCounter{0};

const char *const schema[] = {
    "CREATE TABLE IF NOT EXISTS series(id INTEGER PRIMARY KEY, service TEXT NOT NULL, "
    "key TEXT NOT NULL, unit TEXT NOT NULL DEFAULT '', UNIQUE(service, key))",
    "CREATE TABLE IF NOT EXISTS blocks(id INTEGER PRIMARY KEY, series_id INTEGER NOT NULL, "
    "start_ms INTEGER NOT NULL, end_ms INTEGER NOT NULL, count INTEGER NOT NULL, "
    "data BLOB NOT NULL)",
    "CREATE INDEX IF NOT EXISTS blocks_by_series ON blocks(series_id, end_ms)",
    "CREATE INDEX IF NOT EXISTS blocks_by_end ON blocks(end_ms)",
    "CREATE TABLE IF NOT EXISTS rollups_1m(series_id INTEGER NOT NULL, "
    "minute_ms INTEGER NOT NULL, min REAL, max REAL, mean REAL, last REAL, "
    "count INTEGER NOT NULL, PRIMARY KEY(series_id, minute_ms)) WITHOUT ROWID",
    "CREATE INDEX IF NOT EXISTS rollups_by_minute ON rollups_1m(minute_ms)",
    "CREATE TABLE IF NOT EXISTS markers(id INTEGER PRIMARY KEY, time_ms INTEGER NOT NULL, "
    "kind TEXT NOT NULL, text TEXT NOT NULL DEFAULT '', link TEXT NOT NULL DEFAULT '', "
    "service TEXT NOT NULL DEFAULT '')",
    "CREATE INDEX IF NOT EXISTS markers_by_time ON markers(time_ms)",
    // Version 2 adds `checks`; a version-1 file gains it here, untouched otherwise.
    "CREATE TABLE IF NOT EXISTS checks(id INTEGER PRIMARY KEY, time_ms INTEGER NOT NULL, "
    "kind TEXT NOT NULL, cluster TEXT NOT NULL DEFAULT '', json TEXT NOT NULL)",
    "CREATE INDEX IF NOT EXISTS checks_by_time ON checks(time_ms)",
    "PRAGMA user_version = 2", // HistoryStore::kSchemaVersion
};

} // namespace

HistoryStore::HistoryStore(const QString &path)
    : m_path(QFileInfo(path).absoluteFilePath()),
      m_connection(QStringLiteral("opsdeck-history-%1").arg(connectionCounter++)), m_walBase(m_path)
{
}

HistoryStore::~HistoryStore()
{
    m_insertBlock.reset();
    m_updateBlock.reset();
    m_mergeRollup.reset();
    {
        QSqlDatabase db = QSqlDatabase::database(m_connection, false);
        // Emptied first, with its record: closing checkpoints on its own.
        if (db.isOpen())
            emptyWal();
        if (db.isValid() && db.isOpen()) {
            db.close();
            m_walBase.closed();
        }
    }
    if (QSqlDatabase::contains(m_connection))
        QSqlDatabase::removeDatabase(m_connection);
}

QSqlQuery &HistoryStore::prepared(std::unique_ptr<QSqlQuery> &slot, const QString &sql)
{
    if (!slot) {
        slot = std::make_unique<QSqlQuery>(QSqlDatabase::database(m_connection, false));
        slot->prepare(sql); // a failure shows in exec()'s error, as before
    }
    return *slot;
}

QString HistoryStore::pathIn(const QString &dataDir)
{
    return QDir(dataDir).absoluteFilePath(QStringLiteral("history.sqlite"));
}

bool HistoryStore::fail(const QString &what, const QString &reason)
{
    m_error = QStringLiteral("%1: %2: %3").arg(m_path, what, reason);
    m_corrupt = false;
    return false;
}

bool HistoryStore::fail(const QString &what, const QSqlError &error)
{
    fail(what, error.text());
    // The driver gives SQLite's extended code; the primary one is its low byte.
    constexpr int sqliteCorrupt = 11;
    constexpr int sqliteNotADatabase = 26;
    bool numeric = false;
    const int code = error.nativeErrorCode().toInt(&numeric) & 0xff;
    m_corrupt = numeric && (code == sqliteCorrupt || code == sqliteNotADatabase);
    return false;
}

QString HistoryStore::quickCheck()
{
    QSqlQuery query(QSqlDatabase::database(m_connection, false));
    if (!query.exec(QStringLiteral("PRAGMA quick_check(5)"))) {
        fail(QStringLiteral("quick_check"), query.lastError());
        return m_error;
    }
    QStringList findings;
    while (query.next())
        findings << query.value(0).toString();
    if (findings == QStringList{QStringLiteral("ok")})
        return {};
    fail(QStringLiteral("quick_check"), findings.join(QStringLiteral("; ")));
    m_corrupt = true;
    return m_error;
}

bool HistoryStore::exec(const QString &sql)
{
    QSqlQuery query(QSqlDatabase::database(m_connection, false));
    if (!query.exec(sql))
        return fail(sql.section(QLatin1Char(' '), 0, 2), query.lastError());
    return true;
}

bool HistoryStore::open(bool checkFirst)
{
    m_insertBlock.reset(); // prepared on the connection being replaced
    m_updateBlock.reset();
    m_mergeRollup.reset();
    QString why;
    if (!settings::PrivateFiles::makeDir(QFileInfo(m_path).absolutePath(), &why))
        return fail(QStringLiteral("open"), why);
    // Before SQLite opens (and writes) any of them, or the WAL's record is
    // written: a link or a second name would be written through.
    for (const QString &suffix :
         {QString(), QStringLiteral("-wal"), QStringLiteral("-shm"), QStringLiteral("-walbase")}) {
        if (!settings::PrivateFiles::ownOrAbsent(m_path + suffix, &why))
            return fail(QStringLiteral("open"), why);
    }
    const WalBase::Check wal = m_walBase.setAsideForeignWal();
    if (wal.refuse)
        return fail(QStringLiteral("open"), wal.text);
    m_notice = wal.text;
    if (!m_notice.isEmpty())
        spdlog::warn("history: {}", m_notice.toStdString());
    QSqlDatabase db = QSqlDatabase::contains(m_connection)
                          ? QSqlDatabase::database(m_connection, false)
                          : QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), m_connection);
    db.setDatabaseName(m_path);
    db.setConnectOptions(QStringLiteral("QSQLITE_BUSY_TIMEOUT=5000"));
    if (!db.open())
        return fail(QStringLiteral("open"), db.lastError());
    // Before any statement that could write: a corrupt file is left as it is.
    if (checkFirst && !quickCheck().isEmpty())
        return false;
    if (!isOurs())
        return false;
    // WAL: the console reads while the recorder writes; NORMAL is safe in WAL
    // (a crash loses at most the last transaction, never the file). No
    // automatic checkpoints: the file is written only by emptyWal(), which
    // keeps the WAL's record (WalBase).
    for (const char *pragma : {"PRAGMA journal_mode=WAL", "PRAGMA synchronous=NORMAL",
                               "PRAGMA busy_timeout=5000", "PRAGMA wal_autocheckpoint=0"}) {
        if (!exec(QString::fromLatin1(pragma)))
            return false;
    }
    for (const char *statement : schema) {
        if (!exec(QString::fromLatin1(statement)))
            return false;
    }
    // SQLite creates them 0644 less the umask: the user's alone, whoever opened
    // first. By path, never by opening them: closing another descriptor of the
    // database would drop the POSIX locks SQLite holds in this process.
    for (const QString &suffix : {QString(), QStringLiteral("-wal"), QStringLiteral("-shm")}) {
        const QByteArray file = QFile::encodeName(m_path + suffix);
        struct stat st = {};
        if (::lstat(file.constData(), &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == ::getuid() &&
            (st.st_mode & 077) != 0)
            ::chmod(file.constData(), st.st_mode & 0700);
    }
    emptyWal(true); // the schema's pages too, and SQLite's own setup of a new file
    return true;
}

bool HistoryStore::isOurs()
{
    QSqlQuery query(QSqlDatabase::database(m_connection, false));
    if (!query.exec(QStringLiteral("PRAGMA user_version")) || !query.next())
        return fail(QStringLiteral("user_version"), query.lastError());
    const int version = query.value(0).toInt();
    // A newer OpsDeck's file: pruned and written by this one's rules, it
    // would lose what the newer one keeps, and its version would go back.
    if (version > kSchemaVersion)
        return fail(QStringLiteral("open"),
                    QStringLiteral("written by a newer OpsDeck (schema %1; this one knows up to "
                                   "%2): not opened, nothing written")
                        .arg(version)
                        .arg(kSchemaVersion));
    QStringList foreign;
    if (!query.exec(QStringLiteral("SELECT name FROM sqlite_master WHERE type = 'table' AND name "
                                   "NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND name NOT IN ('series', "
                                   "'blocks', 'rollups_1m', 'markers', 'checks') ORDER BY name")))
        return fail(QStringLiteral("open"), query.lastError());
    while (query.next())
        foreign << query.value(0).toString();
    if (!foreign.isEmpty())
        return fail(QStringLiteral("open"),
                    QStringLiteral("holds tables OpsDeck does not keep (%1): another program's "
                                   "database, not a history: not opened, nothing written")
                        .arg(foreign.join(QStringLiteral(", "))));
    return true;
}

bool HistoryStore::isOpen() const
{
    return QSqlDatabase::database(m_connection, false).isOpen();
}

bool HistoryStore::beginBatch()
{
    QSqlDatabase db = QSqlDatabase::database(m_connection, false);
    return db.transaction() || fail(QStringLiteral("begin"), db.lastError());
}

bool HistoryStore::commitBatch()
{
    QSqlDatabase db = QSqlDatabase::database(m_connection, false);
    if (!db.commit())
        return fail(QStringLiteral("commit"), db.lastError());
    emptyWal();
    return true;
}

void HistoryStore::emptyWal(bool adopt)
{
    // Without waiting (busy_timeout 0): a reader in the middle of a query
    // leaves the WAL as it is until the next write. A failure here loses
    // nothing, the pages stay in the WAL.
    if (m_keepWal)
        return;
    const bool ownFile = m_walBase.checkpointed(
        [this] {
            QSqlQuery query(QSqlDatabase::database(m_connection, false));
            query.exec(QStringLiteral("PRAGMA busy_timeout=0"));
            query.exec(QStringLiteral("PRAGMA wal_checkpoint(TRUNCATE)"));
            query.exec(QStringLiteral("PRAGMA busy_timeout=5000"));
        },
        adopt);
    // Written outside: the WAL's pages are another file's (an empty WAL
    // writes nothing as it closes).
    if (!ownFile && QFileInfo(m_path + QStringLiteral("-wal")).size() > 0)
        keepWalOnClose();
}

void HistoryStore::keepWalOnClose()
{
    m_keepWal = true;
    // The last connection to close checkpoints on its own, and Qt Sql offers
    // no switch for it: SQLite's, so that the pages never reach the file.
    const QVariant handle = QSqlDatabase::database(m_connection, false).driver()->handle();
    if (handle.isValid() && qstrcmp(handle.typeName(), "sqlite3*") == 0)
        if (sqlite3 *connection = *static_cast<sqlite3 *const *>(handle.data()))
            sqlite3_db_config(connection, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, nullptr);
}

void HistoryStore::rollbackBatch()
{
    QSqlDatabase::database(m_connection, false).rollback();
}

std::optional<qint64> HistoryStore::seriesId(const QString &service, const QString &key,
                                             const QString &unit)
{
    QSqlQuery query(QSqlDatabase::database(m_connection, false));
    query.prepare(
        QStringLiteral("INSERT INTO series(service, key, unit) VALUES(?, ?, coalesce(?, '')) "
                       "ON CONFLICT(service, key) DO UPDATE SET unit = excluded.unit"));
    query.addBindValue(service);
    query.addBindValue(key);
    query.addBindValue(unit);
    if (!query.exec()) {
        fail(QStringLiteral("series %1/%2").arg(service, key), query.lastError());
        return std::nullopt;
    }
    return findSeries(service, key);
}

std::optional<qint64> HistoryStore::findSeries(const QString &service, const QString &key)
{
    QSqlQuery query(QSqlDatabase::database(m_connection, false));
    query.prepare(QStringLiteral("SELECT id FROM series WHERE service = ? AND key = ?"));
    query.addBindValue(service);
    query.addBindValue(key);
    if (!query.exec()) {
        fail(QStringLiteral("series %1/%2").arg(service, key), query.lastError());
        return std::nullopt;
    }
    if (!query.next())
        return std::nullopt;
    return query.value(0).toLongLong();
}

std::optional<qint64> HistoryStore::writeBlock(qint64 seriesId, qint64 blockId,
                                               const QVector<Sample> &samples)
{
    if (samples.isEmpty())
        return blockId;
    const auto [oldest, newest] =
        std::minmax_element(samples.cbegin(), samples.cend(),
                            [](const Sample &a, const Sample &b) { return a.timeMs < b.timeMs; });
    QSqlQuery &query =
        blockId == 0
            ? prepared(m_insertBlock, QStringLiteral("INSERT INTO blocks(start_ms, end_ms, "
                                                     "count, data, series_id) "
                                                     "VALUES(?, ?, ?, ?, ?)"))
            : prepared(m_updateBlock, QStringLiteral("UPDATE blocks SET start_ms = ?, "
                                                     "end_ms = ?, count = ?, data = ? "
                                                     "WHERE id = ?"));
    query.bindValue(0, oldest->timeMs);
    query.bindValue(1, newest->timeMs);
    query.bindValue(2, static_cast<qint64>(samples.size()));
    query.bindValue(3, SampleBlockCodec::encode(samples));
    query.bindValue(4, blockId == 0 ? seriesId : blockId);
    if (!query.exec()) {
        fail(QStringLiteral("write block"), query.lastError());
        return std::nullopt;
    }
    return blockId == 0 ? query.lastInsertId().toLongLong() : blockId;
}

bool HistoryStore::mergeRollup(qint64 seriesId, const Rollup &rollup)
{
    if (rollup.count <= 0)
        return true;
    QSqlQuery &query = prepared(
        m_mergeRollup,
        QStringLiteral(
            "INSERT INTO rollups_1m(series_id, minute_ms, min, max, mean, last, count) "
            "VALUES(?, ?, ?, ?, ?, ?, ?) ON CONFLICT(series_id, minute_ms) DO UPDATE SET "
            "min = min(min, excluded.min), max = max(max, excluded.max), "
            "mean = (mean * count + excluded.mean * excluded.count) / (count + excluded.count), "
            "last = excluded.last, count = count + excluded.count"));
    int position = 0;
    for (const QVariant &value :
         {QVariant(seriesId), QVariant(rollup.minuteMs), QVariant(rollup.min), QVariant(rollup.max),
          QVariant(rollup.mean), QVariant(rollup.last), QVariant(rollup.count)})
        query.bindValue(position++, value);
    return query.exec() || fail(QStringLiteral("write rollup"), query.lastError());
}

std::optional<qint64> HistoryStore::addMarkerTo(const QString &databasePath, const Marker &marker,
                                                QString *error)
{
    HistoryStore store(databasePath);
    std::optional<qint64> id = store.open() ? store.addMarker(marker) : std::nullopt;
    if (!id && error)
        *error = store.lastError();
    return id;
}

std::optional<qint64> HistoryStore::addMarker(const Marker &marker)
{
    QSqlQuery query(QSqlDatabase::database(m_connection, false));
    query.prepare(QStringLiteral(
        "INSERT INTO markers(time_ms, kind, text, link, service) "
        "VALUES(?, coalesce(?, ''), coalesce(?, ''), coalesce(?, ''), coalesce(?, ''))"));
    query.addBindValue(marker.timeMs);
    query.addBindValue(marker.kind);
    query.addBindValue(marker.text);
    query.addBindValue(marker.link);
    query.addBindValue(marker.service);
    if (!query.exec()) {
        fail(QStringLiteral("add marker"), query.lastError());
        return std::nullopt;
    }
    const qint64 id = query.lastInsertId().toLongLong();
    query.finish();
    emptyWal();
    return id;
}

std::optional<qint64> HistoryStore::addCheck(const CheckRecord &check)
{
    QSqlQuery query(QSqlDatabase::database(m_connection, false));
    query.prepare(QStringLiteral("INSERT INTO checks(time_ms, kind, cluster, json) "
                                 "VALUES(?, coalesce(?, ''), coalesce(?, ''), ?)"));
    query.addBindValue(check.timeMs);
    query.addBindValue(check.kind);
    query.addBindValue(check.cluster);
    query.addBindValue(QString::fromUtf8(check.json));
    if (!query.exec()) {
        fail(QStringLiteral("add check"), query.lastError());
        return std::nullopt;
    }
    const qint64 id = query.lastInsertId().toLongLong();
    query.finish();
    emptyWal();
    return id;
}

std::optional<qint64> HistoryStore::prune(const Retention &retention, qint64 nowMs)
{
    qint64 deleted = 0;
    const struct
    {
        const char *sql;
        qint64 cutoff;
    } steps[] = {{"DELETE FROM blocks WHERE end_ms < ?", nowMs - retention.rawMs},
                 {"DELETE FROM rollups_1m WHERE minute_ms < ?", nowMs - retention.rollupMs}};
    for (const auto &step : steps) {
        QSqlQuery query(QSqlDatabase::database(m_connection, false));
        query.prepare(QString::fromLatin1(step.sql));
        query.addBindValue(step.cutoff);
        if (!query.exec()) {
            fail(QStringLiteral("prune"), query.lastError());
            return std::nullopt;
        }
        deleted += query.numRowsAffected();
    }
    return deleted;
}

} // namespace opsdeck::history
