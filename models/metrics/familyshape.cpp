#include "familyshape.h"

#include <algorithm>
#include <initializer_list>

namespace opsdeck::metrics::detail {

bool sampleSuffixAdmitted(MetricType type, bool histogramShaped, bool openMetrics,
                          std::string_view suffix)
{
    // Text 0.0.4 suffixes; OpenMetrics adds `_total`/`_created` for counters,
    // `_created` for histograms and summaries, `_info` for info.
    const auto isOneOf = [&](std::initializer_list<std::string_view> allowed) {
        return std::find(allowed.begin(), allowed.end(), suffix) != allowed.end();
    };
    if (openMetrics) {
        // OpenMetrics 1.0, "Metric types": the sample names of each type.
        switch (type) {
        case MetricType::Counter:
            return isOneOf({"_total", "_created"});
        case MetricType::Histogram:
            return isOneOf({"_bucket", "_sum", "_count", "_created"});
        case MetricType::GaugeHistogram:
            return isOneOf({"_bucket", "_gsum", "_gcount"});
        case MetricType::Summary:
            return isOneOf({"", "_sum", "_count", "_created"});
        case MetricType::Info:
            return suffix == "_info";
        default:
            if (histogramShaped)
                return isOneOf({"_bucket", "_sum", "_count"});
            return suffix.empty();
        }
    }
    switch (type) {
    case MetricType::Histogram:
        return isOneOf({"_bucket", "_sum", "_count"});
    case MetricType::GaugeHistogram:
        return isOneOf({"_bucket", "_gsum", "_gcount"});
    case MetricType::Summary:
        return isOneOf({"", "_sum", "_count"});
    default:
        if (histogramShaped)
            return isOneOf({"_bucket", "_sum", "_count"});
        return suffix.empty();
    }
}

} // namespace opsdeck::metrics::detail
