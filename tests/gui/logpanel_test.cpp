// LogPanel on a real LogTail (LocalTransport, a temp file holding a recorded
// opsdeck-sim log with two runs): search count, navigation and highlights,
// the "since restart" view, follow only while shown, a missing file.
#include "guiwatchdog.h"
#include "localtransport.h"
#include "logpanel.h"
#include "logtail.h"
#include "testsupport.h"

#include <QCheckBox>
#include <QFile>
#include <QLayout>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QTemporaryDir>
#include <QTextBlock>
#include <gtest/gtest.h>

using namespace std::chrono_literals;
using opsdeck::remote::LocalTransport;
using opsdeck::remote::LogTail;
using opsdeck::test::waitUntil;

namespace {

bool appendTo(const QString &path, const QByteArray &bytes)
{
    QFile file(path);
    return file.open(QIODevice::WriteOnly | QIODevice::Append) && file.write(bytes) == bytes.size();
}

QString firstShownLine(const LogPanel &panel)
{
    return panel.textView()->document()->firstBlock().text();
}

int shownLines(const LogPanel &panel)
{
    return panel.textView()->document()->blockCount();
}

struct Fixture
{
    QTemporaryDir dir;
    QString path = dir.filePath(QStringLiteral("decode.log"));
    LocalTransport transport{QStringLiteral("local")};
    std::unique_ptr<LogTail> tail;
    LogPanel panel;

    bool start(const QByteArray &content)
    {
        QFile file(path);
        if (!file.open(QIODevice::WriteOnly) || file.write(content) != content.size())
            return false;
        file.close();
        tail = std::make_unique<LogTail>(&transport, path);
        tail->setPollInterval(50ms);
        panel.resize(1000, 420);
        panel.show();
        panel.setLogTail(tail.get());
        return waitUntil([&] { return tail->buffer().lineCount() > 0; }, 10s);
    }
};

} // namespace

TEST(LogPanel, SearchCountsNavigatesAndHighlightsMatches)
{
    opsdeck::test::GuiWatchdog watchdog;
    Fixture f;
    ASSERT_TRUE(f.start(opsdeck::test::readData(QStringLiteral("logs/opsdeck-sim-decode.log"))));
    ASSERT_EQ(shownLines(f.panel), 19);
    EXPECT_TRUE(f.tail->following());
    // Long lines wrap, so each can be read whole; the box turns it off.
    EXPECT_TRUE(f.panel.wrapsLines());
    f.panel.wrapBox()->setChecked(false);
    EXPECT_FALSE(f.panel.wrapsLines());
    f.panel.wrapBox()->setChecked(true);

    f.panel.searchField()->setText(QStringLiteral("LISTENING ON"));
    EXPECT_EQ(f.panel.matchCount(), 2);
    EXPECT_EQ(f.panel.matchText(), QStringLiteral("2 of 2")); // the newest first
    EXPECT_EQ(f.panel.textView()->extraSelections().size(), 2);
    EXPECT_EQ(f.panel.textView()->textCursor().blockNumber(), 11);
    f.panel.findNext();
    EXPECT_EQ(f.panel.matchText(), QStringLiteral("1 of 2"));
    EXPECT_EQ(f.panel.textView()->textCursor().blockNumber(), 1);
    f.panel.findPrevious();
    EXPECT_EQ(f.panel.matchText(), QStringLiteral("2 of 2"));

    f.panel.searchField()->setText(QStringLiteral("sigterm"));
    // Two runs stopped, and the fixture's origin line says so too.
    EXPECT_EQ(f.panel.matchCount(), 3);
    const auto selections = f.panel.textView()->extraSelections();
    ASSERT_EQ(selections.size(), 3);
    EXPECT_EQ(selections[2].cursor.selectedText(), QStringLiteral("SIGTERM"));
    f.panel.findNext(); // wraps to the first
    EXPECT_EQ(f.panel.matchText(), QStringLiteral("1 of 3"));

    // New lines while searching: counted, the selected match stays selected.
    ASSERT_TRUE(appendTo(f.path, "2026-11-30 23:19:30.000 INFO decode: received SIGTERM, "
                                 "shutting down\n"));
    ASSERT_TRUE(waitUntil([&] { return f.panel.matchCount() == 4; }, 10s));
    EXPECT_EQ(f.panel.matchText(), QStringLiteral("1 of 4"));
    EXPECT_EQ(shownLines(f.panel), 20);

    f.panel.searchField()->setText(QStringLiteral("no such text"));
    EXPECT_EQ(f.panel.matchCount(), 0);
    EXPECT_EQ(f.panel.matchText(), QStringLiteral("no match"));
    f.panel.searchField()->clear();
    EXPECT_EQ(f.panel.matchText(), QString());
    EXPECT_TRUE(f.panel.textView()->extraSelections().isEmpty());

    // Follow only while shown.
    f.panel.hide();
    EXPECT_FALSE(f.tail->following());
    f.panel.show();
    EXPECT_TRUE(f.tail->following());
    f.panel.followBox()->setChecked(false);
    EXPECT_FALSE(f.tail->following());
    EXPECT_TRUE(f.panel.statusText().endsWith(QStringLiteral(" \u00b7 not following")));
    EXPECT_LT(watchdog.worstStallMs(), 1000);
}

TEST(LogPanel, SinceRestartShowsFromTheLastStartLine)
{
    opsdeck::test::GuiWatchdog watchdog;
    Fixture f;
    const QByteArray recorded =
        opsdeck::test::readData(QStringLiteral("logs/opsdeck-sim-decode.log"));
    ASSERT_TRUE(f.start(recorded));
    EXPECT_TRUE(f.panel.statusText().startsWith(
        QStringLiteral("local:%1 \u00b7 2.1 KiB \u00b7 updated ").arg(f.path)))
        << f.panel.statusText().toStdString();
    EXPECT_EQ(f.panel.sinceRestartText(), QString());

    f.panel.sinceRestartBox()->setChecked(true);
    EXPECT_EQ(shownLines(f.panel), 8);
    EXPECT_EQ(f.panel.shownFromLine(), 11);
    EXPECT_EQ(firstShownLine(f.panel), QStringLiteral("2026-11-30 23:18:55.359 INFO decode: "
                                                      "listening on http://127.0.0.1:35653"));
    EXPECT_EQ(f.panel.sinceRestartText(),
              QStringLiteral("Since restart: from the last start line, 2026-11-30 23:18:55.359 "
                             "INFO decode: listening on http://127.0.0.1:35653"));
    f.panel.searchField()->setText(QStringLiteral("listening on"));
    EXPECT_EQ(f.panel.matchCount(), 1);

    // A new start appended: the view moves on to it.
    ASSERT_TRUE(appendTo(f.path, "2026-11-30 23:20:00.000 INFO decode: listening on "
                                 "http://127.0.0.1:35653\n2026-11-30 23:20:00.001 INFO decode: "
                                 "role decode, served model demo-model\n"));
    ASSERT_TRUE(waitUntil([&] { return shownLines(f.panel) == 2; }, 10s));
    EXPECT_EQ(f.panel.shownFromLine(), 19);
    EXPECT_EQ(f.panel.matchCount(), 1);
    f.panel.layout()->activate();
    f.panel.grab().save(QStringLiteral("/tmp/logpanel-since-restart.png"));

    f.panel.sinceRestartBox()->setChecked(false);
    EXPECT_EQ(shownLines(f.panel), 21);
    EXPECT_EQ(f.panel.matchCount(), 3);
    EXPECT_EQ(f.panel.sinceRestartText(), QString());

    // Save what an operator sees, with a search, for a look.
    f.panel.searchField()->setText(QStringLiteral("decode batch"));
    f.panel.layout()->activate();
    f.panel.grab().save(QStringLiteral("/tmp/logpanel.png"));
    EXPECT_LT(watchdog.worstStallMs(), 1000);
}

TEST(LogPanel, SaysPlainlyWhenNoStartLineIsKept)
{
    Fixture f;
    const QByteArray recorded =
        opsdeck::test::readData(QStringLiteral("logs/opsdeck-sim-router.log"));
    // Without its first two lines the router's log has no start banner.
    QByteArray rest = recorded;
    for (int n = 0; n < 3; ++n)
        rest = rest.mid(rest.indexOf('\n') + 1);
    ASSERT_TRUE(f.start(rest));
    f.panel.sinceRestartBox()->setChecked(true);
    EXPECT_EQ(shownLines(f.panel), 5);
    EXPECT_EQ(f.panel.sinceRestartText(),
              QStringLiteral("No start line in the 5 kept lines (looked for: SGLang "
                             "server_args=ServerArgs(, vLLM API server version, opsdeck-sim "
                             "listening on); showing all of them."));
}

TEST(LogPanel, MissingFileIsShownWithHostAndPath)
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("nowhere/decode.log"));
    LocalTransport transport(QStringLiteral("gpu-node-7"));
    LogTail tail(&transport, path);
    LogPanel panel;
    panel.show();
    panel.setLogTail(&tail);
    ASSERT_TRUE(waitUntil([&] { return !panel.errorText().isEmpty(); }, 10s));
    EXPECT_EQ(panel.errorText(),
              QStringLiteral("gpu-node-7: log file %1 does not exist (checking again every 2 s)")
                  .arg(path));
    EXPECT_EQ(panel.statusText(), QStringLiteral("gpu-node-7:%1 \u00b7 nothing read").arg(path));
    panel.resize(900, 200);
    panel.grab().save(QStringLiteral("/tmp/logpanel-missing.png"));
}
