#include "metricssampler.h"

#include "conceptresolver.h"
#include "counterrate.h"
#include "histogramquantile.h"
#include "pagearena.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <set>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

namespace opsdeck::probes {

using metrics::Concept;
using metrics::MetricPage;

namespace {

/// Every sample name a concept can be read from, with the histogram and
/// creation-time suffixes, and the process start time (counter reset rule b).
/// Hashed: reduce() asks once per sample of every page.
const std::unordered_set<std::string_view> &wantedNames()
{
    static const std::set<std::string, std::less<>> names = [] {
        std::set<std::string, std::less<>> set{"process_start_time_seconds"};
        for (const Concept which : metrics::EngineProfile::concepts()) {
            for (const auto &alias : metrics::EngineProfile::aliases(which)) {
                const std::string &f = alias.family;
                for (const char *suffix : {"", "_bucket", "_sum", "_count", "_created"})
                    set.insert(f + suffix);
                if (f.ends_with("_total"))
                    set.insert(f.substr(0, f.size() - 6) + "_created");
            }
        }
        return set;
    }();
    static const std::unordered_set<std::string_view> views(names.begin(), names.end());
    return views;
}

QString text(const std::string &s)
{
    return QString::fromStdString(s);
}

} // namespace

MetricsSampler::MetricsSampler(QString service, metrics::Profile profile)
    : MetricsSampler(std::move(service), profile, Settings())
{
}

MetricsSampler::MetricsSampler(QString service, metrics::Profile profile, Settings settings)
    : m_service(std::move(service)), m_profile(profile), m_settings(settings)
{
}

void MetricsSampler::setSettings(const Settings &settings)
{
    m_settings = settings;
    m_refreshText.clear();
}

const QString &MetricsSampler::familyText(const std::string &family)
{
    auto [it, added] = m_familyTexts.try_emplace(family);
    if (added)
        it->second = text(family);
    return it->second;
}

std::size_t MetricsSampler::maxKeptPages(const Settings &settings)
{
    const qint64 spacing = std::max<qint64>(1, settings.keepSpacingMs);
    return static_cast<std::size_t>(std::max<qint64>(0, settings.windowMs) / spacing + 2);
}

MetricPage MetricsSampler::reduce(const MetricPage &page)
{
    const auto &wanted = wantedNames();
    // Own bytes: sharing the parsed page's storage would keep the whole page
    // alive. A kept page holds a few KiB: 4 KiB blocks, not the default 64 KiB
    // (which would hold ~60 MB for 64 services' windows).
    auto arena = std::make_shared<metrics::PageArena>(4096);
    // Each name and each distinct label pair once: on the parsed page equal
    // pairs are one object (labellist.h) and a name's samples share its bytes.
    std::unordered_map<const char *, std::string_view> names;
    std::unordered_map<const metrics::Label *, const metrics::Label *> pairs;
    std::vector<const metrics::Label *> labels;
    MetricPage out;
    out.format = page.format;
    for (const metrics::Family &family : page.families) {
        metrics::Family kept;
        for (const std::size_t i : family.samples) {
            const metrics::Sample &s = page.samples[i];
            if (!wanted.contains(s.name))
                continue;
            metrics::Sample copy = s;
            // Names sharing bytes may still differ in length: compared too.
            std::string_view &name = names[s.name.data()];
            if (name != s.name)
                name = arena->copy(s.name);
            copy.name = name;
            labels.clear();
            for (const metrics::Label &l : s.labels) {
                const metrics::Label *&pair = pairs[&l];
                if (!pair)
                    pair = arena->store({arena->copy(l.name), arena->copy(l.value)});
                labels.push_back(pair);
            }
            copy.labels = arena->copy(std::span<const metrics::Label *const>(labels));
            kept.samples.push_back(out.samples.size());
            out.samples.push_back(copy);
        }
        if (kept.samples.empty())
            continue;
        kept.name = family.name;
        kept.type = family.type;
        kept.unit = family.unit;
        kept.line = family.line;
        kept.createdOf = family.createdOf;
        out.families.push_back(std::move(kept));
    }
    out.storage = std::move(arena);
    return out;
}

MetricsSnapshot MetricsSampler::failed(const QString &error, qint64 scrapeMs) const
{
    MetricsSnapshot snapshot;
    snapshot.service = m_service;
    snapshot.timeMs = scrapeMs;
    snapshot.profile = text(std::string(metrics::EngineProfile::name(m_profile)));
    snapshot.error = QStringLiteral("%1: %2").arg(m_service, error);
    return snapshot;
}

MetricsSnapshot MetricsSampler::sample(const MetricPage &page, qint64 scrapeMs)
{
    if (page.samples.empty()) {
        QString why = QStringLiteral("no metric families");
        if (!page.warnings.empty() && page.warnings.front().line == 0)
            why += QStringLiteral(": %1").arg(text(page.warnings.front().reason));
        else if (!page.warnings.empty())
            why += QStringLiteral("; first bad line %1: %2")
                       .arg(page.warnings.front().line)
                       .arg(text(page.warnings.front().reason));
        return failed(why, scrapeMs);
    }
    MetricsSnapshot out;
    out.service = m_service;
    out.timeMs = scrapeMs;
    for (const metrics::ParseWarning &w : page.warnings)
        out.warnings.append(QStringLiteral("line %1: %2").arg(w.line).arg(text(w.reason)));

    auto current = std::make_shared<Kept>();
    current->timeMs = scrapeMs;
    current->page = reduce(page);
    current->names.emplace(current->page, m_profile);
    // A restarted engine's gauges start over: their first value counts as a change.
    if (m_previous && metrics::CounterRate::processRestarted(m_previous->page, current->page))
        m_seen.clear();
    addGauges(*current, out);
    addRates(*current, out);
    addQuantiles(*current, out);
    keep(current);
    return out;
}

void MetricsSampler::addRates(const Kept &current, MetricsSnapshot &out)
{
    if (!m_previous || current.timeMs <= m_previous->timeMs)
        return;
    const metrics::Scrape before{m_previous->page, static_cast<double>(m_previous->timeMs) / 1e3};
    const metrics::Scrape after{current.page, static_cast<double>(current.timeMs) / 1e3};
    const metrics::ConceptResolver &resolver = *current.names;
    const QString requestsPerS = QStringLiteral("requests/s");
    for (const auto &[which, key, unit] :
         {std::tuple{Concept::PromptTokens, "prompt_tokens_per_s", QStringLiteral("tokens/s")},
          std::tuple{Concept::GenerationTokens, "generation_tokens_per_s",
                     QStringLiteral("tokens/s")},
          std::tuple{Concept::BootstrapFailures, "bootstrap_failures_per_s", requestsPerS},
          std::tuple{Concept::TransferFailures, "transfer_failures_per_s", requestsPerS}}) {
        const metrics::Rate rate = metrics::CounterRate::perConcept(
            which, before, *m_previous->names, after, *current.names);
        if (!rate.perSecond)
            continue;
        const std::string family = resolver.resolve(which).family;
        out.values.append(SeriesValue{QLatin1String(key), unit, *rate.perSecond, current.timeMs,
                                      familyText(family), QString(), QString(), QString()});
        if (rate.reset)
            out.warnings.append(
                QStringLiteral("%1: counter reset between scrapes (restart); counted from 0%2")
                    .arg(text(family), rate.fromCreated ? QStringLiteral(" since its _created time")
                                                        : QString()));
    }
}

void MetricsSampler::addQuantiles(const Kept &current, MetricsSnapshot &out)
{
    // The kept page closest to the window's start (all kept pages are older).
    const qint64 start = current.timeMs - m_settings.windowMs;
    const Kept *base = nullptr;
    for (const auto &kept : m_kept) {
        if (kept->timeMs >= current.timeMs)
            continue;
        if (!base || std::llabs(kept->timeMs - start) < std::llabs(base->timeMs - start))
            base = kept.get();
    }
    if (!base)
        return;
    const metrics::ConceptResolver &resolver = *current.names;
    for (const auto &[which, prefix] :
         {std::pair{Concept::Ttft, "ttft"}, std::pair{Concept::Itl, "itl"},
          std::pair{Concept::E2e, "e2e"}}) {
        const metrics::WindowQuantiles q = metrics::HistogramQuantile::forConcept(
            which, base->page, *base->names, current.page, *current.names);
        if (!q.present)
            continue;
        const QString family = familyText(resolver.resolve(which).family);
        const QString edges = QStringLiteral("first bucket up to %1 s, largest finite edge %2 s")
                                  .arg(q.firstEdge)
                                  .arg(q.lastFiniteEdge);
        for (const auto &[value, bound, name] :
             {std::tuple{q.p50, q.p50Bound, "p50"}, std::tuple{q.p95, q.p95Bound, "p95"},
              std::tuple{q.p99, q.p99Bound, "p99"}}) {
            if (std::isnan(value))
                continue; // no observation in the window: nothing to chart
            out.values.append(SeriesValue{
                QStringLiteral("%1_%2_s").arg(QLatin1String(prefix), QLatin1String(name)),
                QStringLiteral("s"), value, current.timeMs, family, QString(),
                QString::fromLatin1(metrics::quantileBoundName(bound)), edges});
        }
    }
}

void MetricsSampler::keep(const std::shared_ptr<const Kept> &current)
{
    m_previous = current;
    if (m_kept.empty() || current->timeMs - m_kept.back()->timeMs >= m_settings.keepSpacingMs)
        m_kept.push_back(current);
    // Keep the newest page at or before the window's start, and all after it.
    const qint64 start = current->timeMs - m_settings.windowMs;
    while (m_kept.size() >= 2 && m_kept[1]->timeMs <= start)
        m_kept.pop_front();
    while (m_kept.size() > maxKeptPages(m_settings))
        m_kept.pop_front();
}

} // namespace opsdeck::probes
