#pragma once

#include "auditentry.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonObject>
#include <QString>
#include <QVector>
#include <optional>

namespace opsdeck::history {

/// The audit log's entries as others read them: `opsdeck-cli audit --json`,
/// the window's Audit view and its exports. Thread: any.
class AuditExport
{
public:
    /// {"id" (its line), "time" (ISO 8601 UTC, ms), "user", "program", "kind",
    /// "host", "action", "detail"}, plus on a workflow's entries "workflow"
    /// (the journal's id) and "marker_id" (the history marker it wrote, or null).
    static QJsonObject json(const AuditEntry &entry);
    static QJsonArray json(const QVector<AuditEntry> &entries);
    /// A Markdown table (time, user, kind, host, action, workflow, detail)
    /// under a heading naming `source`; `|` and line breaks in a field are
    /// escaped, control characters shown, never obeyed.
    static QString markdown(const QVector<AuditEntry> &entries, const QString &source);
    /// `--since` and the view's "since": ISO 8601 (local time unless it says
    /// otherwise), or how long ago ("30m", "2h", "1d", "90s"). Nothing when
    /// it is neither.
    static std::optional<QDateTime> sinceTime(const QString &text);
};

} // namespace opsdeck::history
