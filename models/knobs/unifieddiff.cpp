#include "unifieddiff.h"

#include <QStringList>
#include <QVector>
#include <algorithm>

namespace opsdeck::knobs {

namespace {

struct Line
{
    QByteArray text; // without its '\n'
    bool newline = true;
};

QVector<Line> linesOf(const QByteArray &bytes)
{
    QVector<Line> lines;
    qsizetype at = 0;
    while (at < bytes.size()) {
        const qsizetype end = bytes.indexOf('\n', at);
        if (end < 0) {
            lines.append({bytes.mid(at), false});
            break;
        }
        lines.append({bytes.mid(at, end - at), true});
        at = end + 1;
    }
    return lines;
}

bool same(const Line &a, const Line &b)
{
    return a.text == b.text && a.newline == b.newline;
}

// One entry per output line: ' ' kept, '-' removed, '+' added; with the
// line's index in its side.
struct Step
{
    char op;
    int index;
};

QVector<Step> align(const QVector<Line> &a, const QVector<Line> &b)
{
    int prefix = 0;
    while (prefix < a.size() && prefix < b.size() && same(a.at(prefix), b.at(prefix)))
        ++prefix;
    int suffix = 0;
    while (suffix < a.size() - prefix && suffix < b.size() - prefix &&
           same(a.at(a.size() - 1 - suffix), b.at(b.size() - 1 - suffix)))
        ++suffix;
    QVector<Step> steps;
    for (int i = 0; i < prefix; ++i)
        steps.append({' ', i});
    const int n = int(a.size()) - prefix - suffix;
    const int m = int(b.size()) - prefix - suffix;
    if (n > 0 && m > 0 && n <= 2000 && m <= 2000) {
        // lcs[i][j]: longest common subsequence of a[i..] and b[j..] (middle part).
        QVector<int> lcs((n + 1) * (m + 1), 0);
        auto at = [&](int i, int j) -> int & { return lcs[i * (m + 1) + j]; };
        for (int i = n - 1; i >= 0; --i)
            for (int j = m - 1; j >= 0; --j)
                at(i, j) = same(a.at(prefix + i), b.at(prefix + j))
                               ? at(i + 1, j + 1) + 1
                               : std::max(at(i + 1, j), at(i, j + 1));
        int i = 0;
        int j = 0;
        while (i < n || j < m) {
            if (i < n && j < m && same(a.at(prefix + i), b.at(prefix + j))) {
                steps.append({' ', prefix + i});
                ++i;
                ++j;
            } else if (i < n && (j == m || at(i + 1, j) >= at(i, j + 1))) {
                steps.append({'-', prefix + i++}); // removals first, as diff -u
            } else {
                steps.append({'+', prefix + j++});
            }
        }
    } else {
        for (int i = 0; i < n; ++i)
            steps.append({'-', prefix + i});
        for (int j = 0; j < m; ++j)
            steps.append({'+', prefix + j});
    }
    for (int k = 0; k < suffix; ++k)
        steps.append({' ', int(a.size()) - suffix + k});
    return steps;
}

// As diff writes a hunk's range: "3" for one line, "3,4", "2,0" for none after line 2.
QString range(int before, int count)
{
    if (count == 1)
        return QString::number(before + 1);
    return QStringLiteral("%1,%2").arg(count ? before + 1 : before).arg(count);
}

QString shown(const Line &line)
{
    QByteArray text = line.text;
    text.replace('\r', "^M");
    return QString::fromUtf8(text);
}

} // namespace

QString unifiedDiff(const QByteArray &before, const QByteArray &after, const QString &beforeName,
                    const QString &afterName)
{
    if (before == after)
        return {};
    const QVector<Line> a = linesOf(before);
    const QVector<Line> b = linesOf(after);
    const QVector<Step> steps = align(a, b);
    constexpr int context = 3;
    QStringList out{QStringLiteral("--- %1").arg(beforeName),
                    QStringLiteral("+++ %1").arg(afterName)};
    // Line numbers on each side before every step.
    QVector<int> lineA(steps.size() + 1, 0);
    QVector<int> lineB(steps.size() + 1, 0);
    for (int k = 0; k < steps.size(); ++k) {
        lineA[k + 1] = lineA[k] + (steps.at(k).op != '+');
        lineB[k + 1] = lineB[k] + (steps.at(k).op != '-');
    }
    int k = 0;
    while (k < steps.size()) {
        if (steps.at(k).op == ' ') {
            ++k;
            continue;
        }
        const int start = std::max(0, k - context);
        int end = k;
        int lastChange = k;
        while (end < steps.size() && end - lastChange <= 2 * context) {
            if (steps.at(end).op != ' ')
                lastChange = end;
            ++end;
        }
        end = std::min(int(steps.size()), lastChange + context + 1);
        const int countA = lineA[end] - lineA[start];
        const int countB = lineB[end] - lineB[start];
        out.append(QStringLiteral("@@ -%1 +%2 @@")
                       .arg(range(lineA[start], countA), range(lineB[start], countB)));
        for (int s = start; s < end; ++s) {
            const Step &step = steps.at(s);
            const Line &line = step.op == '+' ? b.at(step.index) : a.at(step.index);
            out.append(QLatin1Char(step.op) + shown(line));
            if (!line.newline)
                out.append(QStringLiteral("\\ No newline at end of file"));
        }
        k = end;
    }
    return out.join(QLatin1Char('\n')) + QLatin1Char('\n');
}

} // namespace opsdeck::knobs
