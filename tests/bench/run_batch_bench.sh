#!/usr/bin/env bash
# The 256-request batch check (issue 4): `opsdeck-cli batch-check -n 256`
# against a PD cluster of opsdeck-sim (prefill, decode, router) whose engines
# admit 256 running requests. Checks that every request is in the result with
# a TTFT (none lost, none without its first content token) and reports the
# verdict, wall time, peak decode running requests and TTFT p50 / p99.
#
# Usage: run_batch_bench.sh BIN_DIR [N]   (default 256)
# BIN_DIR holds opsdeck-sim and opsdeck-cli. Loopback only; every process it
# starts is stopped on exit. Exit 1 when a request is missing or has no TTFT.
set -euo pipefail
bin=${1:?usage: run_batch_bench.sh BIN_DIR [N]}
n=${2:-256}
work=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# Starts a sim in this shell (so cleanup knows its pid) and sets `port` from its
# "listening on" log line (bounded: 15 s).
start_sim() {
  local name=$1; shift
  "$bin/opsdeck-sim" "$@" --port 0 >"$work/$name.log" 2>&1 &
  pids+=($!)
  for _ in $(seq 150); do
    if grep -q "listening on http://" "$work/$name.log"; then
      port=$(grep -m1 -o "listening on http://[0-9.]*:[0-9]*" "$work/$name.log" | sed 's/.*://')
      return
    fi
    sleep 0.1
  done
  echo "$name did not start: $(cat "$work/$name.log")" >&2
  exit 3
}

# The engines' HTTP threads are max(2 x max-running-requests, 512) + 32 by
# default: enough for 256 clients (one kept-alive connection holds one thread).
engine_flags=(--ready-delay 0 --max-running-requests "$n")
start_sim prefill --role prefill "${engine_flags[@]}"
prefill=$port
start_sim decode --role decode "${engine_flags[@]}"
decode=$port
start_sim router --role router --metrics-port 0 --prefill "http://127.0.0.1:$prefill" \
  --decode "http://127.0.0.1:$decode" --health-check-interval 0.2
router=$port
for _ in $(seq 150); do
  curl -fs -o /dev/null "http://127.0.0.1:$router/readiness" && break
  sleep 0.1
done

cat >"$work/inventory.yaml" <<EOF2
hosts: [{name: local, kind: local}]
services:
  - {name: prefill, role: prefill, host: local, url: 'http://127.0.0.1:$prefill'}
  - {name: decode, role: decode, host: local, url: 'http://127.0.0.1:$decode'}
  - {name: router, role: router, host: local, url: 'http://127.0.0.1:$router'}
clusters:
  - {name: pd, prefill: [prefill], decode: [decode], router: router}
EOF2

start=$(date +%s.%N)
set +e
"$bin/opsdeck-cli" batch-check --inventory "$work/inventory.yaml" --cluster pd -n "$n" --json \
  --data-dir "$work/data" >"$work/result.json"
code=$?
set -e
end=$(date +%s.%N)
jq -r --argjson n "$n" --arg code "$code" --arg elapsed "$(echo "$end - $start" | bc)" '
  (.requests | length) as $reported
  | ([.requests[] | select(.ttft_ms != null)] | length) as $withTtft
  | "n \(.n)  verdict \(.verdict)  exit \($code)  command \($elapsed) s\n" +
    "requests reported \($reported)/\($n), with TTFT \($withTtft), failures \(.failures)\n" +
    "wall \(.wall_s) s  single \(.single_s) s  peak running \(.peak_running)  " +
    "samples \(.samples | length) from \(.samples_source)\n" +
    "TTFT p50 \(.ttft_p50_ms) ms  p99 \(.ttft_p99_ms) ms  max \(.ttft_max_ms) ms"' \
  "$work/result.json"
jq -e --argjson n "$n" \
  '(.requests | length) == $n and ([.requests[] | select(.ttft_ms != null)] | length) == $n' \
  "$work/result.json" >/dev/null
