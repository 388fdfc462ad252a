#include "pagesummary.h"

#include <cmath>
#include <initializer_list>
#include <string_view>

namespace opsdeck::metrics {

namespace {

enum class Fold
{
    Sum,
    Mean
};

std::optional<double> fold(const MetricPage &page, std::initializer_list<std::string_view> names,
                           Fold how)
{
    for (const std::string_view name : names) {
        double total = 0;
        int count = 0;
        for (const Sample &s : page.samples) {
            if (s.name != name || std::isnan(s.value))
                continue;
            total += s.value;
            ++count;
        }
        if (count > 0)
            return how == Fold::Sum ? total : total / count;
    }
    return std::nullopt;
}

} // namespace

PageSummary summarizePage(const MetricPage &page)
{
    PageSummary summary;
    summary.running = fold(
        page, {"sglang:num_running_reqs", "sglang_num_running_reqs", "vllm:num_requests_running"},
        Fold::Sum);
    summary.waiting =
        fold(page, {"sglang:num_queue_reqs", "sglang_num_queue_reqs", "vllm:num_requests_waiting"},
             Fold::Sum);
    summary.kvUsage = fold(page,
                           {"sglang:token_usage", "sglang_token_usage", "vllm:kv_cache_usage_perc",
                            "vllm:gpu_cache_usage_perc"},
                           Fold::Mean);
    summary.generationTokensTotal =
        fold(page,
             {"sglang:generation_tokens_total", "sglang_generation_tokens_total",
              "vllm:generation_tokens_total"},
             Fold::Sum);
    summary.promptTokensTotal = fold(
        page,
        {"sglang:prompt_tokens_total", "sglang_prompt_tokens_total", "vllm:prompt_tokens_total"},
        Fold::Sum);
    return summary;
}

} // namespace opsdeck::metrics
