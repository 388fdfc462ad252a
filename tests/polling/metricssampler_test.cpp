// MetricsSampler on the fixture pages of tests/data/metrics (origins in
// tests/data/metrics/SOURCES.md). Later pages are the fixture with known
// changes applied to the parsed samples (named in each test), so every
// expected number follows from the fixture's own values.
#include "expositionparser.h"
#include "metricssampler.h"
#include "testsupport.h"

#include <cmath>
#include <gtest/gtest.h>

using namespace opsdeck;
using metrics::MetricPage;
using probes::MetricsSampler;
using probes::MetricsSnapshot;

namespace {

MetricPage fixture(const QString &file)
{
    const QByteArray bytes = test::readData(QStringLiteral("metrics/") + file);
    return metrics::ExpositionParser::parse(
        std::string_view(bytes.constData(), static_cast<std::size_t>(bytes.size())));
}

MetricPage sglangDocsPage()
{
    return fixture(QStringLiteral("01-sglang_docs_production_metrics_example.prom"));
}

/// Sets (or, with `add`, raises) every sample named `name` whose `le` label
/// is empty or a bound >= `fromLe`.
void change(MetricPage &page, std::string_view name, double value, bool add = false,
            double fromLe = -1)
{
    int changed = 0;
    for (metrics::Sample &s : page.samples) {
        if (s.name != name)
            continue;
        const std::string_view le = s.label("le");
        if (!le.empty() && le != "+Inf" && std::stod(std::string(le)) < fromLe)
            continue;
        s.value = add ? s.value + value : value;
        ++changed;
    }
    ASSERT_GT(changed, 0) << name;
}

double valueOf(const MetricsSnapshot &snapshot, const char *key)
{
    const probes::SeriesValue *v = snapshot.find(QLatin1String(key));
    return v ? v->value : std::nan("");
}

constexpr qint64 t0 = 1'700'000'000'000; // ms since the epoch; any fixed time does

} // namespace

TEST(MetricsSampler, ReadsTheSglangGaugesWithUnitsSourcesAndRefresh)
{
    MetricsSampler sampler(QStringLiteral("decode-0"));
    const MetricsSnapshot s = sampler.sample(sglangDocsPage(), t0);
    EXPECT_TRUE(s.error.isEmpty()) << s.error.toStdString();
    EXPECT_EQ(s.service, QStringLiteral("decode-0"));
    EXPECT_EQ(s.timeMs, t0);
    EXPECT_EQ(s.profile, QStringLiteral("sglang"));
    // sglang:num_running_reqs 162, num_queue_reqs 2826, token_usage 0.28 on the page.
    EXPECT_EQ(valueOf(s, "running"), 162.0);
    EXPECT_EQ(valueOf(s, "waiting"), 2826.0);
    EXPECT_DOUBLE_EQ(valueOf(s, "kv_usage"), 0.28);
    EXPECT_DOUBLE_EQ(valueOf(s, "kv_usage_max"), 0.28);
    const probes::SeriesValue *running = s.find(QStringLiteral("running"));
    ASSERT_NE(running, nullptr);
    EXPECT_EQ(running->unit, QStringLiteral("requests"));
    EXPECT_EQ(running->source, QStringLiteral("sglang:num_running_reqs"));
    EXPECT_EQ(running->sampledAtMs, t0) << "the first scrape counts as a change";
    EXPECT_TRUE(running->refresh.contains(QStringLiteral("every 40 decode steps, 30 s when idle")))
        << running->refresh.toStdString();
    EXPECT_TRUE(running->refresh.contains(QStringLiteral("--decode-log-interval")));
    EXPECT_EQ(s.find(QStringLiteral("kv_usage"))->unit, QStringLiteral("ratio"));
    EXPECT_EQ(s.find(QStringLiteral("kv_usage"))->source, QStringLiteral("sglang:token_usage"));
}

TEST(MetricsSampler, AbsentConceptsGiveNoValueNotZero)
{
    MetricsSampler sampler(QStringLiteral("engine"));
    MetricPage first = sglangDocsPage();
    MetricPage second = sglangDocsPage();
    const MetricsSnapshot a = sampler.sample(first, t0);
    const MetricsSnapshot b = sampler.sample(second, t0 + 10'000);
    for (const MetricsSnapshot *s : {&a, &b}) {
        // The docs page has no PD queues, no router, no PD failure counters.
        for (const char *key :
             {"prefill_bootstrap_queue", "prefill_inflight_queue", "decode_prealloc_queue",
              "decode_transfer_queue", "workers_healthy", "workers_total",
              "bootstrap_failures_per_s", "transfer_failures_per_s"})
            EXPECT_EQ(s->find(QLatin1String(key)), nullptr) << key;
        EXPECT_EQ(s->find(QStringLiteral("running{dp_rank=\"0\"}")), nullptr)
            << "no dp_rank label, no per-rank key";
    }
    // No rate and no quantile from one page alone.
    EXPECT_EQ(a.find(QStringLiteral("generation_tokens_per_s")), nullptr);
    EXPECT_EQ(a.find(QStringLiteral("ttft_p50_s")), nullptr);
    // Two identical pages: a rate of 0 (the counter is there), but no quantile
    // (no observation in the window is no value, not NaN or 0).
    EXPECT_EQ(valueOf(b, "generation_tokens_per_s"), 0.0);
    for (const char *key : {"ttft_p50_s", "ttft_p99_s", "itl_p50_s", "e2e_p95_s"})
        EXPECT_EQ(b.find(QLatin1String(key)), nullptr) << key;
}

TEST(MetricsSampler, PerRankKeysForTheDrillDown)
{
    // B09 decode: num_running_reqs 20 (dp_rank 0) + 18 (dp_rank 1); queue 0 and 2.
    MetricsSampler sampler(QStringLiteral("decode"));
    const MetricsSnapshot s =
        sampler.sample(fixture(QStringLiteral("B09_sglang_worker_decode.prom")), t0);
    EXPECT_EQ(valueOf(s, "running"), 38.0);
    EXPECT_EQ(valueOf(s, "running{dp_rank=\"0\"}"), 20.0);
    EXPECT_EQ(valueOf(s, "running{dp_rank=\"1\"}"), 18.0);
    EXPECT_EQ(valueOf(s, "waiting{dp_rank=\"0\"}"), 0.0);
    EXPECT_EQ(valueOf(s, "waiting{dp_rank=\"1\"}"), 2.0);
    EXPECT_EQ(s.find(QStringLiteral("running{dp_rank=\"1\"}"))->unit, QStringLiteral("requests"));

    // Eight dp ranks of the aibrix page: num_queue_reqs only for ranks 1 and 3.
    MetricsSampler multi(QStringLiteral("dp8"));
    const MetricsSnapshot m = multi.sample(
        fixture(QStringLiteral("02-sglang_dp_attention_multirank_aibrix1614.prom")), t0);
    EXPECT_EQ(valueOf(m, "waiting{dp_rank=\"1\"}"), 0.0);
    EXPECT_EQ(valueOf(m, "waiting{dp_rank=\"3\"}"), 0.0);
    EXPECT_EQ(m.find(QStringLiteral("waiting{dp_rank=\"0\"}")), nullptr);
}

TEST(MetricsSampler, RatesFromTheTokenCountersAgainstThePreviousPage)
{
    MetricsSampler sampler(QStringLiteral("engine"));
    MetricPage later = sglangDocsPage();
    // 10 s later: 1500 more generated and 4000 more prompt tokens.
    change(later, "sglang:generation_tokens_total", 7.557572e+06 + 1500);
    change(later, "sglang:prompt_tokens_total", 8.128902e+06 + 4000);
    // gen_throughput, the engine's own gauge, is never read for throughput.
    change(later, "sglang:gen_throughput", 99999);
    sampler.sample(sglangDocsPage(), t0);
    const MetricsSnapshot s = sampler.sample(later, t0 + 10'000);
    EXPECT_DOUBLE_EQ(valueOf(s, "generation_tokens_per_s"), 150.0);
    EXPECT_DOUBLE_EQ(valueOf(s, "prompt_tokens_per_s"), 400.0);
    const probes::SeriesValue *gen = s.find(QStringLiteral("generation_tokens_per_s"));
    EXPECT_EQ(gen->unit, QStringLiteral("tokens/s"));
    EXPECT_EQ(gen->source, QStringLiteral("sglang:generation_tokens_total"));
    EXPECT_EQ(gen->sampledAtMs, t0 + 10'000) << "derived values are as old as the scrape";
    EXPECT_TRUE(gen->refresh.isEmpty());
    for (const QString &w : s.warnings)
        EXPECT_FALSE(w.contains(QStringLiteral("reset"))) << w.toStdString();
}

TEST(MetricsSampler, ACounterThatFellIsAResetNeverANegativeRateOrASpike)
{
    MetricsSampler sampler(QStringLiteral("engine"));
    MetricPage restarted = sglangDocsPage();
    // The engine restarted between scrapes and has generated 500 tokens since.
    change(restarted, "sglang:generation_tokens_total", 500);
    sampler.sample(sglangDocsPage(), t0);
    const MetricsSnapshot s = sampler.sample(restarted, t0 + 10'000);
    // Counted from 0 over the interval (no creation time on the page): 50/s,
    // not (500 - 7557572) / 10 and not 7.5M / 10.
    EXPECT_DOUBLE_EQ(valueOf(s, "generation_tokens_per_s"), 50.0);
    bool warned = false;
    for (const QString &w : s.warnings)
        warned = warned || (w.contains(QStringLiteral("sglang:generation_tokens_total")) &&
                            w.contains(QStringLiteral("reset")));
    EXPECT_TRUE(warned) << s.warnings.join(QLatin1Char('\n')).toStdString();
}

TEST(MetricsSampler, QuantilesOverTheSlidingWindowOnly)
{
    MetricsSampler::Settings settings;
    settings.windowMs = 60'000;
    MetricsSampler sampler(QStringLiteral("engine"), metrics::Profile::Auto, settings);
    MetricPage at20 = sglangDocsPage();
    // t = 20 s: 100 requests with a TTFT in (0.75, 1.0] s.
    change(at20, "sglang:time_to_first_token_seconds_bucket", 100, true, 1.0);
    change(at20, "sglang:time_to_first_token_seconds_count", 100, true);
    MetricPage at80 = at20;
    // t = 80 s: 100 more in (2.5, 5.0] s.
    change(at80, "sglang:time_to_first_token_seconds_bucket", 100, true, 5.0);
    change(at80, "sglang:time_to_first_token_seconds_count", 100, true);

    sampler.sample(sglangDocsPage(), t0);
    const MetricsSnapshot first = sampler.sample(at20, t0 + 20'000);
    // Window [0, 20 s]: all 100 in (0.75, 1.0]; linear inside the bucket.
    EXPECT_DOUBLE_EQ(valueOf(first, "ttft_p50_s"), 0.75 + 0.25 * 0.50);
    EXPECT_DOUBLE_EQ(valueOf(first, "ttft_p95_s"), 0.75 + 0.25 * 0.95);
    EXPECT_DOUBLE_EQ(valueOf(first, "ttft_p99_s"), 0.75 + 0.25 * 0.99);
    EXPECT_EQ(first.find(QStringLiteral("ttft_p50_s"))->unit, QStringLiteral("s"));
    EXPECT_EQ(first.find(QStringLiteral("ttft_p50_s"))->source,
              QStringLiteral("sglang:time_to_first_token_seconds"));
    EXPECT_EQ(first.find(QStringLiteral("itl_p50_s")), nullptr) << "no ITL observed in the window";

    // At 80 s the window starts at 20 s: the page kept there is the base, so
    // only the slow requests count (p50 = 2.5 + 2.5 x 0.5). Since the start
    // of the page the median would be 1.0 s.
    const MetricsSnapshot second = sampler.sample(at80, t0 + 80'000);
    EXPECT_DOUBLE_EQ(valueOf(second, "ttft_p50_s"), 3.75);
    EXPECT_DOUBLE_EQ(valueOf(second, "ttft_p99_s"), 2.5 + 2.5 * 0.99);
}

TEST(MetricsSampler, AnUnchangedSglangGaugeKeepsTheTimeItLastChanged)
{
    MetricsSampler sampler(QStringLiteral("engine"));
    MetricPage changed = sglangDocsPage();
    change(changed, "sglang:num_running_reqs", 170);
    sampler.sample(sglangDocsPage(), t0);
    const MetricsSnapshot same = sampler.sample(sglangDocsPage(), t0 + 5'000);
    EXPECT_EQ(same.find(QStringLiteral("running"))->sampledAtMs, t0);
    EXPECT_EQ(same.find(QStringLiteral("kv_usage"))->sampledAtMs, t0);
    const MetricsSnapshot moved = sampler.sample(changed, t0 + 10'000);
    EXPECT_EQ(moved.find(QStringLiteral("running"))->sampledAtMs, t0 + 10'000);
    EXPECT_EQ(moved.find(QStringLiteral("waiting"))->sampledAtMs, t0) << "2826 all along";
    EXPECT_EQ(moved.find(QStringLiteral("generation_tokens_per_s"))->sampledAtMs, t0 + 10'000);

    // vLLM refreshes its gauges on every scrape: they are as old as the scrape.
    MetricsSampler vllm(QStringLiteral("vllm"));
    vllm.sample(fixture(QStringLiteral("04-vllm_metrics_examples.prom")), t0);
    const MetricsSnapshot v =
        vllm.sample(fixture(QStringLiteral("04-vllm_metrics_examples.prom")), t0 + 5'000);
    ASSERT_NE(v.find(QStringLiteral("running")), nullptr);
    EXPECT_EQ(v.find(QStringLiteral("running"))->sampledAtMs, t0 + 5'000);
    EXPECT_TRUE(v.find(QStringLiteral("running"))->refresh.isEmpty());
}

TEST(MetricsSampler, APageTimestampIsTheSampleTime)
{
    // O01: sglang:num_running_reqs 19 written at 1700000123.456 s (OpenMetrics).
    MetricsSampler sampler(QStringLiteral("engine"));
    const MetricsSnapshot s =
        sampler.sample(fixture(QStringLiteral("O01_openmetrics_handwritten.om")), t0 + 999'000);
    ASSERT_NE(s.find(QStringLiteral("running")), nullptr);
    EXPECT_EQ(s.find(QStringLiteral("running"))->value, 19.0);
    EXPECT_EQ(s.find(QStringLiteral("running"))->sampledAtMs, 1'700'000'123'456);
}

TEST(MetricsSampler, APageWithoutMetricsIsAClearErrorNamingTheService)
{
    MetricsSampler sampler(QStringLiteral("decode-7"));
    const MetricsSnapshot s =
        sampler.sample(metrics::ExpositionParser::parse("<html>not metrics {{{\n"), t0);
    EXPECT_TRUE(s.values.isEmpty());
    EXPECT_TRUE(
        s.error.startsWith(QStringLiteral("decode-7: no metric families; first bad line 1:")))
        << s.error.toStdString();
    EXPECT_EQ(sampler.keptPages(), 0u);
}

TEST(MetricsSampler, KeepsOnlyReducedPagesForTheWindow)
{
    const MetricPage full = sglangDocsPage();
    const MetricPage reduced = MetricsSampler::reduce(full);
    EXPECT_EQ(reduced.samplesNamed("sglang:func_latency_seconds_bucket").size(), 0u)
        << "no concept reads it";
    EXPECT_EQ(reduced.samplesNamed("sglang:time_to_first_token_seconds_bucket").size(),
              full.samplesNamed("sglang:time_to_first_token_seconds_bucket").size());
    EXPECT_LT(reduced.samples.size(), full.samples.size());

    MetricsSampler sampler(QStringLiteral("engine"));
    const std::size_t bound = MetricsSampler::maxKeptPages(sampler.settings());
    EXPECT_EQ(bound, 14u) << "60 s / 5 s + 2";
    std::size_t most = 0;
    for (int i = 0; i < 300; ++i) { // five minutes of scrapes at 1 Hz
        sampler.sample(full, t0 + i * 1000);
        most = std::max(most, sampler.keptPages());
    }
    EXPECT_LE(most, bound);
    EXPECT_GE(sampler.keptPages(), 12u) << "a whole window is still there";
}
