// ScriptEdit: one knob changes, every other byte stays, and what bash reads
// afterwards is the value asked for (checked with bash itself).
#include "bashevaluation.h"
#include "redaction.h"
#include "scriptedit.h"
#include "testsupport.h"

#include <QFile>
#include <QTemporaryDir>
#include <gtest/gtest.h>

using namespace opsdeck;
using knobs::ScriptEdit;
using knobs::ServeScript;
using Op = knobs::ScriptEdit::Operation;

namespace {

ScriptEdit::Result edit(const QByteArray &bytes, Op operation, const QString &name,
                        const QString &value = {})
{
    ScriptEdit change;
    change.operation = operation;
    change.name = name;
    change.value = value;
    return change.apply(ServeScript::parse(bytes));
}

QByteArrayList linesOf(const QByteArray &bytes)
{
    return bytes.split('\n');
}

const QByteArray decodeScript = "#!/usr/bin/env bash\n"
                                "# decode of the PD pair\n"
                                "export SGLANG_SM120_MMA_TARGET_CTAS=512\n"
                                "export QUOTED=\"two words\"   # note\n"
                                "export SINGLE='it is'\n"
                                "MODEL=/models/dsv4\n"
                                "exec python3 -m sglang.launch_server --model-path \"$MODEL\" \\\n"
                                "  --disaggregation-mode decode \\\n"
                                "  --max-running-requests 64 \\\n"
                                "  --port 30002\n";

} // namespace

// B12: "set HF_TOKEN=TOKEN" changes only line 4, keeps its comment.
TEST(ScriptEdit, SettingAnEmptyValueKeepsItsInlineComment)
{
    const QByteArray original =
        test::readFile(test::dataPath(u"knobs/B12_empty_value_inline_comment.sh"_qs));
    const ScriptEdit::Result result = edit(original, Op::Set, u"HF_TOKEN"_qs, u"TOKEN"_qs);
    ASSERT_TRUE(result.ok) << result.error.toStdString();
    const QByteArrayList before = linesOf(original);
    const QByteArrayList after = linesOf(result.bytes);
    ASSERT_EQ(before.size(), after.size());
    for (int i = 0; i < before.size(); ++i) {
        if (i != 3) {
            EXPECT_EQ(before.at(i), after.at(i)) << "line " << i + 1;
        }
    }
    EXPECT_EQ(after.at(3), "export HF_TOKEN=TOKEN   # filled in by ops at deploy time");
    EXPECT_EQ(result.line, 4);
    const auto bash = test::evaluateInBash({result.bytes}, {u"HF_TOKEN"_qs, u"SGLANG_API_KEY"_qs});
    ASSERT_EQ(bash.size(), 1);
    EXPECT_EQ(bash.first().values.value(u"HF_TOKEN"_qs), "TOKEN");
    EXPECT_EQ(bash.first().values.value(u"SGLANG_API_KEY"_qs), "");
}

// B14: an LF script stays LF (+0 bytes); a CRLF script's changed line keeps CRLF.
TEST(ScriptEdit, AnEditNeverChangesTheLineEndings)
{
    const QByteArray lf =
        test::readFile(test::dataPath(u"knobs/B14_lf_serve_script_to_edit.sh"_qs));
    ScriptEdit::Result result = edit(lf, Op::Set, u"SGLANG_PORT"_qs, u"30001"_qs);
    ASSERT_TRUE(result.ok) << result.error.toStdString();
    EXPECT_EQ(result.bytes.size(), lf.size());
    EXPECT_FALSE(result.bytes.contains('\r'));
    EXPECT_TRUE(result.bytes.contains("\nexport SGLANG_PORT=30001\n"));
    EXPECT_TRUE(result.bytes.endsWith('\n'));

    const QByteArray crlf = test::readFile(test::dataPath(u"knobs/B14_crlf_serve_script.sh"_qs));
    result = edit(crlf, Op::Set, u"SGLANG_PORT"_qs, u"30001"_qs);
    ASSERT_TRUE(result.ok) << result.error.toStdString();
    EXPECT_TRUE(result.bytes.contains("\r\nexport SGLANG_PORT=30001\r\n"));
    EXPECT_EQ(result.bytes.count("\r\n"), crlf.count("\r\n"));
    EXPECT_EQ(result.bytes.count('\n'), crlf.count('\n'));
    result = edit(crlf, Op::Set, u"NEW_KNOB"_qs, u"1"_qs);
    ASSERT_TRUE(result.ok) << result.error.toStdString();
    EXPECT_TRUE(result.bytes.contains("export NEW_KNOB=1\r\n"));
    EXPECT_EQ(result.bytes.count('\n'), result.bytes.count("\r\n"));
}

// Hostile values are data: bash reads them back exactly and runs nothing.
TEST(ScriptEdit, HostileValuesAreDataNeverCode)
{
    QTemporaryDir dir;
    const QString mark = dir.filePath(u"ran"_qs);
    const QStringList hostile{u"; touch %1"_qs.arg(mark),
                              u"$(touch %1)"_qs.arg(mark),
                              u"`touch %1`"_qs.arg(mark),
                              u"'; touch %1; '"_qs.arg(mark),
                              u"\"; touch %1; \""_qs.arg(mark),
                              u"x\ntouch %1"_qs.arg(mark),
                              u"*"_qs,
                              u"~root"_qs,
                              u"a b\tc"_qs,
                              u"\\"_qs,
                              u"$HOME"_qs,
                              u"${X:=y}"_qs,
                              u"!!"_qs,
                              u"# not a comment"_qs,
                              u"x\r"_qs,
                              u"it's \"both\""_qs,
                              u"{a,b}"_qs,
                              u"-1"_qs};
    const QStringList knobsToEdit{
        u"SGLANG_SM120_MMA_TARGET_CTAS"_qs, u"QUOTED"_qs,    u"SINGLE"_qs, u"BRAND_NEW"_qs,
        u"--max-running-requests"_qs,       u"--new-flag"_qs};
    QVector<QByteArray> scripts;
    QVector<QPair<QString, QString>> asked;
    for (const QString &name : knobsToEdit)
        for (const QString &value : hostile) {
            const ScriptEdit::Result result = edit(decodeScript, Op::Set, name, value);
            ASSERT_TRUE(result.ok) << name.toStdString() << "=" << value.toStdString() << ": "
                                   << result.error.toStdString();
            scripts.append(result.bytes);
            asked.append({name, value});
        }
    const QStringList names{u"SGLANG_SM120_MMA_TARGET_CTAS"_qs, u"QUOTED"_qs, u"SINGLE"_qs,
                            u"BRAND_NEW"_qs, u"MODEL"_qs};
    const QVector<test::BashAssignments> bash = test::evaluateInBash(scripts, names);
    ASSERT_EQ(bash.size(), scripts.size());
    for (int i = 0; i < scripts.size(); ++i) {
        const auto &[name, value] = asked.at(i);
        const test::BashAssignments &read = bash.at(i);
        if (name.startsWith(u"--")) {
            const QByteArrayList &args = read.launchArguments;
            const qsizetype at = args.indexOf(name.toUtf8());
            const qsizetype joined = args.indexOf(name.toUtf8() + '=' + value.toUtf8());
            EXPECT_TRUE((at >= 0 && args.value(at + 1) == value.toUtf8()) || joined >= 0)
                << name.toStdString() << " " << value.toStdString() << " in "
                << args.join(' ').toStdString();
        } else {
            EXPECT_EQ(read.values.value(name), value.toUtf8()) << scripts.at(i).toStdString();
        }
        EXPECT_EQ(read.values.value(u"MODEL"_qs), "/models/dsv4");
        if (name != u"QUOTED") {
            EXPECT_EQ(read.values.value(u"QUOTED"_qs), "two words");
        }
    }
    EXPECT_FALSE(QFile::exists(mark)) << "a value ran as a command";
}

TEST(ScriptEdit, FlagsAreSetAddedRemovedAndCommentedOnTheirContinuedLines)
{
    ScriptEdit::Result result = edit(decodeScript, Op::Set, u"--max-running-requests"_qs, u"96"_qs);
    ASSERT_TRUE(result.ok) << result.error.toStdString();
    EXPECT_TRUE(result.bytes.contains("  --max-running-requests 96 \\\n"));
    EXPECT_EQ(result.line, 9);

    result = edit(decodeScript, Op::Unset, u"--max-running-requests"_qs);
    ASSERT_TRUE(result.ok) << result.error.toStdString();
    EXPECT_TRUE(result.bytes.contains("  --disaggregation-mode decode \\\n  --port 30002\n"))
        << result.bytes.toStdString();

    result = edit(decodeScript, Op::Unset, u"--port"_qs);
    ASSERT_TRUE(result.ok) << result.error.toStdString();
    EXPECT_TRUE(result.bytes.endsWith("  --max-running-requests 64\n"))
        << result.bytes.toStdString();

    result = edit(decodeScript, Op::Comment, u"--max-running-requests"_qs);
    ASSERT_TRUE(result.ok) << result.error.toStdString();
    EXPECT_TRUE(result.bytes.contains(
        "# commented out by OpsDeck: --max-running-requests 64\nexec python3"))
        << result.bytes.toStdString();

    result = edit(decodeScript, Op::Set, u"--enable-metrics"_qs);
    ASSERT_TRUE(result.ok) << result.error.toStdString();
    EXPECT_TRUE(result.bytes.endsWith("  --port 30002 --enable-metrics\n"));

    const auto bash = test::evaluateInBash({result.bytes}, {u"MODEL"_qs});
    ASSERT_EQ(bash.size(), 1);
    EXPECT_EQ(bash.first().launchArguments.join(' '),
              "-m sglang.launch_server --model-path /models/dsv4 --disaggregation-mode decode "
              "--max-running-requests 64 --port 30002 --enable-metrics");
}

TEST(ScriptEdit, UnsetAndCommentTakeEverySettingOfTheKnob)
{
    const QByteArray twice = "export A=1\nexport B=2\nexport A=3 C=4\n";
    ScriptEdit::Result result = edit(twice, Op::Unset, u"A"_qs);
    ASSERT_TRUE(result.ok) << result.error.toStdString();
    EXPECT_EQ(result.bytes, "export B=2\nexport C=4\n");
    result = edit(twice, Op::Comment, u"A"_qs);
    ASSERT_TRUE(result.ok) << result.error.toStdString();
    EXPECT_EQ(result.bytes,
              "# export A=1\nexport B=2\n# commented out by OpsDeck: A=3\nexport C=4\n");
    result = edit(twice, Op::Unset, u"Z"_qs);
    EXPECT_FALSE(result.ok);
    EXPECT_TRUE(result.error.contains(u"Z is not set in the script"_qs));
    result = edit(twice, Op::Set, u"A;rm"_qs, u"1"_qs);
    EXPECT_FALSE(result.ok);
    EXPECT_TRUE(result.error.contains(u"is not a knob's name"_qs));
    result = edit(twice, Op::Set, u"A"_qs, u"3"_qs);
    EXPECT_FALSE(result.ok) << "already 3";
}

// The audit entry's diff: a secret's value is gone from live lines, from
// lines commented out, and from the comment a comment-out leaves.
TEST(Redaction, SecretValuesLeaveNoTraceInTheAuditedDiff)
{
    const QByteArray script = "# export HF_TOKEN=hf_OLDCOMMENTED13\n"
                              "export DB_PASSWORD=SECRETPW3 SGLANG_B=2\n"
                              "export SGLANG_A=1\n"
                              "HF_TOKEN=hf_PREFIX14 python3 -m sglang.launch_server --api-key "
                              "SECRETFLAG7 --tp 2\n";
    for (const QString &name :
         {u"DB_PASSWORD"_qs, u"HF_TOKEN"_qs, u"--api-key"_qs, u"SGLANG_A"_qs}) {
        for (const Op op : {Op::Comment, Op::Unset}) {
            const ScriptEdit::Result result = edit(script, op, name);
            ASSERT_TRUE(result.ok) << name.toStdString() << ": " << result.error.toStdString();
            const QByteArray before = knobs::redactedScript(ServeScript::parse(script));
            const QByteArray after = knobs::redactedScript(ServeScript::parse(result.bytes));
            for (const QByteArray &text : {before, after})
                for (const char *secret :
                     {"hf_OLDCOMMENTED13", "SECRETPW3", "hf_PREFIX14", "SECRETFLAG7"})
                    EXPECT_FALSE(text.contains(secret))
                        << name.toStdString() << " leaks " << secret << " in:\n"
                        << text.toStdString();
        }
    }
}
