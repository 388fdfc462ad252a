#include "conceptresolver.h"

#include <array>
#include <cmath>

namespace opsdeck::metrics {

ConceptResolver::ConceptResolver(const MetricPage &page, Profile profile)
    : m_page(page), m_requested(profile), m_used(profile)
{
    m_names.reserve(page.samples.size());
    for (const Sample &s : page.samples) {
        m_names.insert(s.name);
        if (!std::isnan(s.value))
            m_numbered.insert(s.name);
    }
    if (profile != Profile::Auto)
        return;
    // Detection: the profile whose names carry the most concepts. Ties go to
    // the earlier profile in this list (SGLang is the deployment's engine).
    constexpr std::array candidates{Profile::SGLang, Profile::VLLM, Profile::Router};
    int best = 0;
    for (const Profile candidate : candidates) {
        int carried = 0;
        for (const Concept c : EngineProfile::concepts())
            carried += firstPresent(c, candidate) ? 1 : 0;
        if (carried > best) {
            best = carried;
            m_used = candidate;
        }
    }
}

Resolution ConceptResolver::resolve(Concept which) const
{
    if (m_requested != Profile::Auto)
        return find(which, m_requested);
    if (m_used != Profile::Auto) {
        Resolution own = find(which, m_used);
        if (own.found())
            return own;
    }
    return find(which, Profile::Auto);
}

std::optional<std::size_t> ConceptResolver::firstPresent(Concept which, Profile only) const
{
    const auto aliases = EngineProfile::aliases(which);
    const bool histogram = EngineProfile::fold(which) == Fold::Histogram;
    for (std::size_t i = 0; i < aliases.size(); ++i) {
        const FamilyAlias &alias = aliases[i];
        if ((only == Profile::Auto || alias.profile == only) && present(alias.family, histogram))
            return i;
    }
    return std::nullopt;
}

Resolution ConceptResolver::find(Concept which, Profile only) const
{
    const std::optional<std::size_t> index = firstPresent(which, only);
    if (!index)
        return {};
    const FamilyAlias &alias = EngineProfile::aliases(which)[*index];
    Resolution r;
    if (EngineProfile::fold(which) != Fold::Histogram)
        r.samples = m_page.samplesNamed(alias.family);
    r.family = alias.family;
    r.profile = alias.profile;
    r.note = alias.note;
    r.aliasIndex = *index;
    return r;
}

bool ConceptResolver::present(const std::string &family, bool histogram) const
{
    if (!histogram)
        return m_numbered.contains(family);
    std::string name = family;
    for (const char *suffix : {"_count", "_sum", "_bucket"}) {
        name.resize(family.size());
        name += suffix;
        if (m_names.contains(name))
            return true;
    }
    return false;
}

} // namespace opsdeck::metrics
