// The JSON documents of EngineService: /server_info, /v1/models, /v1/loads.
#include "engineservice.h"
#include "simjson.h"

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
    Json states = Json::array();
    for (const RankStats &r : ranks)
        states.push_back({{"dp_rank", r.dpRank},
                          {"last_gen_throughput", r.genThroughput},
                          {"num_running_reqs", r.running},
                          {"num_queue_reqs", r.waiting}});
    const Json sim{{"role", SimOptions::roleName(m_options.role)},
                   {"ready", ready()},
                   {"decode_step_base_ms", c.decodeBaseMs},
                   {"decode_step_per_req_ms", c.decodePerRequestMs},
                   {"prefill_step_base_ms", c.prefillBaseMs},
                   {"prefill_step_per_token_ms", c.prefillPerTokenMs},
                   {"knobs", {{"SGLANG_SM120_MMA_TARGET_CTAS", m_model.mmaTargetCtas()}}},
                   {"gen_throughput", throughput}};
    return dumped(Json{{"model_path", m_options.servedModelName},
                       {"served_model_name", m_options.servedModelName},
                       {"host", m_options.host},
                       {"port", m_server.boundPort()},
                       {"tp_size", m_options.tp},
                       {"dp_size", m_options.dp},
                       {"enable_dp_attention", m_options.dp > 1},
                       {"max_running_requests", m_options.maxRunningRequests},
                       {"chunked_prefill_size", m_options.chunkedPrefillSize},
                       {"max_total_num_tokens", m_options.maxTotalTokens},
                       {"disaggregation_mode", disaggregationMode()},
                       {"disaggregation_bootstrap_port", bootstrapPort},
                       {"disaggregation_transfer_backend", m_options.transferBackend},
                       {"enable_metrics", true},
                       {"version", kVersion},
                       {"internal_states", states},
                       {"opsdeck_sim", sim}});
}

std::string EngineService::models() const
{
    const Json model{{"id", m_options.servedModelName},
                     {"object", "model"},
                     {"created", static_cast<std::int64_t>(epochSeconds())},
                     {"owned_by", "sglang"},
                     {"root", m_options.servedModelName},
                     {"max_model_len", m_options.maxTotalTokens}};
    return dumped(Json{{"object", "list"}, {"data", Json::array({model})}});
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
    Json loads = Json::array();
    long totalRunning = 0, totalWaiting = 0, totalUsed = 0, totalTokens = 0;
    double usage = 0, throughput = 0, utilization = 0;
    for (const RankStats &r : ranks) {
        const long total = r.usedTokens + r.pendingTokens;
        loads.push_back(
            {{"dp_rank", r.dpRank},
             {"timestamp", now},
             {"num_running_reqs", r.running},
             {"num_waiting_reqs", r.waiting},
             {"num_used_tokens", r.usedTokens},
             {"num_total_tokens", total},
             {"max_total_num_tokens", r.maxTotalTokens},
             {"token_usage", r.tokenUsage},
             {"gen_throughput", r.genThroughput},
             {"cache_hit_rate", 0.0},
             {"utilization", r.utilization},
             {"max_running_requests", r.maxRunning},
             {"disaggregation",
              {{"mode", disaggregationMode()},
               {"prefill_prealloc_queue_reqs", r.prefillPrealloc},
               {"prefill_inflight_queue_reqs", r.prefillInflight},
               {"decode_prealloc_queue_reqs", r.decodePrealloc},
               {"decode_transfer_queue_reqs", r.decodeTransfer},
               {"decode_retracted_queue_reqs", 0},
               {"kv_transfer_speed_gb_s", 0.0},
               {"kv_transfer_latency_ms", r.kvTransferLatencyMs}}},
             {"queues", {{"waiting", r.waiting}, {"grammar", 0}, {"paused", 0}, {"retracted", 0}}},
             {"num_total_reqs", r.running + r.waiting}});
        totalRunning += r.running;
        totalWaiting += r.waiting;
        totalUsed += r.usedTokens;
        totalTokens += total;
        usage += r.tokenUsage;
        throughput += r.genThroughput;
        utilization += r.utilization;
    }
    const double n = ranks.empty() ? 1.0 : static_cast<double>(ranks.size());
    const Json aggregate{{"total_running_reqs", totalRunning},
                         {"total_waiting_reqs", totalWaiting},
                         {"total_reqs", totalRunning + totalWaiting},
                         {"total_used_tokens", totalUsed},
                         {"total_tokens", totalTokens},
                         {"avg_token_usage", usage / n},
                         {"avg_throughput", throughput / n},
                         {"avg_utilization", utilization / n}};
    return dumped(Json{{"timestamp", isoNow()},
                       {"version", kVersion},
                       {"dp_rank_count", static_cast<std::int64_t>(ranks.size())},
                       {"loads", loads},
                       {"aggregate", aggregate}});
}

} // namespace opsdeck::sim
