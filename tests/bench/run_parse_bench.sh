#!/usr/bin/env bash
# Side-by-side parse throughput on the same bytes: OpsDeck's ExpositionParser
# (bench_parse) vs Debian's python3-prometheus-client. Writes the page once.
# Usage: run_parse_bench.sh PATH/TO/bench_parse [PAGE_MB]   (default 10)
# Numbers are MB/s with MB = 1e6 bytes, best and median of the repetitions. The
# machine may be shared: the best is the least disturbed run; read the median
# beside it.
set -euo pipefail
bench=${1:?usage: run_parse_bench.sh PATH/TO/bench_parse [PAGE_MB]}
mb=${2:-10}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$bench" --page-mb="$mb" --write-page="$work/page.prom"
"$bench" --page-mb="$mb" --benchmark_repetitions=3 --benchmark_format=json \
    --benchmark_out="$work/cpp.json" --benchmark_out_format=json >/dev/null
/usr/bin/python3 "$here/python_parse_bench.py" "$work/page.prom" --repeat 3 >"$work/py.txt"

/usr/bin/python3 - "$work/page.prom" "$work/cpp.json" "$work/py.txt" <<'PY'
import json, os, sys
page, cpp_json, py_txt = sys.argv[1:4]
runs = [b for b in json.load(open(cpp_json))["benchmarks"] if b.get("run_type") == "iteration"]
rates = sorted(b["bytes_per_second"] / 1e6 for b in runs)
cpp, cpp_median = rates[-1], rates[len(rates) // 2]
cpp_samples = int(runs[0]["samples"])
fields = open(py_txt).read().split()
py, py_samples, py_median = float(fields[2]), int(fields[4]), float(fields[6])
print(f"page: {os.path.getsize(page)} bytes, {cpp_samples} samples (python: {py_samples})")
print(f"{'parser (3 repetitions)':<40}{'best MB/s':>12}{'median MB/s':>13}")
print(f"{'opsdeck ExpositionParser':<40}{cpp:>12.1f}{cpp_median:>13.1f}")
print(f"{'python prometheus_client 0.16':<40}{py:>12.2f}{py_median:>13.2f}")
print(f"{'ratio opsdeck / python':<40}{cpp / py:>11.1f}x{cpp_median / py_median:>12.1f}x")
PY
