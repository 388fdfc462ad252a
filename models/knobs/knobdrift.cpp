#include "knobdrift.h"

#include <QHash>
#include <QRegularExpression>
#include <QSet>
#include <algorithm>

namespace opsdeck::knobs {

namespace {

// `--flag value` and `--flag=value` after the program (as ServeScript reads them).
QHash<QString, QString> flagsOf(const QStringList &arguments)
{
    const int from = ServeScript::flagsStart(arguments);
    QHash<QString, QString> flags;
    for (int i = from; i < arguments.size(); ++i) {
        const QString &word = arguments.at(i);
        if (word == u"--")
            break;
        if (!word.startsWith(u"--") || word.size() <= 2)
            continue;
        const qsizetype equals = word.indexOf(QLatin1Char('='));
        if (equals > 0) {
            flags.insert(word.left(equals), word.mid(equals + 1));
        } else if (i + 1 < arguments.size() && ServeScript::isFlagValue(arguments.at(i + 1))) {
            flags.insert(word, arguments.at(++i));
        } else {
            flags.insert(word, QString());
        }
    }
    return flags;
}

// `$NAME` and `${NAME}` replaced as bash would, from `known`.
QString expanded(const QString &value, const QHash<QString, QString> &known)
{
    static const QRegularExpression reference(
        QStringLiteral("\\$(?:\\{([A-Za-z_][A-Za-z0-9_]*)\\}|([A-Za-z_][A-Za-z0-9_]*))"));
    QString out;
    qsizetype at = 0;
    for (auto it = reference.globalMatch(value); it.hasNext();) {
        const QRegularExpressionMatch match = it.next();
        out += value.mid(at, match.capturedStart() - at);
        const QString name = match.captured(1).isEmpty() ? match.captured(2) : match.captured(1);
        out += known.value(name);
        at = match.capturedEnd();
    }
    return out + value.mid(at);
}

} // namespace

QString KnobDrift::stateName(State state)
{
    switch (state) {
    case State::InSync:
        return QStringLiteral("in-sync");
    case State::Differs:
        return QStringLiteral("differs");
    case State::OnlyInScript:
        return QStringLiteral("only-in-script");
    case State::OnlyInProcess:
        return QStringLiteral("only-in-process");
    case State::NotCompared:
        return QStringLiteral("not-compared");
    }
    return {};
}

QString KnobDrift::says() const
{
    static const QString restart = QStringLiteral(" — restart needed to take effect");
    switch (state) {
    case State::InSync:
        return QStringLiteral("in sync");
    case State::Differs:
        return QStringLiteral("script says %1, process runs with %2").arg(script, process) +
               restart;
    case State::OnlyInScript:
        return QStringLiteral("script says %1, process runs without it").arg(script) + restart;
    case State::OnlyInProcess:
        return QStringLiteral("process runs with %1, the script no longer sets it").arg(process) +
               restart;
    case State::NotCompared:
        return QStringLiteral("the script's value %1 runs a command: not compared").arg(script);
    }
    return {};
}

QVector<KnobDrift> knobDrift(const ServeScript &script, const ProcessView &process)
{
    QVector<KnobDrift> drift;
    const QHash<QString, QString> flags = flagsOf(process.arguments);
    // What `$VAR` expands to: the script's own variables first, then the
    // environment it was started with.
    QHash<QString, QString> known = process.environment;
    QSet<QString> scriptNames;
    for (const Knob &knob : script.knobs()) {
        scriptNames.insert(knob.name);
        KnobDrift item{knob.name, knob.kind, {}, {}, KnobDrift::State::InSync};
        const bool command =
            std::any_of(knob.references.cbegin(), knob.references.cend(),
                        [](const QString &r) { return r.startsWith(u"$(") || r.startsWith(u'`'); });
        item.script = expanded(knob.value, known);
        if (!knob.isFlag())
            known.insert(knob.name, item.script);
        if (knob.kind == Knob::Kind::Assignment && !knob.exported)
            continue; // a shell variable: the server never sees it
        if (command) {
            item.script = knob.value;
            item.state = KnobDrift::State::NotCompared;
            drift.append(item);
            continue;
        }
        if (knob.isFlag()) {
            const auto found = flags.constFind(knob.name);
            if (found == flags.cend()) {
                item.state = KnobDrift::State::OnlyInScript;
            } else {
                item.process = *found;
                if (item.process != item.script)
                    item.state = KnobDrift::State::Differs;
            }
        } else {
            if (!process.environmentRead)
                continue;
            const auto found = process.environment.constFind(knob.name);
            if (found == process.environment.cend()) {
                item.state = KnobDrift::State::OnlyInScript;
            } else {
                item.process = *found;
                if (item.process != item.script)
                    item.state = KnobDrift::State::Differs;
            }
        }
        drift.append(item);
    }
    for (auto it = flags.cbegin(); it != flags.cend(); ++it)
        if (!scriptNames.contains(it.key()))
            drift.append(
                {it.key(), Knob::Kind::Flag, {}, it.value(), KnobDrift::State::OnlyInProcess});
    static const QRegularExpression engineKnob(QStringLiteral("^(SGLANG|VLLM)_"));
    for (auto it = process.environment.cbegin(); it != process.environment.cend(); ++it)
        if (!scriptNames.contains(it.key()) && engineKnob.match(it.key()).hasMatch())
            drift.append(
                {it.key(), Knob::Kind::Export, {}, it.value(), KnobDrift::State::OnlyInProcess});
    return drift;
}

} // namespace opsdeck::knobs
