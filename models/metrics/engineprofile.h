#pragma once

// Engine profiles: which metric families carry each of the console's concepts
// (running requests, KV usage, TTFT, PD queues, ...) for each engine, so that
// the rest of OpsDeck asks for a concept and never for a metric name.
//
// Names, and where they come from:
// - SGLang: python/sglang/srt/metrics/collector.py (SchedulerMetricsCollector,
//   TokenizerMetricsCollector). Every name is listed in both spellings:
//   `sglang:x` as the engine writes it, and `sglang_x` as the SGLang router's
//   /engine_metrics and the model gateway (smg) re-export it (sglang#11456,
//   sglang#12618, field case B09). Renames: `time_per_output_token_seconds` ->
//   `inter_token_latency_seconds` (ITL); the prefill side's
//   `num_prefill_prealloc_queue_reqs` -> `num_prefill_bootstrap_queue_reqs`
//   (the queue was always PrefillBootstrapQueue; the stat was renamed).
// - vLLM: vllm/v1/metrics/loggers.py, docs/design/metrics.md. Renames:
//   `gpu_cache_usage_perc` -> `kv_cache_usage_perc`, `gpu_prefix_cache_*` ->
//   `prefix_cache_*` (vllm#18354, removed in vllm#29330; field case B10),
//   `time_per_output_token_seconds` -> `inter_token_latency_seconds`.
// - Router: sgl-model-gateway / smg metrics (`sgl_router_worker_health`
//   {worker_url}, later `smg_worker_health` {worker}: 1 healthy, 0 not).
//
// Order of the aliases of one concept is the order of preference: newest name
// first, `sglang:` before `sglang_`. A reader takes the FIRST alias present on
// the page, so old + new names on a transitional page are never added.
//
// Thread-safety: the tables are immutable after first use (built in a
// function-local static); every function is safe from any thread.

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace opsdeck::metrics {

/// An engine's naming. Auto: detect it from the page (see ConceptResolver).
enum class Profile
{
    Auto,
    SGLang,
    VLLM,
    Router
};

/// What the console shows, whatever the engine calls it.
enum class Concept
{
    Running,               ///< requests in the running batch (gauge, requests)
    Waiting,               ///< requests queued (gauge, requests)
    KvUsage,               ///< KV-cache usage (gauge, ratio 0..1)
    PromptTokens,          ///< prefilled tokens since start (counter, tokens)
    GenerationTokens,      ///< generated tokens since start (counter, tokens)
    Ttft,                  ///< time to first token (histogram, s)
    Itl,                   ///< inter-token latency (histogram, s)
    E2e,                   ///< end-to-end request latency (histogram, s)
    QueueTime,             ///< time queued before running (histogram, s)
    PrefillBootstrapQueue, ///< PD prefill: waiting for the KV handshake (gauge, requests)
    PrefillInflightQueue,  ///< PD prefill: KV being sent (gauge, requests)
    DecodePreallocQueue,   ///< PD decode: waiting for KV memory (gauge, requests)
    DecodeTransferQueue,   ///< PD decode: KV being received (gauge, requests)
    BootstrapFailures,     ///< PD handshakes that failed (counter, requests)
    TransferFailures,      ///< PD KV transfers that failed (counter, requests)
    WorkerHealth,          ///< router's view of each worker (gauge per worker, 1 = healthy)
    PrefixCacheQueries, ///< prefix-cache lookups (counter; tokens, blocks before the vLLM rename)
    PrefixCacheHits,    ///< prefix-cache hits (counter; same unit as the queries)
};

/// How a concept's series are folded into one value (rules in aggregation.h).
enum class Fold
{
    Sum,       ///< counts and counters: summed across dp ranks, engines, workers
    Ratio,     ///< averaged across them, with the maximum beside
    Histogram, ///< summed per bucket; mean = sum of _sum / sum of _count
    Health     ///< per worker 1/0: healthy workers out of all workers
};

/// One name a concept goes by.
struct FamilyAlias
{
    /// Sample name as written (`vllm:prompt_tokens_total`); for a histogram the
    /// family name, without `_bucket`/`_sum`/`_count`.
    std::string family;
    Profile profile = Profile::Auto;
    /// Shown beside the value so the engineer knows which name was read
    /// ("kv_cache_usage_perc (vLLM >= rename)").
    std::string note;
};

class EngineProfile
{
public:
    /// "auto", "sglang", "vllm", "router".
    static std::string_view name(Profile profile);
    /// Inverse of name(), case-insensitive; nullopt for any other word.
    static std::optional<Profile> fromName(std::string_view word);

    /// Stable snake_case key ("running", "ttft", "prefill_bootstrap_queue").
    static std::string_view key(Concept which);
    static Fold fold(Concept which);
    /// Every name of `which` over all profiles, in order of preference.
    static std::span<const FamilyAlias> aliases(Concept which);
    /// Every concept, in enum order.
    static std::span<const Concept> concepts();

    /// Whether a `model_name` label names the configured model. The SGLang
    /// router rewrites ':' to '_' in names AND label values (sglang#37985), so
    /// `org/model_v1` on its page is `org/model:v1`: compared after mapping ':'
    /// to '_' on both sides (field case B09). Otherwise byte-exact.
    static bool sameModel(std::string_view configured, std::string_view seen);
};

} // namespace opsdeck::metrics
