// Parse throughput of ExpositionParser on a large page built from the real
// fixtures in tests/data/metrics (01: SGLang production example, 02: SGLang DP
// attention, 8 ranks). Each family block is written once, followed by its
// sample lines repeated with a varying `replica` label, so the page looks like
// one big exposition (many series per family), not a concatenation.
//
// Extra flags (besides Google Benchmark's own):
//   --page-mb=N          page size in MB (1e6 bytes), default 10
//   --write-page=PATH    write the page to PATH and exit (for python_parse_bench.py)
// Units: bytes_per_second in the output is bytes/s of page text.

#include "expositionparser.h"

#include <benchmark/benchmark.h>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace {

std::size_t g_pageBytes = 10'000'000;

std::string readFixture(const char *name)
{
    std::ifstream in(std::string(OPSDECK_METRICS_DATA_DIR) + "/" + name, std::ios::binary);
    std::stringstream buffer;
    buffer << in.rdbuf();
    if (buffer.str().empty()) {
        std::cerr << "bench_parse: cannot read fixture " << name << "\n";
        std::exit(2);
    }
    return buffer.str();
}

struct Block
{
    std::vector<std::string> comments;
    std::vector<std::string> samples;
};

std::vector<Block> blocksOf(const std::string &text)
{
    std::vector<Block> blocks;
    std::istringstream in(text);
    std::string line;
    bool inSamples = true;
    while (std::getline(in, line)) {
        if (line.empty())
            continue;
        const bool comment = line[0] == '#';
        if (blocks.empty() || (comment && inSamples))
            blocks.emplace_back();
        (comment ? blocks.back().comments : blocks.back().samples).push_back(line);
        inSamples = !comment;
    }
    return blocks;
}

// `name{labels} value` -> `name{replica="r",labels} value`.
void appendWithReplica(std::string &out, const std::string &line, std::string_view replica)
{
    const std::size_t brace = line.find('{');
    const std::size_t blank = line.find(' ');
    if (brace != std::string::npos && brace < blank) {
        out.append(line, 0, brace + 1);
        out.append("replica=\"").append(replica).append("\",");
        out.append(line, brace + 1);
    } else {
        out.append(line, 0, blank);
        out.append("{replica=\"").append(replica).append("\"}");
        out.append(line, blank);
    }
    out += '\n';
}

std::string buildPage(std::size_t targetBytes)
{
    const std::vector<Block> fixtures[2] = {
        blocksOf(readFixture("01-sglang_docs_production_metrics_example.prom")),
        blocksOf(readFixture("02-sglang_dp_attention_multirank_aibrix1614.prom"))};
    std::size_t oneReplica = 0;
    for (const auto &blocks : fixtures) {
        for (const Block &b : blocks) {
            for (const std::string &s : b.samples)
                oneReplica += s.size() + 16;
        }
    }
    const std::size_t replicas = targetBytes / oneReplica + 1;
    std::string page;
    page.reserve(targetBytes + targetBytes / 8);
    for (int f = 0; f < 2; ++f) {
        for (const Block &b : fixtures[f]) {
            for (const std::string &c : b.comments)
                page.append(c).append("\n");
            for (std::size_t r = 0; r < replicas; ++r) {
                const std::string replica = (f == 0 ? "a-" : "b-") + std::to_string(r);
                for (const std::string &s : b.samples)
                    appendWithReplica(page, s, replica);
            }
        }
    }
    return page;
}

const std::string &page()
{
    static const std::string text = buildPage(g_pageBytes);
    return text;
}

void BM_ParseText004(benchmark::State &state)
{
    const std::string &text = page();
    std::size_t samples = 0;
    std::size_t warnings = 0;
    for (auto _ : state) {
        const opsdeck::metrics::MetricPage parsed =
            opsdeck::metrics::ExpositionParser::parse(text, {.maxPageBytes = text.size() + 1});
        samples = parsed.samples.size();
        warnings = parsed.warnings.size();
        benchmark::DoNotOptimize(parsed.samples.data());
    }
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
    state.counters["page_bytes"] = static_cast<double>(text.size());
    state.counters["samples"] = static_cast<double>(samples);
    state.counters["warnings"] = static_cast<double>(warnings);
}
BENCHMARK(BM_ParseText004)->Unit(benchmark::kMillisecond)->UseRealTime();

} // namespace

int main(int argc, char **argv)
{
    std::vector<char *> rest;
    std::string writePath;
    for (int i = 0; i < argc; ++i) {
        const std::string_view arg = argv[i];
        if (arg.starts_with("--page-mb="))
            g_pageBytes = static_cast<std::size_t>(std::atof(argv[i] + 10) * 1e6);
        else if (arg.starts_with("--write-page="))
            writePath = std::string(arg.substr(13));
        else
            rest.push_back(argv[i]);
    }
    if (!writePath.empty()) {
        std::ofstream out(writePath, std::ios::binary);
        out << page();
        return out.good() ? 0 : 1;
    }
    int restCount = static_cast<int>(rest.size());
    benchmark::Initialize(&restCount, rest.data());
    if (benchmark::ReportUnrecognizedArguments(restCount, rest.data()))
        return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
