#include "engineprofile.h"

#include <array>
#include <cctype>
#include <vector>

namespace opsdeck::metrics {

namespace {

constexpr std::array kConcepts{
    Concept::Running,
    Concept::Waiting,
    Concept::KvUsage,
    Concept::PromptTokens,
    Concept::GenerationTokens,
    Concept::Ttft,
    Concept::Itl,
    Concept::E2e,
    Concept::QueueTime,
    Concept::PrefillBootstrapQueue,
    Concept::PrefillInflightQueue,
    Concept::DecodePreallocQueue,
    Concept::DecodeTransferQueue,
    Concept::BootstrapFailures,
    Concept::TransferFailures,
    Concept::WorkerHealth,
    Concept::PrefixCacheQueries,
    Concept::PrefixCacheHits,
};

using Table = std::array<std::vector<FamilyAlias>, kConcepts.size()>;

/// Both spellings of one SGLang name: the engine's `sglang:` first, then the
/// router / gateway re-export `sglang_`.
void sglang(std::vector<FamilyAlias> &list, std::string_view suffix, std::string_view note)
{
    const std::string s(suffix);
    list.push_back({"sglang:" + s, Profile::SGLang, std::string(note)});
    list.push_back({"sglang_" + s, Profile::SGLang, std::string(note) + " (router re-export)"});
}

void vllm(std::vector<FamilyAlias> &list, std::string_view suffix, std::string_view note)
{
    list.push_back({"vllm:" + std::string(suffix), Profile::VLLM, std::string(note)});
}

void router(std::vector<FamilyAlias> &list, std::string_view name, std::string_view note)
{
    list.push_back({std::string(name), Profile::Router, std::string(note)});
}

Table buildTable()
{
    Table t;
    auto at = [&t](Concept c) -> std::vector<FamilyAlias> & {
        return t[static_cast<std::size_t>(c)];
    };
    sglang(at(Concept::Running), "num_running_reqs", "num_running_reqs");
    vllm(at(Concept::Running), "num_requests_running", "num_requests_running");

    sglang(at(Concept::Waiting), "num_queue_reqs", "num_queue_reqs");
    vllm(at(Concept::Waiting), "num_requests_waiting", "num_requests_waiting");

    sglang(at(Concept::KvUsage), "token_usage", "token_usage");
    vllm(at(Concept::KvUsage), "kv_cache_usage_perc", "kv_cache_usage_perc (vLLM >= rename)");
    vllm(at(Concept::KvUsage), "gpu_cache_usage_perc", "gpu_cache_usage_perc (legacy)");

    sglang(at(Concept::PromptTokens), "prompt_tokens_total", "prompt_tokens_total");
    vllm(at(Concept::PromptTokens), "prompt_tokens_total", "prompt_tokens_total");

    sglang(at(Concept::GenerationTokens), "generation_tokens_total", "generation_tokens_total");
    vllm(at(Concept::GenerationTokens), "generation_tokens_total", "generation_tokens_total");

    sglang(at(Concept::Ttft), "time_to_first_token_seconds", "time_to_first_token_seconds");
    vllm(at(Concept::Ttft), "time_to_first_token_seconds", "time_to_first_token_seconds");

    sglang(at(Concept::Itl), "inter_token_latency_seconds", "inter_token_latency_seconds");
    sglang(at(Concept::Itl), "time_per_output_token_seconds",
           "time_per_output_token_seconds (legacy)");
    vllm(at(Concept::Itl), "inter_token_latency_seconds", "inter_token_latency_seconds");
    vllm(at(Concept::Itl), "time_per_output_token_seconds",
         "time_per_output_token_seconds (legacy)");

    sglang(at(Concept::E2e), "e2e_request_latency_seconds", "e2e_request_latency_seconds");
    vllm(at(Concept::E2e), "e2e_request_latency_seconds", "e2e_request_latency_seconds");

    sglang(at(Concept::QueueTime), "queue_time_seconds", "queue_time_seconds");
    vllm(at(Concept::QueueTime), "request_queue_time_seconds", "request_queue_time_seconds");

    sglang(at(Concept::PrefillBootstrapQueue), "num_prefill_bootstrap_queue_reqs",
           "num_prefill_bootstrap_queue_reqs");
    sglang(at(Concept::PrefillBootstrapQueue), "num_prefill_prealloc_queue_reqs",
           "num_prefill_prealloc_queue_reqs (legacy name of the bootstrap queue)");
    sglang(at(Concept::PrefillInflightQueue), "num_prefill_inflight_queue_reqs",
           "num_prefill_inflight_queue_reqs");
    sglang(at(Concept::DecodePreallocQueue), "num_decode_prealloc_queue_reqs",
           "num_decode_prealloc_queue_reqs");
    sglang(at(Concept::DecodeTransferQueue), "num_decode_transfer_queue_reqs",
           "num_decode_transfer_queue_reqs");
    sglang(at(Concept::BootstrapFailures), "num_bootstrap_failed_reqs_total",
           "num_bootstrap_failed_reqs_total");
    sglang(at(Concept::TransferFailures), "num_transfer_failed_reqs_total",
           "num_transfer_failed_reqs_total");

    router(at(Concept::WorkerHealth), "sgl_router_worker_health", "sgl_router_worker_health");
    router(at(Concept::WorkerHealth), "smg_worker_health", "smg_worker_health (model gateway)");

    vllm(at(Concept::PrefixCacheQueries), "prefix_cache_queries_total",
         "prefix_cache_queries_total (vLLM >= rename, tokens)");
    vllm(at(Concept::PrefixCacheQueries), "gpu_prefix_cache_queries_total",
         "gpu_prefix_cache_queries_total (legacy, blocks)");
    vllm(at(Concept::PrefixCacheHits), "prefix_cache_hits_total",
         "prefix_cache_hits_total (vLLM >= rename, tokens)");
    vllm(at(Concept::PrefixCacheHits), "gpu_prefix_cache_hits_total",
         "gpu_prefix_cache_hits_total (legacy, blocks)");
    return t;
}

const Table &table()
{
    static const Table t = buildTable();
    return t;
}

} // namespace

std::string_view EngineProfile::name(Profile profile)
{
    switch (profile) {
    case Profile::Auto:
        return "auto";
    case Profile::SGLang:
        return "sglang";
    case Profile::VLLM:
        return "vllm";
    case Profile::Router:
        return "router";
    }
    return "auto";
}

std::optional<Profile> EngineProfile::fromName(std::string_view word)
{
    std::string lower(word);
    for (char &c : lower)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    for (const Profile p : {Profile::Auto, Profile::SGLang, Profile::VLLM, Profile::Router})
        if (lower == name(p))
            return p;
    return std::nullopt;
}

std::string_view EngineProfile::key(Concept which)
{
    switch (which) {
    case Concept::Running:
        return "running";
    case Concept::Waiting:
        return "waiting";
    case Concept::KvUsage:
        return "kv_usage";
    case Concept::PromptTokens:
        return "prompt_tokens_total";
    case Concept::GenerationTokens:
        return "generation_tokens_total";
    case Concept::Ttft:
        return "ttft";
    case Concept::Itl:
        return "itl";
    case Concept::E2e:
        return "e2e";
    case Concept::QueueTime:
        return "queue_time";
    case Concept::PrefillBootstrapQueue:
        return "prefill_bootstrap_queue";
    case Concept::PrefillInflightQueue:
        return "prefill_inflight_queue";
    case Concept::DecodePreallocQueue:
        return "decode_prealloc_queue";
    case Concept::DecodeTransferQueue:
        return "decode_transfer_queue";
    case Concept::BootstrapFailures:
        return "bootstrap_failures_total";
    case Concept::TransferFailures:
        return "transfer_failures_total";
    case Concept::WorkerHealth:
        return "worker_health";
    case Concept::PrefixCacheQueries:
        return "prefix_cache_queries_total";
    case Concept::PrefixCacheHits:
        return "prefix_cache_hits_total";
    }
    return "";
}

Fold EngineProfile::fold(Concept which)
{
    switch (which) {
    case Concept::KvUsage:
        return Fold::Ratio;
    case Concept::Ttft:
    case Concept::Itl:
    case Concept::E2e:
    case Concept::QueueTime:
        return Fold::Histogram;
    case Concept::WorkerHealth:
        return Fold::Health;
    default:
        return Fold::Sum;
    }
}

std::span<const FamilyAlias> EngineProfile::aliases(Concept which)
{
    return table()[static_cast<std::size_t>(which)];
}

std::span<const Concept> EngineProfile::concepts()
{
    return kConcepts;
}

bool EngineProfile::sameModel(std::string_view configured, std::string_view seen)
{
    if (configured.size() != seen.size())
        return false;
    for (std::size_t i = 0; i < seen.size(); ++i) {
        const char a = configured[i] == ':' ? '_' : configured[i];
        const char b = seen[i] == ':' ? '_' : seen[i];
        if (a != b)
            return false;
    }
    return true;
}

} // namespace opsdeck::metrics
