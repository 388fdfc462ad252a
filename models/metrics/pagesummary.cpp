#include "pagesummary.h"

#include "aggregation.h"

#include <utility>

namespace opsdeck::metrics {

namespace {

class Reader
{
public:
    Reader(const MetricPage &page, const ConceptResolver &names, PageSummary &out)
        : m_page(page), m_resolver(names), m_out(out)
    {
        m_out.profile = m_resolver.profile();
    }

    const Resolution &resolve(Concept which)
    {
        const Resolution &r = m_resolver.resolve(which);
        if (r.found())
            m_out.sources.push_back({which, r.family, r.profile, r.note});
        return r;
    }

    Aggregate fold(Concept which, Resolution *where = nullptr)
    {
        const Resolution &r = resolve(which);
        if (where)
            *where = r;
        if (!r.found())
            return {};
        Aggregate a;
        switch (EngineProfile::fold(which)) {
        case Fold::Ratio:
            a = Aggregation::average(r.samples, r.family);
            break;
        case Fold::Health:
            a = Aggregation::health(r.samples, r.family);
            break;
        default:
            a = Aggregation::sum(r.samples, r.family);
            break;
        }
        keep(a.warnings);
        return a;
    }

    std::optional<double> value(Concept which) { return fold(which).value; }

    std::optional<double> meanS(Concept which)
    {
        const Resolution &r = resolve(which);
        if (!r.found())
            return std::nullopt;
        HistogramAggregate h = Aggregation::histogramMean(m_page, r.family);
        keep(h.warnings);
        return h.mean();
    }

private:
    void keep(std::vector<std::string> &warnings)
    {
        for (std::string &w : warnings)
            m_out.warnings.push_back(std::move(w));
    }

    const MetricPage &m_page;
    const ConceptResolver &m_resolver;
    PageSummary &m_out;
};

} // namespace

PageSummary summarizePage(const MetricPage &page)
{
    return summarizePage(page, Profile::Auto);
}

PageSummary summarizePage(const MetricPage &page, Profile profile)
{
    return summarizePage(page, ConceptResolver(page, profile));
}

PageSummary summarizePage(const MetricPage &page, const ConceptResolver &names)
{
    PageSummary s;
    Reader read(page, names, s);
    s.running = read.value(Concept::Running);
    s.waiting = read.value(Concept::Waiting);
    const Aggregate kv = read.fold(Concept::KvUsage);
    s.kvUsage = kv.value;
    s.kvUsageMax = kv.max;
    s.promptTokensTotal = read.value(Concept::PromptTokens);
    s.generationTokensTotal = read.value(Concept::GenerationTokens);
    s.ttftMeanS = read.meanS(Concept::Ttft);
    s.itlMeanS = read.meanS(Concept::Itl);
    s.e2eMeanS = read.meanS(Concept::E2e);
    s.queueTimeMeanS = read.meanS(Concept::QueueTime);
    s.prefillBootstrapQueue = read.value(Concept::PrefillBootstrapQueue);
    s.prefillInflightQueue = read.value(Concept::PrefillInflightQueue);
    s.decodePreallocQueue = read.value(Concept::DecodePreallocQueue);
    s.decodeTransferQueue = read.value(Concept::DecodeTransferQueue);
    s.bootstrapFailuresTotal = read.value(Concept::BootstrapFailures);
    s.transferFailuresTotal = read.value(Concept::TransferFailures);
    const Aggregate health = read.fold(Concept::WorkerHealth);
    if (health.value) {
        s.workersHealthy = health.value;
        s.workersTotal = health.groups;
    }
    Resolution queriesAt;
    Resolution hitsAt;
    const auto queries = read.fold(Concept::PrefixCacheQueries, &queriesAt).value;
    const auto hits = read.fold(Concept::PrefixCacheHits, &hitsAt).value;
    // Same generation only: vLLM's old counters count blocks, the new ones tokens.
    if (queries && hits && *queries > 0 && queriesAt.aliasIndex == hitsAt.aliasIndex)
        s.prefixCacheHitRatio = *hits / *queries;
    return s;
}

} // namespace opsdeck::metrics
