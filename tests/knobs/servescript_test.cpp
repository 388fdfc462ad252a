// ServeScript: knobs read as bash assigns them (cases B12 and B14 of
// /work/shared/cases, and the forms of the knobs issue).
#include "scriptedit.h"
#include "servescript.h"
#include "testsupport.h"

#include <gtest/gtest.h>

using namespace opsdeck;
using knobs::Knob;
using knobs::ServeScript;

namespace {

QString valueOf(const ServeScript &script, const QString &name)
{
    const std::optional<Knob> knob = script.knob(name);
    return knob ? knob->value : QStringLiteral("<not set>");
}

bool warnsOn(const ServeScript &script, int line, const QString &text)
{
    for (const knobs::ScriptWarning &warning : script.warnings())
        if (warning.line == line && warning.reason.contains(text))
            return true;
    return false;
}

} // namespace

// B12: `KEY=  # comment` is empty; `#` inside a word is part of it.
TEST(ServeScript, AnInlineCommentAfterAnEmptyValueIsNotTheValue)
{
    const ServeScript script = ServeScript::parse(
        test::readFile(test::dataPath(u"knobs/B12_empty_value_inline_comment.sh"_qs)));
    EXPECT_EQ(valueOf(script, u"SGLANG_HOST"_qs), u"0.0.0.0"_qs);
    EXPECT_EQ(valueOf(script, u"HF_TOKEN"_qs), QString());
    EXPECT_EQ(valueOf(script, u"SGLANG_API_KEY"_qs), QString());
    EXPECT_EQ(valueOf(script, u"CUDA_VISIBLE_DEVICES"_qs), u"0,1,2,3"_qs);
    EXPECT_EQ(valueOf(script, u"MODEL_TAG"_qs), u"v1#beta"_qs);
    EXPECT_EQ(script.knob(u"HF_TOKEN"_qs)->line, 4);
    EXPECT_EQ(script.knob(u"HF_TOKEN"_qs)->kind, Knob::Kind::Export);
    EXPECT_EQ(valueOf(script, u"--port"_qs), u"30000"_qs);
    EXPECT_EQ(valueOf(script, u"--tp"_qs), u"4"_qs);
    EXPECT_EQ(valueOf(script, u"--host"_qs), u"$SGLANG_HOST"_qs);
    EXPECT_EQ(script.knob(u"--host"_qs)->references, QStringList{u"SGLANG_HOST"_qs});
    EXPECT_EQ(script.knob(u"--host"_qs)->quoted, u"double"_qs);
    EXPECT_EQ(valueOf(script, u"--model-path"_qs), u"/models/Qwen3-8B"_qs);
}

// B14: bash reads `30000\r`; the script is flagged, the value shown without it.
TEST(ServeScript, ACrlfScriptIsFlaggedOnEveryValue)
{
    const ServeScript script =
        ServeScript::parse(test::readFile(test::dataPath(u"knobs/B14_crlf_serve_script.sh"_qs)));
    EXPECT_TRUE(script.crlf());
    EXPECT_EQ(valueOf(script, u"SGLANG_PORT"_qs), u"30000"_qs);
    EXPECT_TRUE(warnsOn(script, 2, u"bash reads SGLANG_PORT as \"30000\\r\""_qs));
    EXPECT_TRUE(warnsOn(script, 0, u"CRLF line endings"_qs));
    EXPECT_EQ(valueOf(script, u"--tp"_qs), u"2"_qs) << "the last flag's \\r is not its value";
    const ServeScript lf = ServeScript::parse(
        test::readFile(test::dataPath(u"knobs/B14_lf_serve_script_to_edit.sh"_qs)));
    EXPECT_FALSE(lf.crlf());
    EXPECT_TRUE(lf.warnings().isEmpty());
}

TEST(ServeScript, ReadsEveryFormOfTheIssue)
{
    const QByteArray text = "#!/bin/bash\n"
                            "export A=1\n"
                            "B=two\n"
                            "export B\n"
                            "export C=\"v w\"\n"
                            "export D='single $x'\n"
                            "export E=\"esc \\\"q\\\" \\$ \\\\ \\a\"\n"
                            "export F=${HOME}/x:$PATH\n"
                            "export G=a=b=c\n"
                            "export H=con\\\n"
                            "tinued\n"
                            "export A=3\n"
                            "LOCAL_ONLY=1\n"
                            "export I=$'tab\\there'\n"
                            "env J=9 K=\"k k\" python3 -m sglang.launch_server \\\n"
                            "  --max-running-requests 64 \\\n"
                            "  --disaggregation-mode decode --port=30002 --enable-metrics \\\n"
                            "  --temperature -1 --trust-remote-code\n";
    const ServeScript script = ServeScript::parse(text);
    EXPECT_EQ(valueOf(script, u"A"_qs), u"3"_qs);
    EXPECT_TRUE(warnsOn(script, 12, u"A is set again (also on line 2)"_qs));
    const Knob b = *script.knob(u"B"_qs);
    EXPECT_EQ(b.kind, Knob::Kind::Assignment);
    EXPECT_TRUE(b.exported) << "export B after B=two";
    EXPECT_FALSE(script.knob(u"LOCAL_ONLY"_qs)->exported);
    EXPECT_EQ(valueOf(script, u"C"_qs), u"v w"_qs);
    EXPECT_EQ(valueOf(script, u"D"_qs), u"single $x"_qs);
    EXPECT_TRUE(script.knob(u"D"_qs)->references.isEmpty()) << "single quotes expand nothing";
    EXPECT_EQ(valueOf(script, u"E"_qs), u"esc \"q\" $ \\ \\a"_qs);
    EXPECT_EQ(valueOf(script, u"F"_qs), u"${HOME}/x:$PATH"_qs);
    EXPECT_EQ(script.knob(u"F"_qs)->references, (QStringList{u"HOME"_qs, u"PATH"_qs}));
    EXPECT_EQ(valueOf(script, u"G"_qs), u"a=b=c"_qs);
    EXPECT_EQ(valueOf(script, u"H"_qs), u"continued"_qs);
    EXPECT_EQ(valueOf(script, u"I"_qs), u"tab\there"_qs);
    EXPECT_EQ(script.knob(u"I"_qs)->quoted, u"ansi-c"_qs);
    EXPECT_EQ(script.knob(u"J"_qs)->kind, Knob::Kind::EnvPrefix);
    EXPECT_EQ(valueOf(script, u"K"_qs), u"k k"_qs);
    EXPECT_EQ(valueOf(script, u"--max-running-requests"_qs), u"64"_qs);
    EXPECT_EQ(script.knob(u"--max-running-requests"_qs)->line, 16);
    EXPECT_EQ(valueOf(script, u"--disaggregation-mode"_qs), u"decode"_qs);
    EXPECT_EQ(valueOf(script, u"--port"_qs), u"30002"_qs);
    EXPECT_FALSE(script.knob(u"--enable-metrics"_qs)->hasValue);
    EXPECT_EQ(valueOf(script, u"--temperature"_qs), u"-1"_qs);
    EXPECT_FALSE(script.knob(u"--trust-remote-code"_qs)->hasValue);
}

TEST(ServeScript, UnsetExecAndConditionsAreWhatBashWouldDo)
{
    const QByteArray text = "export X=1\n"
                            "unset X\n"
                            "if [ -e /tmp/flag ]; then export Y=1; fi\n"
                            "exec python -m sglang.launch_server --port 1\n"
                            "export Z=never\n";
    const ServeScript script = ServeScript::parse(text);
    EXPECT_FALSE(script.knob(u"X"_qs).has_value());
    EXPECT_TRUE(script.knob(u"Y"_qs)->conditional);
    EXPECT_TRUE(warnsOn(script, 3, u"inside if/while/case"_qs));
    EXPECT_TRUE(warnsOn(script, 5, u"after `exec` on line 4"_qs));
    EXPECT_EQ(valueOf(script, u"--port"_qs), u"1"_qs);
}

// What bash keeps: not a subshell's export, not an unexported variable, and
// an export after && only maybe; an append (+=) is not edited blindly.
TEST(ServeScript, SubshellsUnexportsAndConditionsAreWhatBashKeeps)
{
    const ServeScript script = ServeScript::parse("export A=1 | cat\n"
                                                  "export B=2 &\n"
                                                  "false && export D=4\n"
                                                  "export E=5\n"
                                                  "export -n E\n"
                                                  "builtin export F=6\n"
                                                  "command export G=7\n");
    EXPECT_FALSE(script.knob(u"A"_qs).has_value());
    EXPECT_FALSE(script.knob(u"B"_qs).has_value());
    EXPECT_TRUE(warnsOn(script, 1, u"a subshell"_qs));
    ASSERT_TRUE(script.knob(u"D"_qs).has_value());
    EXPECT_TRUE(script.knob(u"D"_qs)->conditional);
    ASSERT_TRUE(script.knob(u"E"_qs).has_value());
    EXPECT_FALSE(script.knob(u"E"_qs)->exported);
    EXPECT_EQ(script.knob(u"F"_qs)->value, u"6"_qs);
    EXPECT_TRUE(script.knob(u"G"_qs)->exported);

    knobs::ScriptEdit edit;
    edit.name = u"K2"_qs;
    edit.value = u"z"_qs;
    const auto result = edit.apply(ServeScript::parse("export K2=a\nexport K2+=b\n"));
    EXPECT_FALSE(result.ok);
    EXPECT_TRUE(result.error.contains(u"appended to (+=) on line 2"_qs))
        << result.error.toStdString();
}
