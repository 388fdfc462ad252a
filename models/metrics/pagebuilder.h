#pragma once

// Step 3 of ExpositionParser: puts parsed lines into a MetricPage — families,
// duplicate series, split families, warnings. Which sample names a family
// admits depends on MetricPage::format (set before the builder is made).
// Internal to opsdeck_metrics.

#include "metricpage.h"
#include "seriesindex.h"

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace opsdeck::metrics::detail {

class PageBuilder
{
public:
    /// `expectedSamples` sizes the sample vector up front (an estimate is fine).
    PageBuilder(MetricPage &page, std::size_t maxWarnings, std::size_t expectedSamples);

    void addHelp(std::string_view familyName, std::string text, int line);
    void addType(std::string_view familyName, std::string_view typeWord, int line);
    /// OpenMetrics `# UNIT`: warns when the family name does not end in `_<unit>`
    /// (OpenMetrics 1.0, "Metric name": the unit MUST be a suffix of the name).
    void addUnit(std::string_view familyName, std::string_view unit, int line);
    /// Files `sample` under its family, or drops it when its series is already
    /// on the page (the first value wins). Its labels must come from the
    /// page's LabelInterner: series are compared by label identity (seriesindex.h).
    void addSample(Sample &&sample);
    void warn(int line, std::string reason);
    /// Merges implicit histogram pieces, reports split families, links
    /// `_created` families, sorts the warnings. Call once, last.
    void finish();

private:
    static constexpr std::size_t npos = static_cast<std::size_t>(-1);

    struct FamilyState
    {
        bool typed = false;           ///< a TYPE line set the type
        bool hasHelp = false;         ///< a HELP line set the help
        bool hasUnit = false;         ///< a UNIT line set the unit
        bool histogramShaped = false; ///< no TYPE, but `_bucket` samples with `le`
        bool entered = false;         ///< has been the current family once
        int groups = 0;
        int secondGroupLine = 0;
    };
    struct StringHash
    {
        using is_transparent = void;
        std::size_t operator()(std::string_view s) const
        {
            return std::hash<std::string_view>{}(s);
        }
    };

    std::size_t familyFor(const Sample &sample);
    bool admits(std::size_t family, std::string_view sampleName) const;
    std::size_t findFamily(std::string_view name) const;
    std::size_t createFamily(std::string_view name, int line);
    /// The family a HELP, TYPE or UNIT line names, created when new; ends the run of samples.
    std::size_t metadataFamily(std::string_view name, int line);
    void enter(std::size_t family, int line);
    void mergeImplicitHistograms();
    void linkCreatedFamilies();

    MetricPage &m_page;
    const bool m_openMetrics;
    std::size_t m_maxWarnings;
    std::size_t m_suppressedWarnings = 0;
    int m_firstSuppressedLine = 0;
    std::vector<FamilyState> m_state; // parallel to m_page.families
    std::unordered_map<std::string, std::size_t, StringHash, std::equal_to<>> m_familyIndex;
    std::size_t m_current = npos;
    // familyFor() shortcut: the family the last sample name view was admitted
    // to; npos after any TYPE/HELP/UNIT line (it may change what a family admits).
    std::size_t m_lastFamily = npos;
    std::string_view m_lastName;
    SeriesIndex m_series;
};

} // namespace opsdeck::metrics::detail
