// unifiedDiff beside GNU diff -u on the same pairs: the hunks are the same.
#include "testsupport.h"
#include "unifieddiff.h"

#include <QProcess>
#include <QTemporaryDir>
#include <gtest/gtest.h>

using namespace opsdeck;

namespace {

QString hunksOf(const QString &diff)
{
    QStringList lines = diff.split(u'\n');
    return lines.mid(2).join(u'\n'); // without the ---/+++ lines
}

QString gnuDiff(const QByteArray &a, const QByteArray &b)
{
    QTemporaryDir dir;
    test::writeFile(dir.filePath(u"a"_qs), a);
    test::writeFile(dir.filePath(u"b"_qs), b);
    QProcess diff;
    diff.start(u"diff"_qs, {u"-u"_qs, dir.filePath(u"a"_qs), dir.filePath(u"b"_qs)});
    diff.waitForFinished(30000);
    return QString::fromUtf8(diff.readAllStandardOutput());
}

} // namespace

TEST(UnifiedDiff, HunksAreThoseOfDiffU)
{
    QByteArray many;
    for (int i = 1; i <= 40; ++i)
        many += "line " + QByteArray::number(i) + '\n';
    QByteArray farApart = many;
    farApart.replace("line 3\n", "line three\n");
    farApart.replace("line 30\n", "");
    farApart.replace("line 38\n", "line 38\nadded\n");
    QByteArray near = many;
    near.replace("line 10\n", "ten\n");
    near.replace("line 14\n", "fourteen\n");
    const QVector<QPair<QByteArray, QByteArray>> pairs{
        {many, farApart}, {many, near},   {"a\nb\nc\n", "a\nb\nc"},
        {"", "x\n"},      {"x\ny\n", ""}, {"export A=1\nexport B=2\n", "export B=2\nexport A=1\n"}};
    for (const auto &[a, b] : pairs) {
        const QString ours = knobs::unifiedDiff(a, b, u"a"_qs, u"b"_qs);
        EXPECT_EQ(hunksOf(ours), hunksOf(gnuDiff(a, b))) << ours.toStdString();
    }
    EXPECT_TRUE(knobs::unifiedDiff("same\n", "same\n", u"a"_qs, u"b"_qs).isEmpty());
}
