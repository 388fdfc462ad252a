#include "auditexport.h"

#include "visibletext.h"

#include <QRegularExpression>

using namespace Qt::StringLiterals;

namespace opsdeck::history {

QJsonObject AuditExport::json(const AuditEntry &entry)
{
    QJsonObject o;
    o[u"id"_s] = entry.line;
    o[u"time"_s] = entry.time.toUTC().toString(Qt::ISODateWithMs);
    o[u"user"_s] = entry.user;
    o[u"program"_s] = entry.program;
    o[u"kind"_s] = entry.kind;
    o[u"host"_s] = entry.host;
    o[u"action"_s] = entry.action;
    o[u"detail"_s] = entry.detail;
    // A workflow's entries: which one, and the marker it wrote.
    if (!entry.workflow.isEmpty()) {
        o[u"workflow"_s] = entry.workflow;
        o[u"marker_id"_s] = entry.markerId > 0 ? QJsonValue(entry.markerId) : QJsonValue();
    }
    return o;
}

QJsonArray AuditExport::json(const QVector<AuditEntry> &entries)
{
    QJsonArray array;
    for (const AuditEntry &entry : entries)
        array.append(json(entry));
    return array;
}

QString AuditExport::markdown(const QVector<AuditEntry> &entries, const QString &source)
{
    // A field is one table cell: its pipes escaped, its lines joined.
    const auto cell = [](const QString &text) {
        QString shown = logging::visibleText(text);
        shown.replace(u'\\', u"\\\\"_s).replace(u'|', u"\\|"_s);
        return shown.isEmpty() ? u"-"_s : shown;
    };
    QString out = u"# Audit log\n\n%1 entries from `%2`\n\n"_s.arg(entries.size()).arg(source);
    out += u"| # | time (UTC) | user | kind | host | action | workflow | detail |\n"_s;
    out += u"|---|---|---|---|---|---|---|---|\n"_s;
    for (const AuditEntry &e : entries)
        out += u"| %1 | %2 | %3 | %4 | %5 | %6 | %7 | %8 |\n"_s.arg(e.line).arg(
            e.time.toUTC().toString(Qt::ISODate), cell(e.user), cell(e.kind), cell(e.host),
            cell(e.action), cell(e.workflow), cell(e.detail));
    return out;
}

std::optional<QDateTime> AuditExport::sinceTime(const QString &text)
{
    static const QRegularExpression ago(u"^([0-9]{1,6})([smhd])$"_s);
    if (const auto match = ago.match(text.trimmed()); match.hasMatch()) {
        const qint64 n = match.captured(1).toLongLong();
        const qint64 unit = match.captured(2) == u"s"   ? 1
                            : match.captured(2) == u"m" ? 60
                            : match.captured(2) == u"h" ? 3600
                                                        : 86400;
        return QDateTime::currentDateTimeUtc().addSecs(-n * unit);
    }
    const QDateTime time = QDateTime::fromString(text.trimmed(), Qt::ISODateWithMs);
    if (time.isValid())
        return time;
    return std::nullopt;
}

} // namespace opsdeck::history
