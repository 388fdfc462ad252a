#!/usr/bin/env bash
# Side-by-side parse throughput on the same bytes: OpsDeck's ExpositionParser
# (bench_parse) vs Debian's python3-prometheus-client. Writes the page once.
# Usage: run_parse_bench.sh PATH/TO/bench_parse [PAGE_MB]   (default 10)
# Numbers are MB/s with MB = 1e6 bytes. The machine may be shared: read them as
# a ratio, not an absolute.
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
cpp = max(b["bytes_per_second"] for b in runs) / 1e6
cpp_samples = int(runs[0]["samples"])
fields = open(py_txt).read().split()
py = float(fields[2]); py_samples = int(fields[4])
print(f"page: {os.path.getsize(page)} bytes, {cpp_samples} samples (python: {py_samples})")
print(f"{'parser':<40}{'MB/s':>10}")
print(f"{'opsdeck ExpositionParser (best of 3)':<40}{cpp:>10.1f}")
print(f"{'python prometheus_client 0.16 (best of 3)':<40}{py:>10.2f}")
print(f"{'ratio opsdeck / python':<40}{cpp / py:>10.1f}x")
PY
