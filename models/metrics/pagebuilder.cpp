#include "pagebuilder.h"

#include "familyshape.h"
#include "textutil.h"

#include <algorithm>
#include <array>
#include <iterator>

namespace opsdeck::metrics::detail {

namespace {

std::string seriesText(const Sample &sample)
{
    std::string text(sample.name);
    if (sample.labels.empty())
        return text;
    text += '{';
    for (const Label &l : sample.labels) {
        if (text.back() != '{')
            text += ',';
        text.append(l.name).append("=").append(quoted(l.value));
    }
    return text + '}';
}

constexpr std::array<std::string_view, 5> familySuffixes{"_bucket", "_sum", "_count", "_gsum",
                                                         "_gcount"};
// OpenMetrics names families without these; text 0.0.4 never strips them.
constexpr std::array<std::string_view, 3> openMetricsSuffixes{"_total", "_created", "_info"};

} // namespace

PageBuilder::PageBuilder(MetricPage &page, std::size_t maxWarnings, std::size_t expectedSamples)
    : m_page(page), m_openMetrics(page.format == PageFormat::OpenMetrics),
      m_maxWarnings(maxWarnings)
{
    m_page.samples.reserve(expectedSamples);
}

std::size_t PageBuilder::metadataFamily(std::string_view familyName, int line)
{
    m_lastFamily = npos; // a HELP/TYPE/UNIT line ends the run of samples
    std::size_t f = findFamily(familyName);
    if (f == npos)
        f = createFamily(familyName, line);
    enter(f, line);
    return f;
}

void PageBuilder::addHelp(std::string_view familyName, std::string text, int line)
{
    const std::size_t f = metadataFamily(familyName, line);
    Family &family = m_page.families[f];
    if (!m_state[f].hasHelp) {
        family.help = std::move(text);
        m_state[f].hasHelp = true;
    } else if (family.help != text) {
        warn(line, "conflicting HELP for family " + family.name + "; first kept");
    }
}

void PageBuilder::addType(std::string_view familyName, std::string_view typeWord, int line)
{
    const std::size_t f = metadataFamily(familyName, line);
    Family &family = m_page.families[f];
    const std::optional<MetricType> type = typeFromName(typeWord);
    if (!type) {
        warn(line, "unknown metric type " + quoted(typeWord) + " for " + family.name +
                       "; read as unknown");
        return;
    }
    if (m_state[f].typed) {
        if (family.type != *type)
            warn(line, "conflicting TYPE for family " + family.name + ": " +
                           std::string(typeName(family.type)) + ", then " +
                           std::string(typeName(*type)) + "; first kept");
        return;
    }
    family.type = *type;
    m_state[f].typed = true;
    m_state[f].histogramShaped = false;
}

void PageBuilder::addUnit(std::string_view familyName, std::string_view unit, int line)
{
    const std::size_t f = metadataFamily(familyName, line);
    Family &family = m_page.families[f];
    if (m_state[f].hasUnit) {
        if (family.unit != unit)
            warn(line, "conflicting UNIT for family " + family.name + "; first kept");
        return;
    }
    family.unit.assign(unit);
    m_state[f].hasUnit = true;
    if (!unit.empty() && !family.name.ends_with("_" + family.unit))
        warn(line, "UNIT " + quoted(unit) + " is not a suffix of family name " + family.name);
}

void PageBuilder::addSample(Sample &&sample)
{
    const std::size_t f = familyFor(sample);
    enter(f, sample.line);
    const Family &family = m_page.families[f];
    if (m_openMetrics && sample.name.size() == family.name.size() + 8 &&
        sample.name.ends_with("_created"))
        sample.isCreated = true; // admits() let `_created` in only for these types
    if (family.type == MetricType::StateSet && sample.value != 0 && sample.value != 1)
        warn(sample.line, "stateset " + family.name + " has a value other than 0 or 1; kept");
    const std::size_t first = m_series.findOrAdd(sample, m_page.samples, m_page.samples.size());
    if (first != SeriesIndex::npos) {
        // A page repeated twice has as many duplicates as samples: skip building
        // texts that the warning cap would throw away.
        if (m_page.warnings.size() >= m_maxWarnings) {
            warn(sample.line, {});
            return;
        }
        warn(sample.line, "duplicate sample dropped: " + seriesText(sample) +
                              "; first value (line " + std::to_string(m_page.samples[first].line) +
                              ") kept");
        return;
    }
    m_page.families[f].samples.push_back(m_page.samples.size());
    m_page.samples.push_back(std::move(sample));
}

void PageBuilder::warn(int line, std::string reason)
{
    if (m_page.warnings.size() < m_maxWarnings) {
        m_page.warnings.push_back({line, std::move(reason)});
        return;
    }
    if (m_suppressedWarnings++ == 0)
        m_firstSuppressedLine = line;
}

void PageBuilder::finish()
{
    // The up-front reservation was an estimate; do not hand a mostly empty
    // buffer to whoever keeps the page.
    if (m_page.samples.capacity() > 2 * m_page.samples.size() + 1024)
        m_page.samples.shrink_to_fit();
    mergeImplicitHistograms();
    for (std::size_t f = 0; f < m_page.families.size(); ++f) {
        if (m_state[f].groups >= 2)
            warn(m_state[f].secondGroupLine, "family " + m_page.families[f].name + " appears in " +
                                                 std::to_string(m_state[f].groups) +
                                                 " groups; merged");
    }
    linkCreatedFamilies();
    if (m_suppressedWarnings > 0)
        m_page.warnings.push_back({m_firstSuppressedLine, std::to_string(m_suppressedWarnings) +
                                                              " further warnings suppressed"});
    std::stable_sort(m_page.warnings.begin(), m_page.warnings.end(),
                     [](const ParseWarning &a, const ParseWarning &b) { return a.line < b.line; });
}

std::size_t PageBuilder::familyFor(const Sample &sample)
{
    // Most samples continue the family of the line before; no lookup then.
    // The same name view as the last sample filed there: admitted already.
    if (m_current != npos && m_current == m_lastFamily && sample.name.data() == m_lastName.data() &&
        sample.name.size() == m_lastName.size())
        return m_current;
    m_lastFamily = npos;
    if (m_current != npos && admits(m_current, sample.name)) {
        m_lastFamily = m_current;
        m_lastName = sample.name;
        return m_current;
    }
    // A TYPE/HELP line names its family as written, so an exact match wins:
    // gauge `x` and counter `x_total` stay two families.
    if (const std::size_t f = findFamily(sample.name); f != npos)
        return f;
    const auto stemFamily = [&](std::string_view suffix) {
        if (!sample.name.ends_with(suffix))
            return npos;
        const std::string_view stem =
            std::string_view(sample.name).substr(0, sample.name.size() - suffix.size());
        const std::size_t f = findFamily(stem);
        return f != npos && admits(f, sample.name) ? f : npos;
    };
    for (const std::string_view suffix : familySuffixes) {
        if (const std::size_t f = stemFamily(suffix); f != npos)
            return f;
    }
    for (const std::string_view suffix : openMetricsSuffixes) {
        if (const std::size_t f = m_openMetrics ? stemFamily(suffix) : npos; f != npos)
            return f;
    }
    // No TYPE: only a histogram-shaped name earns a stripped family name.
    constexpr std::string_view bucket = "_bucket";
    if (sample.name.ends_with(bucket) && !sample.label("le").empty()) {
        const std::string_view stem =
            std::string_view(sample.name).substr(0, sample.name.size() - bucket.size());
        if (findFamily(stem) == npos) {
            const std::size_t f = createFamily(stem, sample.line);
            m_state[f].histogramShaped = true;
            return f;
        }
    }
    return createFamily(sample.name, sample.line);
}

bool PageBuilder::admits(std::size_t f, std::string_view sampleName) const
{
    const Family &family = m_page.families[f];
    if (!sampleName.starts_with(family.name))
        return false;
    return sampleSuffixAdmitted(family.type, m_state[f].histogramShaped, m_openMetrics,
                                sampleName.substr(family.name.size()));
}

std::size_t PageBuilder::findFamily(std::string_view name) const
{
    const auto it = m_familyIndex.find(name);
    return it == m_familyIndex.end() ? npos : it->second;
}

std::size_t PageBuilder::createFamily(std::string_view name, int line)
{
    const std::size_t f = m_page.families.size();
    Family &family = m_page.families.emplace_back();
    family.name.assign(name);
    family.line = line;
    m_state.emplace_back();
    m_familyIndex.emplace(family.name, f);
    return f;
}

void PageBuilder::enter(std::size_t f, int line)
{
    if (f == m_current)
        return;
    FamilyState &state = m_state[f];
    if (state.entered && ++state.groups == 2)
        state.secondGroupLine = line;
    if (!state.entered) {
        state.entered = true;
        state.groups = 1;
    }
    m_current = f;
}

void PageBuilder::mergeImplicitHistograms()
{
    // Without TYPE lines, `x_sum` written before the first `x_bucket` (as
    // client_python orders them) got a family of its own; fold it into `x`.
    std::vector<bool> removed(m_page.families.size(), false);
    bool any = false;
    for (std::size_t f = 0; f < m_page.families.size(); ++f) {
        const FamilyState &state = m_state[f];
        Family &family = m_page.families[f];
        if (state.typed || state.hasHelp || state.histogramShaped)
            continue;
        std::string_view stem = family.name;
        if (stem.ends_with("_sum"))
            stem.remove_suffix(4);
        else if (stem.ends_with("_count"))
            stem.remove_suffix(6);
        else
            continue;
        const std::size_t target = findFamily(stem);
        if (target == npos || !m_state[target].histogramShaped)
            continue;
        Family &into = m_page.families[target];
        std::vector<std::size_t> merged;
        std::merge(into.samples.begin(), into.samples.end(), family.samples.begin(),
                   family.samples.end(), std::back_inserter(merged));
        into.samples = std::move(merged);
        into.line = std::min(into.line, family.line);
        removed[f] = any = true;
    }
    if (!any)
        return;
    std::vector<Family> families;
    std::vector<FamilyState> states;
    for (std::size_t f = 0; f < m_page.families.size(); ++f) {
        if (removed[f])
            continue;
        families.push_back(std::move(m_page.families[f]));
        states.push_back(m_state[f]);
    }
    m_page.families = std::move(families);
    m_state = std::move(states);
    m_familyIndex.clear();
    for (std::size_t f = 0; f < m_page.families.size(); ++f)
        m_familyIndex.emplace(m_page.families[f].name, f);
}

void PageBuilder::linkCreatedFamilies()
{
    constexpr std::string_view created = "_created";
    for (Family &family : m_page.families) {
        if (!family.name.ends_with(created))
            continue;
        const std::string stem = family.name.substr(0, family.name.size() - created.size());
        if (const std::size_t f = findFamily(stem + "_total");
            f != npos && m_page.families[f].type == MetricType::Counter) {
            family.createdOf = stem + "_total";
        } else if (const std::size_t g = findFamily(stem); g != npos) {
            const MetricType type = m_page.families[g].type;
            if (type == MetricType::Counter || type == MetricType::Histogram ||
                type == MetricType::Summary || type == MetricType::GaugeHistogram)
                family.createdOf = stem;
        }
        if (family.createdOf.empty())
            continue;
        for (const std::size_t index : family.samples)
            m_page.samples[index].isCreated = true;
    }
}

} // namespace opsdeck::metrics::detail
