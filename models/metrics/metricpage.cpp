#include "metricpage.h"

#include <array>
#include <utility>

namespace opsdeck::metrics {

namespace {

constexpr std::array<std::pair<MetricType, std::string_view>, 9> typeNames{{
    {MetricType::Unknown, "unknown"},
    {MetricType::Counter, "counter"},
    {MetricType::Gauge, "gauge"},
    {MetricType::Histogram, "histogram"},
    {MetricType::Summary, "summary"},
    {MetricType::Untyped, "untyped"},
    {MetricType::Info, "info"},
    {MetricType::StateSet, "stateset"},
    {MetricType::GaugeHistogram, "gaugehistogram"},
}};

} // namespace

std::string_view typeName(MetricType type)
{
    for (const auto &[value, name] : typeNames) {
        if (value == type)
            return name;
    }
    return "unknown";
}

std::optional<MetricType> typeFromName(std::string_view word)
{
    for (const auto &[value, name] : typeNames) {
        if (name == word)
            return value;
    }
    return std::nullopt;
}

std::string_view Sample::label(std::string_view labelName) const
{
    for (const Label &l : labels) {
        if (l.name == labelName)
            return l.value;
    }
    return {};
}

const Family *MetricPage::family(std::string_view name) const
{
    for (const Family &f : families) {
        if (f.name == name)
            return &f;
    }
    return nullptr;
}

std::vector<const Sample *> MetricPage::samplesNamed(std::string_view sampleName) const
{
    // A plain scan: it holds for hand-built pages too, and a size-first string
    // compare over 100k samples costs well under a millisecond.
    std::vector<const Sample *> result;
    for (const Sample &s : samples) {
        if (s.name == sampleName)
            result.push_back(&s);
    }
    return result;
}

} // namespace opsdeck::metrics
