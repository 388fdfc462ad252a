// The JSON documents of EngineService: /server_info, /v1/models, /v1/loads.
#include "engineservice.h"
#include "jsonwriter.h"

#include <chrono>
#include <ctime>

namespace opsdeck::sim {

namespace {

constexpr const char *kVersion = "0.5.4";

double epochSeconds()
{
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

std::string isoNow()
{
    const auto now = std::chrono::system_clock::now();
    const std::time_t seconds = std::chrono::system_clock::to_time_t(now);
    const auto micros =
        std::chrono::duration_cast<std::chrono::microseconds>(now.time_since_epoch()).count() %
        1000000;
    std::tm utc{};
    gmtime_r(&seconds, &utc);
    char text[64];
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &utc);
    char full[96];
    std::snprintf(full, sizeof full, "%s.%06lld+00:00", text, static_cast<long long>(micros));
    return full;
}

} // namespace

std::string EngineService::serverInfo() const
{
    const auto ranks = rankStats();
    double throughput = 0;
    for (const RankStats &r : ranks)
        throughput += r.genThroughput;
    const int bootstrapPort = m_bootstrap ? m_bootstrap->port() : m_options.bootstrapPort;
    const auto &c = m_model.constants();
    JsonWriter w;
    w.beginObject()
        .string("model_path", m_options.servedModelName)
        .string("served_model_name", m_options.servedModelName)
        .string("host", m_options.host)
        .integer("port", m_server.boundPort())
        .integer("tp_size", m_options.tp)
        .integer("dp_size", m_options.dp)
        .boolean("enable_dp_attention", m_options.dp > 1)
        .integer("max_running_requests", m_options.maxRunningRequests)
        .integer("chunked_prefill_size", m_options.chunkedPrefillSize)
        .integer("max_total_num_tokens", m_options.maxTotalTokens)
        .string("disaggregation_mode", disaggregationMode())
        .integer("disaggregation_bootstrap_port", bootstrapPort)
        .string("disaggregation_transfer_backend", m_options.transferBackend)
        .boolean("enable_metrics", true)
        .string("version", kVersion)
        .beginArray("internal_states");
    for (const RankStats &r : ranks) {
        w.beginObject()
            .integer("dp_rank", r.dpRank)
            .number("last_gen_throughput", r.genThroughput)
            .integer("num_running_reqs", r.running)
            .integer("num_queue_reqs", r.waiting)
            .endObject();
    }
    w.endArray()
        .beginObject("opsdeck_sim")
        .string("role", SimOptions::roleName(m_options.role))
        .boolean("ready", ready())
        .number("decode_step_base_ms", c.decodeBaseMs)
        .number("decode_step_per_req_ms", c.decodePerRequestMs)
        .number("prefill_step_base_ms", c.prefillBaseMs)
        .number("prefill_step_per_token_ms", c.prefillPerTokenMs)
        .beginObject("knobs")
        .string("SGLANG_SM120_MMA_TARGET_CTAS", m_model.mmaTargetCtas())
        .endObject()
        .number("gen_throughput", throughput)
        .endObject()
        .endObject();
    return w.str();
}

std::string EngineService::models() const
{
    JsonWriter w;
    w.beginObject()
        .string("object", "list")
        .beginArray("data")
        .beginObject()
        .string("id", m_options.servedModelName)
        .string("object", "model")
        .integer("created", static_cast<std::int64_t>(epochSeconds()))
        .string("owned_by", "sglang")
        .string("root", m_options.servedModelName)
        .integer("max_model_len", m_options.maxTotalTokens)
        .endObject()
        .endArray()
        .endObject();
    return w.str();
}

std::string EngineService::loads(const httplib::Request &req) const
{
    // Shape of SGLang's /v1/loads (python/sglang/srt/entrypoints/v1_loads.py):
    // timestamp, version, dp_rank_count, loads[] per rank, aggregate.
    std::vector<RankStats> ranks = rankStats();
    if (req.has_param("dp_rank")) {
        const int wanted = std::atoi(req.get_param_value("dp_rank").c_str());
        std::erase_if(ranks, [wanted](const RankStats &r) { return r.dpRank != wanted; });
    }
    const double now = epochSeconds();
    JsonWriter w;
    w.beginObject()
        .string("timestamp", isoNow())
        .string("version", kVersion)
        .integer("dp_rank_count", static_cast<std::int64_t>(ranks.size()))
        .beginArray("loads");
    long totalRunning = 0, totalWaiting = 0, totalUsed = 0, totalTokens = 0;
    double usage = 0, throughput = 0, utilization = 0;
    for (const RankStats &r : ranks) {
        const long total = r.usedTokens + r.pendingTokens;
        w.beginObject()
            .integer("dp_rank", r.dpRank)
            .number("timestamp", now)
            .integer("num_running_reqs", r.running)
            .integer("num_waiting_reqs", r.waiting)
            .integer("num_used_tokens", r.usedTokens)
            .integer("num_total_tokens", total)
            .integer("max_total_num_tokens", r.maxTotalTokens)
            .number("token_usage", r.tokenUsage)
            .number("gen_throughput", r.genThroughput)
            .number("cache_hit_rate", 0.0)
            .number("utilization", r.utilization)
            .integer("max_running_requests", r.maxRunning)
            .beginObject("disaggregation")
            .string("mode", disaggregationMode())
            .integer("prefill_prealloc_queue_reqs", r.prefillPrealloc)
            .integer("prefill_inflight_queue_reqs", r.prefillInflight)
            .integer("decode_prealloc_queue_reqs", r.decodePrealloc)
            .integer("decode_transfer_queue_reqs", r.decodeTransfer)
            .integer("decode_retracted_queue_reqs", 0)
            .number("kv_transfer_speed_gb_s", 0.0)
            .number("kv_transfer_latency_ms", r.kvTransferLatencyMs)
            .endObject()
            .beginObject("queues")
            .integer("waiting", r.waiting)
            .integer("grammar", 0)
            .integer("paused", 0)
            .integer("retracted", 0)
            .endObject()
            .integer("num_total_reqs", r.running + r.waiting)
            .endObject();
        totalRunning += r.running;
        totalWaiting += r.waiting;
        totalUsed += r.usedTokens;
        totalTokens += total;
        usage += r.tokenUsage;
        throughput += r.genThroughput;
        utilization += r.utilization;
    }
    const double n = ranks.empty() ? 1.0 : static_cast<double>(ranks.size());
    w.endArray()
        .beginObject("aggregate")
        .integer("total_running_reqs", totalRunning)
        .integer("total_waiting_reqs", totalWaiting)
        .integer("total_reqs", totalRunning + totalWaiting)
        .integer("total_used_tokens", totalUsed)
        .integer("total_tokens", totalTokens)
        .number("avg_token_usage", usage / n)
        .number("avg_throughput", throughput / n)
        .number("avg_utilization", utilization / n)
        .endObject()
        .endObject();
    return w.str();
}

} // namespace opsdeck::sim
