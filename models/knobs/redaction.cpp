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
    return bytes;
}

KnobChange redactedChange(KnobChange change)
{
    change.before = redactedValue(change.name, change.before);
    change.after = redactedValue(change.name, change.after);
    return change;
}

} // namespace opsdeck::knobs
