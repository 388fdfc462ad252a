#include "conceptresolver.h"

#include <array>
#include <cmath>

namespace opsdeck::metrics {

namespace {

bool hasNumber(const std::vector<const Sample *> &samples)
{
    for (const Sample *s : samples)
        if (!std::isnan(s->value))
            return true;
    return false;
}

} // namespace

ConceptResolver::ConceptResolver(const MetricPage &page, Profile profile)
    : m_page(page), m_requested(profile), m_used(profile)
{
    if (profile != Profile::Auto)
        return;
    // Detection: the profile whose names carry the most concepts. Ties go to
    // the earlier profile in this list (SGLang is the deployment's engine).
    constexpr std::array candidates{Profile::SGLang, Profile::VLLM, Profile::Router};
    int best = 0;
    for (const Profile candidate : candidates) {
        int carried = 0;
        for (const Concept c : EngineProfile::concepts())
            carried += find(c, candidate).found() ? 1 : 0;
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

Resolution ConceptResolver::find(Concept which, Profile only) const
{
    const auto aliases = EngineProfile::aliases(which);
    const bool histogram = EngineProfile::fold(which) == Fold::Histogram;
    for (std::size_t i = 0; i < aliases.size(); ++i) {
        const FamilyAlias &alias = aliases[i];
        if (only != Profile::Auto && alias.profile != only)
            continue;
        Resolution r;
        bool present = false;
        if (histogram) {
            for (const char *suffix : {"_count", "_sum", "_bucket"})
                present = present || !m_page.samplesNamed(alias.family + suffix).empty();
        } else {
            r.samples = m_page.samplesNamed(alias.family);
            present = hasNumber(r.samples);
        }
        if (!present)
            continue;
        r.family = alias.family;
        r.profile = alias.profile;
        r.note = alias.note;
        r.aliasIndex = i;
        return r;
    }
    return {};
}

} // namespace opsdeck::metrics
