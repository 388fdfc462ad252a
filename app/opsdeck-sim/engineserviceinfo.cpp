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
        .key("model_path").string(m_options.servedModelName)
        .key("served_model_name").string(m_options.servedModelName)
        .key("host").string(m_options.host)
        .key("port").integer(m_server.boundPort())
        .key("tp_size").integer(m_options.tp)
        .key("dp_size").integer(m_options.dp)
        .key("enable_dp_attention").boolean(m_options.dp > 1)
        .key("max_running_requests").integer(m_options.maxRunningRequests)
        .key("chunked_prefill_size").integer(m_options.chunkedPrefillSize)
        .key("max_total_num_tokens").integer(m_options.maxTotalTokens)
        .key("disaggregation_mode").string(disaggregationMode())
        .key("disaggregation_bootstrap_port").integer(bootstrapPort)
        .key("disaggregation_transfer_backend").string(m_options.transferBackend)
        .key("enable_metrics").boolean(true)
        .key("version").string(kVersion)
        .key("internal_states").beginArray();
    for (const RankStats &r : ranks) {
        w.beginObject()
            .key("dp_rank").integer(r.dpRank)
            .key("last_gen_throughput").number(r.genThroughput)
            .key("num_running_reqs").integer(r.running)
            .key("num_queue_reqs").integer(r.waiting)
            .endObject();
    }
    w.endArray()
        .key("opsdeck_sim").beginObject()
        .key("role").string(SimOptions::roleName(m_options.role))
        .key("ready").boolean(ready())
        .key("decode_step_base_ms").number(c.decodeBaseMs)
        .key("decode_step_per_req_ms").number(c.decodePerRequestMs)
        .key("prefill_step_base_ms").number(c.prefillBaseMs)
        .key("prefill_step_per_token_ms").number(c.prefillPerTokenMs)
        .key("knobs").beginObject()
        .key("SGLANG_SM120_MMA_TARGET_CTAS").string(m_model.mmaTargetCtas())
        .endObject()
        .key("gen_throughput").number(throughput)
        .endObject()
        .endObject();
    return w.str();
}

std::string EngineService::models() const
{
    JsonWriter w;
    w.beginObject()
        .key("object").string("list")
        .key("data").beginArray()
        .beginObject()
        .key("id").string(m_options.servedModelName)
        .key("object").string("model")
        .key("created").integer(static_cast<std::int64_t>(epochSeconds()))
        .key("owned_by").string("sglang")
        .key("root").string(m_options.servedModelName)
        .key("max_model_len").integer(m_options.maxTotalTokens)
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
        .key("timestamp").string(isoNow())
        .key("version").string(kVersion)
        .key("dp_rank_count").integer(static_cast<std::int64_t>(ranks.size()))
        .key("loads").beginArray();
    long totalRunning = 0, totalWaiting = 0, totalUsed = 0, totalTokens = 0;
    double usage = 0, throughput = 0, utilization = 0;
    for (const RankStats &r : ranks) {
        const long total = r.usedTokens + r.pendingTokens;
        w.beginObject()
            .key("dp_rank").integer(r.dpRank)
            .key("timestamp").number(now)
            .key("num_running_reqs").integer(r.running)
            .key("num_waiting_reqs").integer(r.waiting)
            .key("num_used_tokens").integer(r.usedTokens)
            .key("num_total_tokens").integer(total)
            .key("max_total_num_tokens").integer(r.maxTotalTokens)
            .key("token_usage").number(r.tokenUsage)
            .key("gen_throughput").number(r.genThroughput)
            .key("cache_hit_rate").number(0.0)
            .key("utilization").number(r.utilization)
            .key("max_running_requests").integer(r.maxRunning)
            .key("disaggregation").beginObject()
            .key("mode").string(disaggregationMode())
            .key("prefill_prealloc_queue_reqs").integer(r.prefillPrealloc)
            .key("prefill_inflight_queue_reqs").integer(r.prefillInflight)
            .key("decode_prealloc_queue_reqs").integer(r.decodePrealloc)
            .key("decode_transfer_queue_reqs").integer(r.decodeTransfer)
            .key("decode_retracted_queue_reqs").integer(0)
            .key("kv_transfer_speed_gb_s").number(0.0)
            .key("kv_transfer_latency_ms").number(r.kvTransferLatencyMs)
            .endObject()
            .key("queues").beginObject()
            .key("waiting").integer(r.waiting)
            .key("grammar").integer(0)
            .key("paused").integer(0)
            .key("retracted").integer(0)
            .endObject()
            .key("num_total_reqs").integer(r.running + r.waiting)
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
        .key("aggregate").beginObject()
        .key("total_running_reqs").integer(totalRunning)
        .key("total_waiting_reqs").integer(totalWaiting)
        .key("total_reqs").integer(totalRunning + totalWaiting)
        .key("total_used_tokens").integer(totalUsed)
        .key("total_tokens").integer(totalTokens)
        .key("avg_token_usage").number(usage / n)
        .key("avg_throughput").number(throughput / n)
        .key("avg_utilization").number(utilization / n)
        .endObject()
        .endObject();
    return w.str();
}

} // namespace opsdeck::sim
