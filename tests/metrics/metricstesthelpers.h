#pragma once

// Small helpers for the metrics tests: parse a file from tests/data/metrics,
// find one series, look for a warning.

#include "expositionparser.h"
#include "metricpage.h"
#include "testsupport.h"

#include <QByteArray>
#include <QString>
#include <initializer_list>
#include <limits>
#include <string>
#include <string_view>
#include <utility>

namespace opsdeck::metrics::test {

inline std::string readMetricsData(std::string_view file)
{
    const QByteArray bytes = opsdeck::test::readData(
        QStringLiteral("metrics/") + QString::fromUtf8(file.data(), qsizetype(file.size())));
    return std::string(bytes.constData(), std::size_t(bytes.size()));
}

inline MetricPage parseFile(std::string_view file)
{
    return ExpositionParser::parse(readMetricsData(file));
}

/// The one sample named `name` whose labels include all of `labels`;
/// nullptr when there is none or more than one.
inline const Sample *
findSample(const MetricPage &page, std::string_view name,
           std::initializer_list<std::pair<std::string_view, std::string_view>> labels = {})
{
    const Sample *found = nullptr;
    for (const Sample *s : page.samplesNamed(name)) {
        bool match = true;
        for (const auto &[labelName, value] : labels) {
            bool has = false;
            for (const Label &l : s->labels)
                has = has || (l.name == labelName && l.value == value);
            match = match && has;
        }
        if (!match)
            continue;
        if (found)
            return nullptr;
        found = s;
    }
    return found;
}

/// Value of that one sample, NaN when it is missing (so EXPECT_EQ fails).
inline double
valueOf(const MetricPage &page, std::string_view name,
        std::initializer_list<std::pair<std::string_view, std::string_view>> labels = {})
{
    const Sample *s = findSample(page, name, labels);
    return s ? s->value : std::numeric_limits<double>::quiet_NaN();
}

inline int countWarnings(const MetricPage &page, int line, std::string_view contains)
{
    int n = 0;
    for (const ParseWarning &w : page.warnings)
        n += (w.line == line && w.reason.find(contains) != std::string::npos) ? 1 : 0;
    return n;
}

inline std::string warningsText(const MetricPage &page)
{
    std::string text;
    for (const ParseWarning &w : page.warnings)
        text += "line " + std::to_string(w.line) + ": " + w.reason + "\n";
    return text;
}

inline double familyTotal(const MetricPage &page, const Family &family)
{
    double total = 0;
    for (std::size_t index : family.samples)
        total += page.samples.at(index).value;
    return total;
}

} // namespace opsdeck::metrics::test
