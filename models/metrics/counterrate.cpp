#include "counterrate.h"

#include "aggregation.h"
#include "conceptresolver.h"
#include "foldedseries.h"
#include "seriesgroup.h"

#include <algorithm>
#include <cmath>
#include <string_view>
#include <unordered_map>

namespace opsdeck::metrics {

namespace {

constexpr std::string_view createdSuffix = "_created";

/// Labels sorted by name, as one string.
std::string labelSet(const Sample &sample)
{
    std::vector<const Label *> kept;
    for (const Label &l : sample.labels)
        kept.push_back(&l);
    std::sort(kept.begin(), kept.end(),
              [](const Label *a, const Label *b) { return a->name < b->name; });
    std::string key;
    for (const Label *l : kept) {
        key += l->name;
        key += '\0'; // cannot occur in a name or a (valid UTF-8, unescaped) value's end
        key += l->value;
        key += '\0';
    }
    return key;
}

/// The name without the suffix that ties it to its `_created` sample.
std::string_view stemOf(std::string_view name)
{
    for (std::string_view suffix : {"_total", "_bucket", "_count", "_sum"})
        if (name.size() > suffix.size() && name.ends_with(suffix))
            return name.substr(0, name.size() - suffix.size());
    return name;
}

std::optional<double> newestStart(const MetricPage &page)
{
    std::optional<double> newest;
    for (const Sample *s : page.samplesNamed("process_start_time_seconds"))
        if (!std::isnan(s->value))
            newest = newest ? std::max(*newest, s->value) : s->value;
    return newest;
}

/// A counter series worth a rate: typed counter, or untyped and named `_total`.
bool isCounterSample(const Family &family, const Sample &sample)
{
    if (sample.isCreated || !family.createdOf.empty())
        return false;
    if (family.type == MetricType::Counter)
        return true;
    return (family.type == MetricType::Unknown || family.type == MetricType::Untyped) &&
           sample.name.ends_with("_total");
}

} // namespace

std::span<const Concept> CounterRate::counterConcepts()
{
    static constexpr Concept counters[] = {Concept::PromptTokens,       Concept::GenerationTokens,
                                           Concept::BootstrapFailures,  Concept::TransferFailures,
                                           Concept::PrefixCacheQueries, Concept::PrefixCacheHits};
    return counters;
}

std::string CounterRate::key(Concept which)
{
    std::string_view name = EngineProfile::key(which);
    if (name.ends_with("_total"))
        name.remove_suffix(std::string_view("_total").size());
    return std::string(name);
}

Rate CounterRate::between(double v1, double t1, double v2, double t2, bool reset,
                          std::optional<double> createdS)
{
    Rate rate;
    if (std::isnan(v1) || std::isnan(v2) || !(t2 > t1))
        return rate;
    rate.reset = reset || v2 < v1;
    if (!rate.reset) {
        rate.perSecond = (v2 - v1) / (t2 - t1);
    } else if (createdS && !std::isnan(*createdS) && *createdS < t2) {
        // Counted from 0 since its creation (see the header for why).
        rate.perSecond = v2 / (t2 - *createdS);
        rate.fromCreated = true;
    } else {
        rate.perSecond = v2 / (t2 - t1);
    }
    return rate;
}

bool CounterRate::processRestarted(const MetricPage &before, const MetricPage &after)
{
    const auto first = newestStart(before);
    const auto second = newestStart(after);
    return first && second && *first != *second;
}

std::optional<double> CounterRate::createdTime(const MetricPage &page, const Sample &sample)
{
    if (sample.isCreated)
        return std::nullopt;
    std::string name(stemOf(sample.name));
    name += createdSuffix;
    // A bucket shares its `_created` with the whole series, which has no `le`.
    const SeriesGroup wanted(sample, SeriesGroup::Replicas::Keep, SeriesGroup::Le::Drop);
    for (const Sample *s : page.samplesNamed(name))
        if (s->isCreated && !std::isnan(s->value) &&
            SeriesGroup(*s, SeriesGroup::Replicas::Keep) == wanted)
            return s->value;
    return std::nullopt;
}

std::string CounterRate::seriesText(const Sample &sample)
{
    std::string text(sample.name);
    if (sample.labels.empty())
        return text;
    text += '{';
    bool first = true;
    for (const Label &l : sample.labels) {
        if (!first)
            text += ',';
        first = false;
        text.append(l.name).append("=\"");
        // Escaped as the exposition format writes it, so the text reads back.
        for (char c : l.value) {
            if (c == '\\' || c == '"')
                text += '\\';
            if (c == '\n')
                text += "\\n";
            else
                text += c;
        }
        text += '"';
    }
    text += '}';
    return text;
}

std::string CounterRate::seriesIdentity(const Sample &sample)
{
    return std::string(sample.name) + '\0' + labelSet(sample);
}

std::vector<SeriesRate> CounterRate::perSeries(const Scrape &before, const Scrape &after)
{
    const bool restarted = processRestarted(before.page, after.page);
    std::unordered_map<std::string, const Sample *> earlier;
    for (const Family &family : before.page.families)
        for (const std::size_t i : family.samples)
            if (isCounterSample(family, before.page.samples[i]))
                earlier.emplace(seriesIdentity(before.page.samples[i]), &before.page.samples[i]);

    std::vector<std::pair<std::size_t, SeriesRate>> found; // (page index, rate)
    for (const Family &family : after.page.families) {
        for (const std::size_t i : family.samples) {
            const Sample &s = after.page.samples[i];
            if (!isCounterSample(family, s))
                continue;
            const auto it = earlier.find(seriesIdentity(s));
            if (it == earlier.end())
                continue;
            const auto created1 = createdTime(before.page, *it->second);
            const auto created2 = createdTime(after.page, s);
            const bool createdChanged = created1 && created2 && *created1 != *created2;
            Rate rate = between(it->second->value, before.timeS, s.value, after.timeS,
                                restarted || createdChanged, created2);
            if (rate.perSecond)
                found.emplace_back(i, SeriesRate{seriesText(s), rate});
        }
    }
    // Families group samples out of page order when a family is split: sort back.
    std::sort(found.begin(), found.end(),
              [](const auto &a, const auto &b) { return a.first < b.first; });
    std::vector<SeriesRate> rates;
    rates.reserve(found.size());
    for (auto &[index, rate] : found)
        rates.push_back(std::move(rate));
    return rates;
}

Rate CounterRate::perConcept(Concept which, const Scrape &before, const Scrape &after,
                             Profile profile)
{
    return perConcept(which, before, ConceptResolver(before.page, profile), after,
                      ConceptResolver(after.page, profile));
}

Rate CounterRate::perConcept(Concept which, const Scrape &before,
                             const ConceptResolver &beforeNames, const Scrape &after,
                             const ConceptResolver &afterNames)
{
    const Resolution &first = beforeNames.resolve(which);
    const Resolution &second = afterNames.resolve(which);
    Rate total;
    if (!first.found() || !second.found() || !(after.timeS > before.timeS))
        return total;
    // A renamed family is a new counter: it started from 0 (an upgrade restarts).
    const bool renamed = first.family != second.family;
    const bool restarted = renamed || processRestarted(before.page, after.page);
    // Aggregation rule 1: the first non-NaN series of each group, in page order.
    const FoldedSeries earlier(first.samples);
    const FoldedSeries later(second.samples);
    double sum = 0;
    bool any = false;
    for (const SeriesGroup &group : later.inOrder) {
        const Sample *s = &group.sample();
        const Sample *then = renamed ? nullptr : earlier.find(group);
        std::optional<double> v1;
        std::optional<double> created1;
        if (then) {
            v1 = then->value;
            created1 = createdTime(before.page, *then);
        } else if (renamed) {
            v1 = 0; // only to reach between(); the reset flag makes v2 the increase
        } else {
            continue; // a group on one page only: no rate, as in Prometheus
        }
        const auto created2 = createdTime(after.page, *s);
        const bool createdChanged = created1 && created2 && *created1 != *created2;
        const Rate rate = between(*v1, before.timeS, s->value, after.timeS,
                                  restarted || createdChanged, created2);
        if (!rate.perSecond)
            continue;
        any = true;
        sum += *rate.perSecond;
        total.reset = total.reset || rate.reset;
        total.fromCreated = total.fromCreated || rate.fromCreated;
    }
    if (any)
        total.perSecond = sum;
    return total;
}

} // namespace opsdeck::metrics
