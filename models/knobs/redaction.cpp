#include "redaction.h"

#include <QRegularExpression>
#include <algorithm>

namespace opsdeck::knobs {

bool isSecretKnob(const QString &name)
{
    static const QRegularExpression secret(
        QStringLiteral("TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|API[_-]KEY|[_-]KEY$"),
        QRegularExpression::CaseInsensitiveOption);
    return secret.match(name).hasMatch();
}

QString redactedValue(const QString &name, const QString &value)
{
    if (!isSecretKnob(name) || value.isEmpty())
        return value;
    return QStringLiteral("<redacted, %1 bytes>").arg(value.toUtf8().size());
}

QByteArray redactedScript(const ServeScript &script)
{
    QByteArray bytes = script.bytes();
    QVector<Knob> secrets;
    for (const Knob &knob : script.settings())
        if (isSecretKnob(knob.name) && knob.valueEnd > knob.valueStart)
            secrets.append(knob);
    std::sort(secrets.begin(), secrets.end(),
              [](const Knob &a, const Knob &b) { return a.valueStart > b.valueStart; });
    for (const Knob &knob : std::as_const(secrets))
        bytes.replace(knob.valueStart, knob.valueEnd - knob.valueStart, "<redacted>");
    // Comments bash never reads but a diff shows: a knob commented out
    // (`# export HF_TOKEN=…`, `# commented out by OpsDeck: --api-key …`).
    // NAME=value, or --flag value / --flag=value.
    static const QRegularExpression assignment(QStringLiteral(
        "(?:\\b([A-Za-z_][A-Za-z0-9_]*)=|(--[A-Za-z0-9][A-Za-z0-9_.-]*)(?:=|\\s+))(\\S+)"));
    QList<QByteArray> lines = bytes.split('\n');
    for (QByteArray &line : lines) {
        const qsizetype hash = line.indexOf('#');
        if (hash < 0)
            continue;
        QString comment = QString::fromUtf8(line.mid(hash));
        QString redacted;
        qsizetype at = 0;
        for (auto it = assignment.globalMatch(comment); it.hasNext();) {
            const QRegularExpressionMatch m = it.next();
            const QString name = m.captured(1).isEmpty() ? m.captured(2) : m.captured(1);
            if (!isSecretKnob(name) || m.captured(3) == u"<redacted>")
                continue;
            redacted += comment.mid(at, m.capturedStart(3) - at) + QStringLiteral("<redacted>");
            at = m.capturedEnd(3);
        }
        if (at > 0)
            line = line.left(hash) + QString(redacted + comment.mid(at)).toUtf8();
    }
    return lines.join('\n');
}

KnobChange redactedChange(KnobChange change)
{
    change.before = redactedValue(change.name, change.before);
    change.after = redactedValue(change.name, change.after);
    return change;
}

} // namespace opsdeck::knobs
