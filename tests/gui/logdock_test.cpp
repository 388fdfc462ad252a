#include "logdock.h"

#include <gtest/gtest.h>

// A warning's colour must stay on its own line: the info line after it is
// drawn in the palette's colour (the bug was every later line in orange).
TEST(LogDock, EachLineKeepsItsOwnColour)
{
    LogDock dock;
    dock.appendLine(QStringLiteral("info"), QStringLiteral("decode: down -> healthy"));
    dock.appendLine(QStringLiteral("warning"), QStringLiteral("router: /metrics HTTP 404"));
    dock.appendLine(QStringLiteral("info"), QStringLiteral("prefill: starting -> healthy"));
    dock.appendLine(QStringLiteral("error"), QStringLiteral("history: disk full"));
    dock.appendLine(QStringLiteral("info"), QStringLiteral("decode: healthy -> down"));

    EXPECT_FALSE(dock.lineColor(0).isValid());
    EXPECT_EQ(dock.lineColor(1), QColor(0xe6, 0x51, 0x00));
    EXPECT_FALSE(dock.lineColor(2).isValid());
    EXPECT_EQ(dock.lineColor(3), QColor(0xc6, 0x28, 0x28));
    EXPECT_FALSE(dock.lineColor(4).isValid());
    EXPECT_EQ(dock.text(), QStringLiteral("decode: down -> healthy\nrouter: /metrics HTTP 404\n"
                                          "prefill: starting -> healthy\nhistory: disk full\n"
                                          "decode: healthy -> down"));
}
