// Property tests: generated serve scripts, read by ServeScript and by bash
// itself; then generated edits, read again by both. Seeded and bounded.
#include "bashevaluation.h"
#include "knobdiff.h"
#include "scriptedit.h"

#include <QRandomGenerator>
#include <gtest/gtest.h>

using namespace opsdeck;
using knobs::Knob;
using knobs::ScriptEdit;
using knobs::ServeScript;

namespace {

const QStringList kNames{u"SGLANG_SM120_MMA_TARGET_CTAS"_qs,
                         u"SGLANG_DISAGGREGATION_HEARTBEAT_INTERVAL"_qs,
                         u"CUDA_VISIBLE_DEVICES"_qs,
                         u"HF_TOKEN"_qs,
                         u"NCCL_DEBUG"_qs,
                         u"MODEL"_qs,
                         u"X1"_qs,
                         u"_under"_qs};
const QStringList kFlags{u"--max-running-requests"_qs, u"--port"_qs, u"--model-path"_qs,
                         u"--disaggregation-mode"_qs};

class Generator
{
public:
    explicit Generator(quint32 seed) : m_random(seed) {}

    int below(int n) { return int(m_random.bounded(n)); }

    QByteArray value(bool forFlag)
    {
        static const QByteArray alphabet = "abcXYZ019 _-./:=,@%+#;'\"\\$`*?~{}!&|<>()[]\t";
        QByteArray text;
        const int length = below(10);
        for (int i = 0; i < length; ++i)
            text += alphabet.at(below(int(alphabet.size())));
        if (forFlag && text.startsWith('-'))
            text.prepend('v'); // an option-looking value goes with `=`; covered elsewhere
        return text;
    }

    // `value` written as one bash word, in a random style (or two mixed).
    QByteArray word(const QByteArray &value)
    {
        const int style = below(5);
        if (style == 4 && value.size() > 1) {
            const qsizetype half = value.size() / 2;
            return wordIn(value.left(half), below(4)) + wordIn(value.mid(half), below(4));
        }
        return wordIn(value, style % 4);
    }

private:
    static QByteArray wordIn(const QByteArray &value, int style)
    {
        QByteArray out;
        switch (style) {
        case 0: // bare, every special character escaped
            for (char c : value) {
                if (!std::isalnum(static_cast<unsigned char>(c)))
                    out += '\\';
                out += c;
            }
            return value.isEmpty() ? QByteArray("''") : out;
        case 1: // '...'
            out = value;
            out.replace('\'', "'\\''");
            return '\'' + out + '\'';
        case 2: // "..."
            for (char c : value) {
                if (c == '\\' || c == '"' || c == '$' || c == '`')
                    out += '\\';
                out += c;
            }
            return '"' + out + '"';
        default: // $'...'
            for (char c : value) {
                if (c == '\\' || c == '\'')
                    out += '\\';
                if (c == '\t')
                    out += "\\t";
                else
                    out += c;
            }
            return "$'" + out + '\'';
        }
    }

    QRandomGenerator m_random;
};

struct Generated
{
    QByteArray script;
    QMap<QString, QByteArray> values; ///< what bash should end with
};

Generated generate(Generator &g)
{
    Generated out;
    QByteArray text = "#!/usr/bin/env bash\n# generated\n";
    const int count = 1 + g.below(8);
    QStringList pendingExport;
    for (int i = 0; i < count; ++i) {
        const QString name = kNames.at(g.below(int(kNames.size())));
        const QByteArray value = g.value(false);
        const QByteArray word = name.toUtf8() + '=' + g.word(value);
        switch (g.below(6)) {
        case 0:
            text += "export " + word + '\n';
            break;
        case 1:
            text += word + '\n';
            pendingExport.append(name);
            break;
        case 2:
            text += "export " + word + "   # a note = with 'quotes'\n";
            break;
        case 3: {
            const QString other = kNames.at(g.below(int(kNames.size())));
            const QByteArray otherValue = g.value(false);
            text +=
                "export " + word + " \\\n    " + other.toUtf8() + '=' + g.word(otherValue) + '\n';
            out.values.insert(name, value);
            out.values.insert(other, otherValue);
            continue;
        }
        case 4:
            text += "declare -x " + word + '\n';
            break;
        default:
            text += word + "; export " + name.toUtf8() + '\n';
            break;
        }
        out.values.insert(name, value);
    }
    for (const QString &name : std::as_const(pendingExport))
        text += "export " + name.toUtf8() + '\n';
    text += "exec python3 -m sglang.launch_server";
    for (const QString &flag : kFlags) {
        const QByteArray value = g.value(true);
        if (g.below(2))
            text += " \\\n  " + flag.toUtf8() + ' ' + g.word(value);
        else
            text += ' ' + flag.toUtf8() + '=' + g.word(value);
        out.values.insert(flag, value);
    }
    if (g.below(2))
        text += " --enable-metrics";
    out.script = text + (g.below(4) ? "\n" : "");
    return out;
}

// The flags bash passed, as name → value (`--f v` and `--f=v`).
QMap<QString, QByteArray> flagsOf(const QByteArrayList &arguments)
{
    QMap<QString, QByteArray> flags;
    for (qsizetype i = 0; i < arguments.size(); ++i) {
        const QByteArray &argument = arguments.at(i);
        if (!argument.startsWith("--"))
            continue;
        const qsizetype equals = argument.indexOf('=');
        if (equals > 0)
            flags.insert(QString::fromUtf8(argument.left(equals)), argument.mid(equals + 1));
        else if (kFlags.contains(QString::fromUtf8(argument)))
            flags.insert(QString::fromUtf8(argument), arguments.value(++i));
    }
    return flags;
}

QStringList allNames()
{
    return kNames;
}

} // namespace

// Every value ServeScript reads is the one bash assigns.
TEST(BashAgreement, GeneratedScriptsReadAsBashAssigns)
{
    Generator g(20261203);
    QVector<Generated> cases;
    QVector<QByteArray> scripts;
    for (int i = 0; i < 400; ++i) {
        cases.append(generate(g));
        scripts.append(cases.last().script);
    }
    const QVector<test::BashAssignments> bash = test::evaluateInBash(scripts, allNames());
    ASSERT_EQ(bash.size(), scripts.size());
    int compared = 0;
    for (int i = 0; i < scripts.size(); ++i) {
        const ServeScript script = ServeScript::parse(scripts.at(i));
        const QMap<QString, QByteArray> flags = flagsOf(bash.at(i).launchArguments);
        for (const Knob &knob : script.knobs()) {
            const QByteArray byBash =
                knob.isFlag() ? flags.value(knob.name) : bash.at(i).values.value(knob.name);
            if (knob.name == u"--enable-metrics")
                continue;
            EXPECT_EQ(knob.value.toUtf8(), byBash)
                << knob.name.toStdString() << " on line " << knob.line << " of:\n"
                << scripts.at(i).toStdString();
            EXPECT_EQ(knob.exported || knob.isFlag(),
                      knob.isFlag() || bash.at(i).exported.contains(knob.name))
                << knob.name.toStdString() << " exported? in:\n"
                << scripts.at(i).toStdString();
            ++compared;
        }
        for (auto it = bash.at(i).values.cbegin(); it != bash.at(i).values.cend(); ++it)
            EXPECT_TRUE(script.knob(it.key()).has_value())
                << "bash sets " << it.key().toStdString() << " in:\n"
                << scripts.at(i).toStdString();
        EXPECT_EQ(script.knobs().size() - (script.knob(u"--enable-metrics"_qs) ? 1 : 0),
                  bash.at(i).values.size() + flags.size());
    }
    EXPECT_GT(compared, 2000);
}

// Edit, then read: the value set is what both read back; every byte outside
// the knob's value is the same; unset and comment leave every other knob.
TEST(BashAgreement, EditThenReadGivesBackTheValueAndKeepsEveryOtherByte)
{
    Generator g(7);
    QVector<QByteArray> edited;
    struct Asked
    {
        QString name;
        ScriptEdit::Operation operation;
        QByteArray value;
    };
    QVector<Asked> asked;
    for (int i = 0; i < 300; ++i) {
        const Generated generated = generate(g);
        const ServeScript script = ServeScript::parse(generated.script);
        const QVector<Knob> present = script.knobs();
        ScriptEdit edit;
        const int what = g.below(10);
        edit.operation = what < 7   ? ScriptEdit::Operation::Set
                         : what < 9 ? ScriptEdit::Operation::Unset
                                    : ScriptEdit::Operation::Comment;
        const bool add = edit.operation == ScriptEdit::Operation::Set && g.below(5) == 0;
        edit.name = add ? u"BRAND_NEW_%1"_qs.arg(i) : present.at(g.below(int(present.size()))).name;
        if (edit.operation == ScriptEdit::Operation::Set)
            edit.value = QString::fromUtf8(g.value(edit.name.startsWith(u"--")));
        if (edit.name.startsWith(u"--") && edit.value.isEmpty())
            edit.value =
                u"v"_qs; // an empty flag value means "no value" (covered in scriptedit_test)
        if (edit.name == u"--enable-metrics")
            edit.value.clear();
        const ScriptEdit::Result result = edit.apply(script);
        if (!result.ok) {
            EXPECT_TRUE(result.error.contains(u"already"_qs)) << result.error.toStdString();
            continue;
        }
        const ServeScript after = ServeScript::parse(result.bytes);
        for (const knobs::KnobChange &change : knobs::knobDiff(script, after))
            EXPECT_EQ(change.name, edit.name) << change.text().toStdString();
        if (edit.operation == ScriptEdit::Operation::Set) {
            ASSERT_TRUE(after.knob(edit.name).has_value());
            EXPECT_EQ(after.knob(edit.name)->value, edit.value);
            if (const std::optional<Knob> before = script.knob(edit.name)) {
                const QByteArray &old = generated.script;
                EXPECT_TRUE(result.bytes.startsWith(old.left(before->wordStart)));
                EXPECT_TRUE(result.bytes.endsWith(old.mid(before->wordEnd)));
            } else {
                EXPECT_EQ(result.bytes.count('\n') - generated.script.count('\n'),
                          edit.name.startsWith(u"--") ? 0 : 1);
            }
        } else {
            EXPECT_FALSE(after.knob(edit.name).has_value());
        }
        edited.append(result.bytes);
        asked.append({edit.name, edit.operation, edit.value.toUtf8()});
    }
    QStringList names = allNames();
    for (const Asked &a : std::as_const(asked))
        if (!a.name.startsWith(u"--") && !names.contains(a.name))
            names.append(a.name);
    const QVector<test::BashAssignments> bash = test::evaluateInBash(edited, names);
    ASSERT_EQ(bash.size(), edited.size());
    for (int i = 0; i < edited.size(); ++i) {
        const Asked &a = asked.at(i);
        const QMap<QString, QByteArray> flags = flagsOf(bash.at(i).launchArguments);
        const bool flag = a.name.startsWith(u"--");
        const bool set =
            flag ? (flags.contains(a.name) || bash.at(i).launchArguments.contains(a.name.toUtf8()))
                 : bash.at(i).values.contains(a.name);
        EXPECT_EQ(set, a.operation == ScriptEdit::Operation::Set)
            << a.name.toStdString() << " in:\n"
            << edited.at(i).toStdString();
        if (a.operation == ScriptEdit::Operation::Set && a.name != u"--enable-metrics") {
            EXPECT_EQ(flag ? flags.value(a.name) : bash.at(i).values.value(a.name), a.value)
                << a.name.toStdString() << " in:\n"
                << edited.at(i).toStdString();
        }
    }
    EXPECT_GT(edited.size(), 250);
}
