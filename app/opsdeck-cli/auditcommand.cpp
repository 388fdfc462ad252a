#include "auditcommand.h"

#include "apppaths.h"
#include "auditexport.h"
#include "auditkey.h"
#include "auditlog.h"
#include "clioutput.h"
#include "privatefiles.h"
#include "visibletext.h"

#include <QFileInfo>
#include <QJsonArray>
#include <QJsonObject>
#include <QRegularExpression>
#include <optional>

using namespace Qt::StringLiterals;

namespace opsdeck::cli {

namespace {

int verify(const history::AuditLog &log, bool json)
{
    const history::AuditVerification result = log.check();
    if (json) {
        QJsonObject o;
        o[u"file"_s] = log.path();
        o[u"status"_s] = result.statusName();
        o[u"line"_s] = result.line;
        o[u"entries"_s] = result.entries;
        o[u"head_entries"_s] = result.headEntries;
        o[u"keyed"_s] = result.keyed;
        o[u"reason"_s] = result.reason;
        o[u"key"_s] = result.keyNote;
        printJson(QJsonDocument(o));
    } else if (!QFileInfo::exists(log.path()) && result.ok()) {
        printLine(u"%1: no audit log yet (nothing audited in this data dir)"_s.arg(log.path()));
    } else {
        QString verdict;
        switch (result.status) {
        case history::AuditVerification::Status::Intact:
            verdict = u"intact, %1 entries"_s.arg(result.entries);
            if (!result.reason.isEmpty())
                verdict += u" (%1)"_s.arg(result.reason);
            break;
        case history::AuditVerification::Status::Broken:
            // Line 0: the file itself is refused (a FIFO, a folder, a link).
            verdict = result.line > 0
                          ? u"BROKEN at line %1: %2"_s.arg(result.line).arg(result.reason)
                          : u"BROKEN: %1"_s.arg(result.reason);
            break;
        case history::AuditVerification::Status::Truncated:
            verdict = u"TRUNCATED: %1"_s.arg(result.reason);
            break;
        case history::AuditVerification::Status::Unverified:
            verdict = u"NOT VERIFIED: %1"_s.arg(result.reason);
            break;
        }
        printLine(u"%1: %2"_s.arg(log.path(), verdict));
        if (!result.keyNote.isEmpty())
            printLine(u"chain: %1"_s.arg(result.keyNote));
    }
    if (result.status == history::AuditVerification::Status::Unverified)
        return ExitUnknown; // never implies more than was checked
    return result.ok() ? ExitOk : ExitFailed;
}

int list(const history::AuditLog &log, bool json, const std::optional<QDateTime> &since)
{
    QString why;
    if (!settings::PrivateFiles::regularOrAbsent(log.path(), &why)) {
        printError(why);
        return ExitFailed;
    }
    if (QFileInfo::exists(log.path()) && !QFileInfo(log.path()).isReadable()) {
        printError(u"cannot read %1"_s.arg(log.path()));
        return ExitFailed;
    }
    QStringList problems;
    QVector<history::AuditEntry> entries = log.read(&problems);
    if (since)
        entries.removeIf([&](const history::AuditEntry &entry) { return entry.time < *since; });
    for (const QString &problem : std::as_const(problems))
        printError(problem);
    if (json) {
        const QJsonArray array = history::AuditExport::json(entries);
        printJson(QJsonDocument(array));
        return ExitOk;
    }
    for (const history::AuditEntry &entry : entries)
        // Written by other programs too: control characters are shown, never obeyed.
        printLine(logging::visibleText(u"%1  %2  %3  %4  %5  %6  %7  %8"_s.arg(entry.line)
                                           .arg(entry.time.toUTC().toString(Qt::ISODateWithMs),
                                                entry.user, entry.program, entry.kind,
                                                entry.host.isEmpty() ? u"-"_s : entry.host,
                                                entry.action, entry.detail)));
    return ExitOk;
}

} // namespace

int runAudit(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        u"Read the audit log of the data dir (host-key decisions and, later, every knob edit "
        "and workflow step), or verify its chain: exit 0 intact, 1 broken or truncated."_s);
    parser.addOption({u"verify"_s, u"Check the chain and the head; say intact, broken at line "
                                   "N, or truncated, and whether the chain is keyed."_s});
    parser.addOption({u"since"_s,
                      u"Only the entries from TIME on: ISO 8601 (2026-12-03T12:00), or how long "
                      "ago (30m, 2h, 1d)."_s,
                      u"TIME"_s});
    parser.addOption(jsonOption());
    parser.addOption(dataDirOption());
    if (!parseArguments(parser, arguments))
        return ExitBadInput;
    if (!parser.positionalArguments().isEmpty()) {
        printError(
            u"audit takes no arguments (got '%1')"_s.arg(parser.positionalArguments().first()));
        return ExitBadInput;
    }
    const auto log = history::AuditKey::inDataDir(parser.value(u"data-dir"_s));
    const bool json = parser.isSet(u"json"_s);
    std::optional<QDateTime> since;
    if (parser.isSet(u"since"_s)) {
        since = history::AuditExport::sinceTime(parser.value(u"since"_s));
        if (!since) {
            printError(u"--since %1: give ISO 8601 (2026-12-03T12:00) or how long ago (30m, 2h, "
                       "1d)"_s.arg(parser.value(u"since"_s)));
            return ExitBadInput;
        }
    }
    return parser.isSet(u"verify"_s) ? verify(*log, json) : list(*log, json, since);
}

} // namespace opsdeck::cli
