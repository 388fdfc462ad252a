#include "enginemetrics.h"

#include "promwriter.h"

#include <functional>

namespace opsdeck::sim {

namespace {

// Default buckets of SGLang's TokenizerMetricsCollector.
const std::vector<double> kTtftBuckets = {0.1, 0.2, 0.4, 0.6, 0.8, 1,  2,   4,   6,
                                          8,   10,  20,  40,  60,  80, 100, 200, 400};
const std::vector<double> kItlBuckets = {0.002, 0.004, 0.006, 0.008, 0.010, 0.015, 0.020, 0.025,
                                         0.030, 0.035, 0.040, 0.060, 0.080, 0.100, 0.200, 0.400,
                                         0.600, 0.800, 1.000, 2.000, 4.000, 6.000, 8.000};
const std::vector<double> kE2eBuckets = {0.1, 0.2, 0.4, 0.6, 0.8, 1,   2,   4,   6,    8,    10,
                                         20,  40,  60,  80,  100, 200, 400, 600, 1200, 1800, 2400};

} // namespace

EngineMetrics::EngineMetrics(std::string modelName, std::string engineType)
    : m_modelName(std::move(modelName)), m_engineType(std::move(engineType)), m_ttft(kTtftBuckets),
      m_itl(kItlBuckets), m_e2e(kE2eBuckets)
{
}

void EngineMetrics::observeTtft(double seconds)
{
    std::lock_guard lock(m_mutex);
    m_ttft.observe(seconds);
}

void EngineMetrics::observeItl(const std::vector<double> &seconds)
{
    std::lock_guard lock(m_mutex);
    for (const double s : seconds)
        m_itl.observe(s);
}

void EngineMetrics::requestFinished(int promptTokens, int completionTokens, double e2eSeconds)
{
    std::lock_guard lock(m_mutex);
    m_promptTokens += static_cast<std::uint64_t>(promptTokens);
    m_generationTokens += static_cast<std::uint64_t>(completionTokens);
    ++m_requests;
    m_e2e.observe(e2eSeconds);
}

void EngineMetrics::requestAborted()
{
    std::lock_guard lock(m_mutex);
    ++m_aborted;
}

std::uint64_t EngineMetrics::finishedRequests() const
{
    std::lock_guard lock(m_mutex);
    return m_requests;
}

std::uint64_t EngineMetrics::generationTokens() const
{
    std::lock_guard lock(m_mutex);
    return m_generationTokens;
}

std::string EngineMetrics::render(const std::vector<RankStats> &ranks) const
{
    PromWriter out(PromWriter::Style::Python);
    auto rankLabels = [&](const RankStats &r) {
        const std::string rank = std::to_string(r.dpRank);
        return PromWriter::Labels{{"dp_rank", rank},
                                  {"engine_type", m_engineType},
                                  {"model_name", m_modelName},
                                  {"pp_rank", "0"},
                                  {"tp_rank", rank}};
    };
    auto perRank = [&](const std::string &name, const char *type, const std::string &help,
                       const std::function<double(const RankStats &)> &value) {
        out.family(name, type, help);
        for (const RankStats &r : ranks)
            out.sample(name, rankLabels(r), value(r));
    };

    perRank("sglang:num_running_reqs", "gauge", "The number of running requests.",
            [](const RankStats &r) { return r.running; });
    perRank("sglang:num_used_tokens", "gauge", "The number of used tokens.",
            [](const RankStats &r) { return static_cast<double>(r.usedTokens); });
    perRank("sglang:token_usage", "gauge", "The token usage.",
            [](const RankStats &r) { return r.tokenUsage; });
    perRank("sglang:gen_throughput", "gauge", "The generation throughput (token/s).",
            [](const RankStats &r) { return r.genThroughput; });
    perRank("sglang:num_queue_reqs", "gauge", "The number of requests in the waiting queue.",
            [](const RankStats &r) { return r.waiting; });
    perRank("sglang:cache_hit_rate", "gauge", "The prefix cache hit rate.",
            [](const RankStats &) { return 0.0; });
    perRank("sglang:max_total_num_tokens", "gauge",
            "Maximum total number of tokens in the KV cache pool.",
            [](const RankStats &r) { return static_cast<double>(r.maxTotalTokens); });
    perRank("sglang:utilization", "gauge", "The utilization.",
            [](const RankStats &r) { return r.utilization; });
    perRank("sglang:num_prefill_prealloc_queue_reqs", "gauge",
            "The number of requests in the prefill prealloc queue.",
            [](const RankStats &r) { return r.prefillPrealloc; });
    perRank("sglang:num_prefill_inflight_queue_reqs", "gauge",
            "The number of requests in the prefill inflight queue.",
            [](const RankStats &r) { return r.prefillInflight; });
    perRank("sglang:num_decode_prealloc_queue_reqs", "gauge",
            "The number of requests in the decode prealloc queue.",
            [](const RankStats &r) { return r.decodePrealloc; });
    perRank("sglang:num_decode_transfer_queue_reqs", "gauge",
            "The number of requests in the decode transfer queue.",
            [](const RankStats &r) { return r.decodeTransfer; });
    perRank("sglang:kv_transfer_latency_ms", "gauge", "The transfer latency of the KV cache in ms.",
            [](const RankStats &r) { return r.kvTransferLatencyMs; });
    perRank("sglang:num_bootstrap_failed_reqs_total", "counter",
            "The number of bootstrap failed requests.",
            [](const RankStats &r) { return static_cast<double>(r.bootstrapFailed); });
    perRank("sglang:num_transfer_failed_reqs_total", "counter",
            "The number of transfer failed requests.",
            [](const RankStats &r) { return static_cast<double>(r.transferFailed); });

    std::lock_guard lock(m_mutex);
    const PromWriter::Labels model = {{"model_name", m_modelName}};
    auto counter = [&](const std::string &name, const std::string &help, std::uint64_t value) {
        out.family(name, "counter", help);
        out.sample(name, model, static_cast<double>(value));
    };
    counter("sglang:prompt_tokens_total", "Number of prefill tokens processed.", m_promptTokens);
    counter("sglang:generation_tokens_total", "Number of generation tokens processed.",
            m_generationTokens);
    counter("sglang:cached_tokens_total", "Number of cached prompt tokens.", 0);
    counter("sglang:num_requests_total", "Number of requests processed.", m_requests);
    counter("sglang:num_aborted_requests_total", "Number of requests aborted.", m_aborted);
    out.family("sglang:time_to_first_token_seconds", "histogram",
               "Histogram of time to first token in seconds.");
    out.histogram("sglang:time_to_first_token_seconds", model, m_ttft);
    out.family("sglang:inter_token_latency_seconds", "histogram",
               "Histogram of inter-token latency in seconds.");
    out.histogram("sglang:inter_token_latency_seconds", model, m_itl);
    out.family("sglang:e2e_request_latency_seconds", "histogram",
               "Histogram of End-to-end request latency in seconds");
    out.histogram("sglang:e2e_request_latency_seconds", model, m_e2e);
    return out.text();
}

} // namespace opsdeck::sim
