#include "conceptresolver.h"

#include <array>
#include <cmath>
#include <cstring>

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
    if (profile == Profile::Auto)
        detect();
    resolveAll();
}

void ConceptResolver::detect()
{
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

const Resolution &ConceptResolver::resolve(Concept which) const
{
    return m_resolved[static_cast<std::size_t>(which)];
}

void ConceptResolver::resolveAll()
{
    // Once per page, in enum order (concepts() is the enum in order): a page's
    // consumers (summary, rates, quantiles) ask for the same concepts again.
    m_resolved.reserve(EngineProfile::concepts().size());
    for (const Concept which : EngineProfile::concepts())
        m_resolved.push_back(lookUp(which));
}

Resolution ConceptResolver::lookUp(Concept which) const
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
    // Built on the stack: a std::string of a long family name would be a heap
    // allocation per try, and a page is tried with every alias of every concept.
    std::array<char, 256> buffer;
    for (const std::string_view suffix : {"_count", "_sum", "_bucket"}) {
        const std::size_t size = family.size() + suffix.size();
        if (size > buffer.size()) {
            if (m_names.contains(family + std::string(suffix)))
                return true;
            continue;
        }
        std::memcpy(buffer.data(), family.data(), family.size());
        std::memcpy(buffer.data() + family.size(), suffix.data(), suffix.size());
        if (m_names.contains(std::string_view(buffer.data(), size)))
            return true;
    }
    return false;
}

} // namespace opsdeck::metrics
