#include "auditlog.h"

#include "privatefiles.h"
#include "privatelock.h"

#include <QCoreApplication>
#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMessageAuthenticationCode>
#include <QThread>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <optional>
#include <pwd.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

namespace opsdeck::history {

namespace {

const QByteArray firstPrev(64, '0');

QByteArray hashOf(const QByteArray &line)
{
    return QCryptographicHash::hash(line, QCryptographicHash::Sha256).toHex();
}

// The chain's link to `line`: keyed with the log's key when there is one.
QByteArray linkTo(const QByteArray &line, const std::optional<QByteArray> &key)
{
    if (!key)
        return hashOf(line);
    return QMessageAuthenticationCode::hash(line, *key, QCryptographicHash::Sha256).toHex();
}

// The head file: how many entries the log holds, its size and the last
// line's hash, so that a cut-off end is caught.
struct Head
{
    qint64 entries = 0;
    qint64 bytes = 0;
    QByteArray last; ///< SHA-256 (hex) of the last line, without its newline
    bool keyed = false;
    /// The first keyed line (0: none). A log may begin unkeyed while the
    /// keychain is slow to answer; from here on every line must be keyed.
    qint64 keyedFrom = 0;
    /// The first entry appended while the head was missing, or not written
    /// with the log's key (0: never): the lines before it cannot be vouched
    /// for, and a head written afresh must not bless them.
    qint64 lostAt = 0;
    /// The entry being appended (0: none): the head is written with it
    /// before its line, so that a writer killed after the line and before
    /// the head leaves a line the head expects (the file's size once it is
    /// in, and its hash), not one that reads as added behind its back.
    qint64 pendingBytes = 0;
    QByteArray pendingLast;
    /// Where the pending entry's line begins (-1: not said, a head of an
    /// older OpsDeck): only a cut-off line that begins right after the
    /// bytes the head counts is that entry's (tornTail()).
    qint64 pendingFrom = -1;
    QByteArray mac; ///< HMAC of the fields above when keyed

    QByteArray signedText() const
    {
        return QByteArray::number(entries) + '|' + QByteArray::number(bytes) + '|' + last + '|' +
               QByteArray::number(keyedFrom) +
               (lostAt > 0 ? "|lost" + QByteArray::number(lostAt) : QByteArray()) +
               (pendingBytes > 0 ? "|pending" + QByteArray::number(pendingBytes) + '|' + pendingLast
                                 : QByteArray()) +
               (pendingBytes > 0 && pendingFrom >= 0 ? "|from" + QByteArray::number(pendingFrom)
                                                     : QByteArray());
    }

    /// The head as the file stands: with its pending entry when the file
    /// ends with exactly that line (its writer died before confirming it),
    /// else without it (it never reached the file). Sets `landed`.
    Head settled(qint64 fileBytes, const QByteArray &lastHash, bool *landed) const
    {
        Head head = *this;
        *landed = pendingBytes > 0 && fileBytes == pendingBytes && lastHash == pendingLast;
        if (*landed) {
            head.entries += 1;
            head.bytes = pendingBytes;
            head.last = pendingLast;
        }
        head.pendingBytes = 0;
        head.pendingLast.clear();
        head.pendingFrom = -1;
        return head;
    }
};

std::optional<Head> readHead(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return std::nullopt;
    const QJsonObject o = QJsonDocument::fromJson(file.read(4096)).object();
    if (o.isEmpty())
        return std::nullopt;
    Head head;
    head.entries = o.value(QStringLiteral("entries")).toInteger(-1);
    head.bytes = o.value(QStringLiteral("bytes")).toInteger(-1);
    head.last = o.value(QStringLiteral("last")).toString().toLatin1();
    head.keyed = o.value(QStringLiteral("keyed")).toBool();
    head.keyedFrom = o.value(QStringLiteral("keyed_from")).toInteger(head.keyed ? 1 : 0);
    head.lostAt = o.value(QStringLiteral("head_lost_at")).toInteger(0);
    head.pendingBytes = o.value(QStringLiteral("pending_bytes")).toInteger(0);
    head.pendingLast = o.value(QStringLiteral("pending_last")).toString().toLatin1();
    head.pendingFrom = o.value(QStringLiteral("pending_from")).toInteger(-1);
    head.mac = o.value(QStringLiteral("mac")).toString().toLatin1();
    return head;
}

// Atomically: a temporary file beside it, fsynced, then renamed over it.
bool writeHead(const QString &path, const Head &head, const std::optional<QByteArray> &key,
               QString *error)
{
    QJsonObject o;
    o[QStringLiteral("entries")] = head.entries;
    o[QStringLiteral("bytes")] = head.bytes;
    o[QStringLiteral("last")] = QString::fromLatin1(head.last);
    o[QStringLiteral("keyed")] = bool(key);
    o[QStringLiteral("keyed_from")] = head.keyedFrom;
    if (head.lostAt > 0)
        o[QStringLiteral("head_lost_at")] = head.lostAt;
    if (head.pendingBytes > 0) {
        o[QStringLiteral("pending_bytes")] = head.pendingBytes;
        o[QStringLiteral("pending_last")] = QString::fromLatin1(head.pendingLast);
        if (head.pendingFrom >= 0)
            o[QStringLiteral("pending_from")] = head.pendingFrom;
    }
    if (key)
        o[QStringLiteral("mac")] = QString::fromLatin1(linkTo(head.signedText(), key));
    const QByteArray text = QJsonDocument(o).toJson(QJsonDocument::Compact) + '\n';
    QString why;
    if (settings::PrivateFiles::replace(path, text, &why))
        return true;
    if (error)
        *error = QStringLiteral("cannot write its head: %1").arg(why);
    return false;
}

// Lines in the file (a last line without its newline counts).
qint64 countLines(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return 0;
    qint64 lines = 0;
    bool pending = false;
    while (!file.atEnd()) {
        const QByteArray chunk = file.read(1 << 16);
        lines += chunk.count('\n');
        pending = !chunk.endsWith('\n');
    }
    return lines + (pending ? 1 : 0);
}

QString loginName()
{
    if (const passwd *pw = ::getpwuid(::getuid()))
        return QString::fromLocal8Bit(pw->pw_name);
    return QString::number(::getuid());
}

// The end of the file as append() needs it: the last line's bytes (without
// its newline; empty when the file is empty) and whether it ends with one.
// A line cut off (a writer that died, a full disk, a hand edit) is still the
// line before ours: the next entry goes on a line of its own after it and
// chains to it, so verify() names that one line and read() keeps ours.
struct LastLine
{
    QByteArray bytes;
    bool complete = true;
};

LastLine lastLine(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    const qint64 size = file.size();
    // An entry is far below 64 KiB, so one tail read keeps append O(1); a
    // longer line (a huge detail) widens the read until its start is found,
    // else its hash would be of its tail only and break the chain.
    for (qint64 tail = 64 * 1024;; tail *= 4) {
        const qint64 from = std::max<qint64>(0, size - tail);
        file.seek(from);
        const QByteArray bytes = file.readAll();
        LastLine last;
        last.complete = bytes.isEmpty() || bytes.endsWith('\n');
        const qsizetype end = last.complete ? bytes.size() - 1 : bytes.size();
        const qsizetype start = end > 0 ? bytes.lastIndexOf('\n', end - 1) : -1;
        if (start < 0 && from > 0)
            continue;
        last.bytes = bytes.mid(start + 1, std::max<qsizetype>(0, end - start - 1));
        return last;
    }
}

// The bytes at the end of the log at `path` (`size` bytes) that are the
// start of the entry `head` names as pending, cut off by its writer's death
// (a kill, a file size limit) in the middle of its line: its line began
// right after the bytes the head counts (so no byte before it is another's),
// and what is there is shorter than it, with no newline. That entry's append
// never returned, so what it records did not happen. 0: none.
qint64 tornTail(const Head &head, const QString &path, qint64 size)
{
    if (head.pendingBytes <= 0 || head.bytes < 0 || head.pendingFrom != head.bytes ||
        size <= head.bytes || size >= head.pendingBytes)
        return 0;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly) || !file.seek(head.bytes))
        return 0;
    const QByteArray part = file.read(size - head.bytes);
    // An entry's line begins with its first key (QJsonObject keeps them
    // sorted) and holds no newline before its end.
    static const QByteArray begins = QByteArrayLiteral("{\"action\":");
    if (part.size() != size - head.bytes || part.contains('\n') ||
        !(part.startsWith(begins) || begins.startsWith(part)))
        return 0;
    return part.size();
}

// Whether line `anchor.entries` of the log has the anchor's keyed link.
bool anchorHeld(const QString &path, const AuditAnchor &anchor, const QByteArray &key)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return false;
    for (qint64 number = 1; !file.atEnd(); ++number) {
        QByteArray line = file.readLine();
        if (number < anchor.entries)
            continue;
        if (line.endsWith('\n'))
            line.chop(1);
        return linkTo(line, key) == anchor.link;
    }
    return false;
}

} // namespace

AuditLog::AuditLog(QString path, KeySource keySource, AnchorSink anchorSink)
    : m_path(std::move(path)), m_keySource(std::move(keySource)),
      m_anchorSink(std::move(anchorSink))
{
}

std::optional<AuditAnchor> AuditLog::knownAnchor(const ChainKey &chain) const
{
    return m_anchor ? m_anchor : chain.anchor;
}

void AuditLog::moveAnchor(const ChainKey &chain, qint64 headEntries, const QByteArray &prevLink,
                          const AuditAnchor &reached)
{
    const std::optional<AuditAnchor> known = knownAnchor(chain);
    // Usually the anchor is the line before ours (this process wrote both);
    // else the file is read up to it.
    const bool holds = !known || (known->entries == headEntries && known->link == prevLink) ||
                       anchorHeld(m_path, *known, *chain.usable());
    if (!holds) {
        spdlog::warn("audit log {}: the secret store's anchor (entry {}) is not in the log: "
                     "left where it is, as evidence",
                     m_path.toStdString(), known->entries);
        return;
    }
    m_anchor = reached;
    m_anchorSink(m_path, reached);
}

AuditLog::ChainKey AuditLog::chainKey(bool create) const
{
    const std::lock_guard lock(m_keyMutex);
    // A remembered "none" is asked again to create a key for a new log.
    if (!m_key || (create && m_key->state == ChainKey::State::None))
        m_key = m_keySource ? m_keySource(m_path, create)
                            : ChainKey{ChainKey::State::None, {}, {}}; // unkeyed by design
    return *m_key;
}

QString AuditLog::currentUser()
{
    return loginName();
}

bool AuditLog::holdsAnchor(const QString &path, const AuditAnchor &anchor, const QByteArray &key)
{
    return anchorHeld(path, anchor, key);
}

QString AuditLog::pathIn(const QString &dataDir)
{
    return QDir(dataDir).filePath(QStringLiteral("audit.jsonl"));
}

bool AuditLog::append(const AuditEntry &entry, QString *error)
{
    const std::lock_guard lock(m_mutex);
    auto fail = [&](const QString &why) {
        if (error)
            *error = QStringLiteral("audit log %1: %2").arg(m_path, why);
        return false;
    };
    QString why;
    if (!settings::PrivateFiles::makeDir(QFileInfo(m_path).absolutePath(), &why))
        return fail(why);
    const QString lockPath = m_path + QStringLiteral(".lock");
    // Neither the log, its head nor its lock is followed through a link another
    // user planted, and a FIFO in their place must not hang the action.
    if (!settings::PrivateFiles::regularOrAbsent(m_path, &why) ||
        !settings::PrivateFiles::regularOrAbsent(headPath(), &why))
        return fail(why);
    // Another process holds it only for one write + fsync.
    settings::PrivateLock fileLock(lockPath);
    if (!fileLock.take(10000, &why))
        return fail(why.startsWith(QStringLiteral("locked by"))
                        ? why + QStringLiteral(" Nothing was written")
                        : why);

    const std::optional<Head> stored = readHead(headPath());
    LastLine last = lastLine(m_path);
    qint64 size = QFileInfo(m_path).size();
    const bool fresh = !stored && last.bytes.isEmpty() && size == 0;
    const ChainKey chain = chainKey(fresh);
    const std::optional<QByteArray> key = chain.usable();
    if (stored && stored->keyed && !key)
        return fail(QStringLiteral("its chain is keyed and the key is not available (%1): "
                                   "nothing written")
                        .arg(chain.state == ChainKey::State::None
                                 ? QStringLiteral("the secret store has none for it")
                                 : chain.problem));
    // A head not written with the key is said for good below, never blessed.
    const bool headUnkeyed = stored && key && (stored->entries > 0 || stored->pendingBytes > 0) &&
                             (!stored->keyed || stored->mac != linkTo(stored->signedText(), key));
    // A part of the pending entry's line, its writer killed while writing
    // it, is taken out: chained to, it would break the log for good. Only
    // by a head this log's key vouches for.
    if (const qint64 torn =
            stored && stored->keyed && key && !headUnkeyed ? tornTail(*stored, m_path, size) : 0;
        torn > 0) {
        const int cut = settings::PrivateFiles::open(m_path, O_WRONLY, &why);
        if (cut < 0 || ::ftruncate(cut, stored->bytes) != 0 || ::fsync(cut) != 0) {
            if (cut >= 0)
                ::close(cut);
            return fail(QStringLiteral("cannot take out the %1 bytes of an entry cut off by "
                                       "its writer's death: nothing written")
                            .arg(torn));
        }
        ::close(cut);
        spdlog::warn("audit log {}: entry {} was cut off mid-line when its writer died ({} "
                     "bytes): taken out, what it records did not happen",
                     m_path.toStdString(), stored->entries + 1, torn);
        last = lastLine(m_path);
        size = stored->bytes;
    }
    bool landed = false;
    std::optional<Head> head;
    if (stored)
        head = stored->settled(size, hashOf(last.bytes), &landed);
    if (landed)
        spdlog::warn("audit log {}: entry {} was written by a process that died before "
                     "confirming it; it is counted",
                     m_path.toStdString(), head->entries);
    QJsonObject object;
    const QDateTime time = entry.time.isValid() ? entry.time : QDateTime::currentDateTimeUtc();
    object[QStringLiteral("time")] = time.toUTC().toString(Qt::ISODateWithMs);
    object[QStringLiteral("user")] = loginName();
    object[QStringLiteral("program")] = QCoreApplication::instance()
                                            ? QCoreApplication::applicationName()
                                            : QStringLiteral("opsdeck");
    object[QStringLiteral("pid")] = qint64(::getpid());
    object[QStringLiteral("kind")] = entry.kind;
    object[QStringLiteral("host")] = entry.host;
    object[QStringLiteral("action")] = entry.action;
    object[QStringLiteral("detail")] = entry.detail;
    if (!entry.workflow.isEmpty())
        object[QStringLiteral("workflow")] = entry.workflow;
    if (entry.markerId > 0)
        object[QStringLiteral("marker_id")] = entry.markerId;
    object[QStringLiteral("prev")] =
        QString::fromLatin1(last.bytes.isEmpty() ? firstPrev : linkTo(last.bytes, key));
    if (key)
        object[QStringLiteral("keyed")] = true;
    const QByteArray json = QJsonDocument(object).toJson(QJsonDocument::Compact);
    const QByteArray line = (last.complete ? QByteArray() : QByteArrayLiteral("\n")) + json + '\n';

    const int fd = settings::PrivateFiles::open(m_path, O_WRONLY | O_APPEND | O_CREAT, &why);
    if (fd < 0)
        return fail(why);
    const off_t before = ::lseek(fd, 0, SEEK_END);
    // Counted on from the head, not from the file: a cut before this entry stays visible.
    Head next;
    next.entries = (head ? head->entries : countLines(m_path)) + 1;
    next.bytes = before + line.size();
    next.last = hashOf(json);
    next.keyedFrom = head ? head->keyedFrom : 0;
    next.lostAt = head ? head->lostAt : 0;
    // A log with lines but no head (deleted), or a head not written with the
    // key: say so in the new head for good, never bless what came before.
    // An empty log without a head that this object wrote to before, or whose
    // key already existed with an anchor (so an entry went in), was emptied or
    // removed: not a new log. A key without an anchor is a first append's
    // whose writer died before its head was in place.
    const bool emptied =
        fresh && key && (m_appended || (!chain.created && knownAnchor(chain).has_value()));
    const bool headLost = (!head && before > 0) || emptied || headUnkeyed;
    if (headLost && next.lostAt == 0)
        next.lostAt = next.entries;
    if (key && next.keyedFrom == 0)
        next.keyedFrom = headLost ? 1 : next.entries;
    // The head names the entry before its line is written: a writer killed
    // in between leaves the head's pending entry, not a line it never counted.
    Head intent = next;
    intent.entries = next.entries - 1;
    intent.bytes = head ? head->bytes : before;
    intent.last = head ? head->last : (last.bytes.isEmpty() ? QByteArray() : hashOf(last.bytes));
    intent.pendingBytes = next.bytes;
    intent.pendingLast = next.last;
    intent.pendingFrom = before;
    if (!writeHead(headPath(), intent, key, &why)) {
        ::close(fd);
        return fail(why + QStringLiteral(" (nothing was written)"));
    }
    // QFile on our O_APPEND descriptor: it writes the line whole (retrying
    // short writes); the descriptor stays ours for fsync and close.
    QFile out;
    bool written =
        out.open(fd, QIODevice::WriteOnly | QIODevice::Append, QFileDevice::DontCloseHandle) &&
        out.write(line) == line.size() && out.flush();
    const QString writeError = out.errorString();
    out.close();
    written = written && ::fsync(fd) == 0;
    if (!written) {
        const QString why = writeError.isEmpty() || writeError == QLatin1String("Unknown error")
                                ? QString::fromLocal8Bit(std::strerror(errno))
                                : writeError;
        // Never leave half a line: it would break the chain for every later entry.
        if (before >= 0 && ::ftruncate(fd, before) == 0)
            ::fsync(fd);
        ::close(fd);
        // A first entry that did not go in (a full disk) leaves no head: a
        // keyed one would name a key the store may never have been given,
        // and refuse every later entry for want of it.
        if (!stored)
            QFile::remove(headPath());
        return fail(why);
    }
    const off_t after = ::lseek(fd, 0, SEEK_END);
    next.bytes = after;
    if (!writeHead(headPath(), next, key, &why)) {
        // The entry goes too: an action refused must leave no entry saying it
        // ran, and a line the head does not count would read as forged.
        const bool removed = ::ftruncate(fd, before) == 0 && ::fsync(fd) == 0;
        ::close(fd);
        if (removed && !stored) // as above: no head naming a key for nothing
            QFile::remove(headPath());
        return fail(why + (removed ? QStringLiteral(" (the entry was taken back out)")
                                   : QStringLiteral(" (the entry itself stays in the log)")));
    }
    ::close(fd);
    m_appended = true;
    if (key && m_anchorSink)
        moveAnchor(chain, head ? head->entries : -1,
                   last.bytes.isEmpty() ? QByteArray() : linkTo(last.bytes, key),
                   AuditAnchor{next.entries, linkTo(json, key)});
    return true;
}

QVector<AuditEntry> AuditLog::read(QStringList *problems) const
{
    QVector<AuditEntry> entries;
    // Read by the window's GUI thread too: a FIFO must not block it and a
    // link must not show another file as the trail (checked again on the
    // descriptor, so nothing swapped in between is read).
    QString why;
    const int fd = settings::PrivateFiles::regularOrAbsent(m_path, &why)
                       ? ::open(QFile::encodeName(m_path).constData(),
                                O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
                       : -1;
    struct stat st
    {
    };
    if (fd >= 0 && (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)))
        why = QStringLiteral("%1 is not a regular file: refused").arg(m_path);
    else if (fd < 0 && why.isEmpty() && errno != ENOENT)
        why = QStringLiteral("%1: %2").arg(m_path, QString::fromLocal8Bit(std::strerror(errno)));
    if (!why.isEmpty() || fd < 0) {
        if (fd >= 0)
            ::close(fd);
        if (problems && !why.isEmpty())
            *problems << why;
        return entries;
    }
    QFile file;
    if (!file.open(fd, QIODevice::ReadOnly, QFileDevice::AutoCloseHandle)) {
        ::close(fd);
        return entries;
    }
    int number = 0;
    while (!file.atEnd()) {
        const QByteArray line = file.readLine();
        ++number;
        QJsonParseError parseError;
        const QJsonDocument doc = QJsonDocument::fromJson(line, &parseError);
        if (!doc.isObject()) {
            if (problems)
                *problems << QStringLiteral("%1:%2: not a JSON object (%3)")
                                 .arg(m_path)
                                 .arg(number)
                                 .arg(parseError.errorString());
            continue;
        }
        const QJsonObject o = doc.object();
        AuditEntry entry;
        entry.line = number;
        entry.user = o[QStringLiteral("user")].toString();
        entry.program = o[QStringLiteral("program")].toString();
        entry.time = QDateTime::fromString(o[QStringLiteral("time")].toString(), Qt::ISODateWithMs);
        entry.kind = o[QStringLiteral("kind")].toString();
        entry.host = o[QStringLiteral("host")].toString();
        entry.action = o[QStringLiteral("action")].toString();
        entry.detail = o[QStringLiteral("detail")].toString();
        entry.workflow = o[QStringLiteral("workflow")].toString();
        entry.markerId = o[QStringLiteral("marker_id")].toInteger();
        entries.append(entry);
    }
    return entries;
}

QString AuditVerification::statusName() const
{
    switch (status) {
    case Status::Intact:
        return QStringLiteral("intact");
    case Status::Broken:
        return QStringLiteral("broken");
    case Status::Truncated:
        return QStringLiteral("truncated");
    case Status::Unverified:
        return QStringLiteral("unverified");
    }
    return {};
}

AuditVerification AuditLog::check() const
{
    // The head and the log are read one after the other, without the writers'
    // lock (a reader must not wait on, nor hold up, a writer): an append
    // between the two reads looks like a line the head does not count.
    const auto moment = [this]() -> QByteArray {
        QFile head(headPath());
        const QByteArray headBytes =
            head.open(QIODevice::ReadOnly | QIODevice::Unbuffered) ? head.read(64 * 1024) : "-";
        const QFileInfo log(m_path);
        return headBytes + '\n' + QByteArray::number(log.size()) + '\n' +
               QByteArray::number(log.lastModified().toMSecsSinceEpoch());
    };
    // Nothing is opened before checkOnce() has refused a FIFO or a link there.
    QString why;
    if (!settings::PrivateFiles::regularOrAbsent(m_path, &why) ||
        !settings::PrivateFiles::regularOrAbsent(headPath(), &why))
        return checkOnce();
    AuditVerification result;
    for (int attempt = 0; attempt < 10; ++attempt) {
        const QByteArray before = moment();
        result = checkOnce();
        if (result.status == AuditVerification::Status::Intact || moment() == before)
            return result;
        QThread::msleep(10 * (attempt + 1)); // let the writer finish its entry
    }
    return result;
}

AuditVerification AuditLog::checkOnce() const
{
    AuditVerification result;
    const ChainKey chain = chainKey(false);
    const std::optional<QByteArray> key = chain.usable();
    const auto broken = [&](int line, const QString &reason) {
        result.status = AuditVerification::Status::Broken;
        result.line = line;
        result.reason = reason;
        return result;
    };
    QString why;
    if (!settings::PrivateFiles::regularOrAbsent(m_path, &why) ||
        !settings::PrivateFiles::regularOrAbsent(headPath(), &why))
        return broken(0, why);
    std::optional<Head> head = readHead(headPath());
    result.headEntries = head ? int(head->entries) : -1;
    std::optional<AuditAnchor> anchor;
    if (key) {
        const std::lock_guard lock(m_mutex);
        anchor = knownAnchor(chain);
    }
    QFile file(m_path);
    if (!file.exists()) {
        if (head && head->entries > 0) {
            result.status = AuditVerification::Status::Truncated;
            result.reason =
                QStringLiteral("the head says %1 entries and the log is gone").arg(head->entries);
        } else if (anchor) {
            // Only an anchor says an entry went in: a key alone is made for
            // a new log before its first entry (or by a reader of a new one).
            result.status = AuditVerification::Status::Truncated;
            result.reason = QStringLiteral("the log and its head are gone, but the secret "
                                           "store's anchor says it held %1 entries")
                                .arg(anchor->entries);
        }
        return result;
    }
    if (!file.open(QIODevice::ReadOnly))
        return broken(0, QStringLiteral("cannot read %1: %2").arg(m_path, file.errorString()));
    bool anchorFound = false;
    QByteArray expectedPlain = firstPrev;
    QByteArray expectedKeyed = firstPrev;
    QByteArray lastHash;
    bool seenKeyed = false;
    bool keyedUnchecked = false;
    // Lines before the head's first keyed one may be plain: the log was begun
    // while the keychain was slow. Without a head, every line must be keyed.
    const qint64 keyedFrom = head && head->keyedFrom > 0 ? head->keyedFrom : 1;
    int number = 0;
    qint64 torn = 0; // the pending entry's cut-off start (tornTail), not counted
    while (!file.atEnd()) {
        const qint64 start = file.pos();
        QByteArray line = file.readLine();
        ++number;
        if (!line.endsWith('\n')) {
            // Only under a head the key vouches for (checked below).
            torn = head && head->keyed && key && start == head->bytes
                       ? tornTail(*head, m_path, file.size())
                       : 0;
            if (torn > 0) {
                --number;
                break;
            }
            return broken(number, QStringLiteral("incomplete last line"));
        }
        line.chop(1);
        const QJsonObject object = QJsonDocument::fromJson(line).object();
        if (object.isEmpty())
            return broken(number, QStringLiteral("not a JSON object"));
        const QByteArray prev = object[QStringLiteral("prev")].toString().toLatin1();
        const bool keyed = object[QStringLiteral("keyed")].toBool();
        if (key && !keyed && number >= keyedFrom)
            return broken(number, QStringLiteral("an unkeyed line in a log that has a key (the "
                                                 "chain was recomputed without it)"));
        if (keyed && chain.state == ChainKey::State::None)
            return broken(number, QStringLiteral("the line claims a key this log does not have "
                                                 "in the secret store"));
        seenKeyed = seenKeyed || keyed;
        if (keyed && !key) {
            keyedUnchecked = true; // cannot be checked here; said below
        } else if (prev != (keyed ? expectedKeyed : expectedPlain)) {
            return broken(number,
                          keyed ? QStringLiteral("hash chain broken: `prev` is not the HMAC of "
                                                 "the line before (a line was removed, added or "
                                                 "edited, or the chain forged without its key)")
                                : QStringLiteral("hash chain broken: `prev` is not the SHA-256 of "
                                                 "the line before (a line was removed, added or "
                                                 "edited)"));
        }
        expectedPlain = hashOf(line);
        expectedKeyed = key ? linkTo(line, key) : QByteArray();
        lastHash = expectedPlain;
        if (anchor && number == anchor->entries)
            anchorFound = expectedKeyed == anchor->link;
    }
    result.entries = number;
    result.keyed = seenKeyed && !keyedUnchecked && number > 0;
    if (keyedUnchecked)
        result.keyNote = QStringLiteral("keyed, but the key is not available here (%1): the "
                                        "links were not checked")
                             .arg(chain.problem);
    else if (result.keyed)
        result.keyNote = QStringLiteral("keyed (HMAC-SHA256, key in the secret store)");
    else if (number == 0)
        result.keyNote = QStringLiteral("no entries yet");
    else
        result.keyNote =
            chain.state == ChainKey::State::None
                ? QStringLiteral("unkeyed (plain SHA-256: the log was begun without a secret "
                                 "store, so a rewrite of the whole chain cannot be told)")
                : QStringLiteral("unkeyed (plain SHA-256; %1: whether this log ever had a key "
                                 "was not checked)")
                      .arg(chain.problem);
    if (anchor)
        result.keyNote +=
            QStringLiteral("; anchored at entry %1 in the secret store").arg(anchor->entries);
    if (!head) {
        if (number == 0 && anchor) {
            result.status = AuditVerification::Status::Truncated;
            result.reason = QStringLiteral("the log is empty and has no head, but the secret "
                                           "store's anchor says it held %1 entries")
                                .arg(anchor->entries);
        } else if (number > 0) {
            result.status = AuditVerification::Status::Truncated;
            result.reason = QStringLiteral("there is no head file %1: a cut-off end cannot be "
                                           "ruled out")
                                .arg(headPath());
        }
        return result;
    }
    if (key && (!head->keyed || head->mac != linkTo(head->signedText(), key)))
        return broken(number,
                      QStringLiteral("the head %1 was not written with the key").arg(headPath()));
    bool landed = false;
    const qint64 whole = file.size() - torn; // the bytes of whole lines
    head = head->settled(whole, lastHash, &landed);
    result.headEntries = int(head->entries);
    if (landed)
        result.reason = QStringLiteral("entry %1 was written by a process that died before "
                                       "confirming it: what it records may not have happened")
                            .arg(head->entries);
    if (torn > 0)
        result.reason = QStringLiteral("entry %1 was cut off mid-line when its writer died (its "
                                       "last %2 bytes, not counted): what it records did not "
                                       "happen; the next entry takes them out")
                            .arg(head->entries + 1)
                            .arg(torn);
    if (head->lostAt > 0)
        return broken(int(head->lostAt),
                      QStringLiteral("entry %1 was appended while the head file was missing or "
                                     "not written with the key: the lines before it cannot be "
                                     "vouched for (a cut or a rewrite would not show)")
                          .arg(head->lostAt));
    if (head->keyed && !seenKeyed && number > 0 && number >= head->keyedFrom)
        return broken(1, QStringLiteral("the head is keyed but no line is"));
    if (number < head->entries) {
        result.status = AuditVerification::Status::Truncated;
        result.line = number;
        result.reason = QStringLiteral("the head says %1 entries, the file has %2")
                            .arg(head->entries)
                            .arg(number);
        return result;
    }
    if (number > head->entries)
        return broken(int(head->entries) + 1,
                      QStringLiteral("the head says %1 entries: line %2 on was not added by "
                                     "OpsDeck")
                          .arg(head->entries)
                          .arg(head->entries + 1));
    if (lastHash != head->last)
        return broken(number, QStringLiteral("the last line is not the one the head names"));
    if (whole != head->bytes)
        return broken(
            number,
            QStringLiteral("the file has %1 bytes, the head says %2").arg(whole).arg(head->bytes));
    if (anchor) {
        if (number < anchor->entries) {
            result.status = AuditVerification::Status::Truncated;
            result.line = number;
            result.reason = QStringLiteral("the secret store's anchor says this log held %1 "
                                           "entries, the file has %2 (its end was cut off, and "
                                           "an older head put back)")
                                .arg(anchor->entries)
                                .arg(number);
            return result;
        }
        if (!anchorFound)
            return broken(int(anchor->entries),
                          QStringLiteral("line %1 is not the entry the secret store's anchor "
                                         "names: the log was cut back to an older state and "
                                         "written on")
                              .arg(anchor->entries));
    }
    if (keyedUnchecked) {
        result.status = AuditVerification::Status::Unverified;
        result.reason = QStringLiteral("the chain is keyed and its key is not available here: "
                                       "its links could not be checked");
    } else if (!result.keyed && number > 0 && chain.state == ChainKey::State::Unavailable) {
        // A keyed log rewritten without its key reads as a sound unkeyed one:
        // only the store can say this log never had a key.
        result.status = AuditVerification::Status::Unverified;
        result.reason = QStringLiteral("the chain is unkeyed, and whether this log has a key "
                                       "(so whether it was rewritten without it) cannot be told: "
                                       "%1")
                            .arg(chain.problem);
    }
    return result;
}

QString AuditLog::verify() const
{
    const AuditVerification result = check();
    if (result.ok())
        return {};
    if (result.status == AuditVerification::Status::Truncated)
        return QStringLiteral("%1: truncated: %2").arg(m_path, result.reason);
    return QStringLiteral("%1:%2: %3").arg(m_path).arg(result.line).arg(result.reason);
}

} // namespace opsdeck::history
