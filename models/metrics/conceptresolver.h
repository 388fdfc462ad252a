#pragma once

// Finds, on one page, the family that carries each concept (engineprofile.h).
//
// Profile::Auto: the page's profile is detected as the one whose names carry
// the most concepts (ties: SGLang, then vLLM, then the router); each concept
// is then read from the detected profile's names first and from any other
// profile's names after, so a page that mixes engines (a gateway re-exporting
// SGLang beside its own router metrics) still yields every concept it holds.
// An explicit profile reads only that profile's names.
//
// Within the names tried, the FIRST alias (EngineProfile::aliases order) that
// is present wins, so a transitional page carrying an old and a new name
// reads the new one only (B10). Present: at least one non-NaN sample of that
// name; for a histogram, any `_bucket`, `_sum` or `_count` sample.
//
// Thread-safety: holds a reference to the page, which must outlive it and not
// change meanwhile; const use from any thread.

#include "engineprofile.h"
#include "metricpage.h"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace opsdeck::metrics {

/// Where one concept was found.
struct Resolution
{
    /// Family as named on the page (histograms: without the suffixes); "" when
    /// the concept is not on the page.
    std::string family;
    /// Whose name it was; Auto when not found.
    Profile profile = Profile::Auto;
    /// FamilyAlias::note of the name found ("gpu_cache_usage_perc (legacy)").
    std::string note;
    /// Position of the name in EngineProfile::aliases(): lets a caller pair two
    /// concepts from the same naming generation (prefix-cache hits / queries).
    std::size_t aliasIndex = 0;
    /// The name's samples, page order (empty for histograms: see Aggregation).
    std::vector<const Sample *> samples;

    bool found() const { return !family.empty(); }
};

class ConceptResolver
{
public:
    explicit ConceptResolver(const MetricPage &page, Profile profile = Profile::Auto);

    /// The profile the names are read with: the requested one, or the detected
    /// one for Auto (Auto when the page holds no known name).
    Profile profile() const { return m_used; }
    Profile requested() const { return m_requested; }

    /// Where `which` is on the page; resolved for every concept when the
    /// resolver is made, so this is a lookup.
    const Resolution &resolve(Concept which) const;

private:
    /// Profile::Auto: sets m_used to the profile whose names carry the most concepts.
    void detect();
    void resolveAll();
    /// resolve()'s answer, worked out from the names.
    Resolution lookUp(Concept which) const;
    /// First alias of `only` (any profile when Auto) present on the page.
    Resolution find(Concept which, Profile only) const;
    /// Index in EngineProfile::aliases() of that alias, without its samples.
    std::optional<std::size_t> firstPresent(Concept which, Profile only) const;

    /// Whether `family` is present on the page as the rules above say.
    bool present(const std::string &family, bool histogram) const;

    const MetricPage &m_page;
    Profile m_requested;
    Profile m_used = Profile::Auto;
    /// Names on the page, and those with at least one non-NaN sample: one
    /// pass over the page instead of one per name tried (a resolver tries
    /// every alias of every concept for each profile to detect one).
    std::unordered_set<std::string_view> m_names;
    std::unordered_set<std::string_view> m_numbered;
    /// resolve()'s answers, indexed by Concept.
    std::vector<Resolution> m_resolved;
};

} // namespace opsdeck::metrics
