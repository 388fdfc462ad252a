#!/usr/bin/env bash
# Polling cost side by side: the console (bench_console_poll: MainWindow with
# its poller, recorder and panels) watching N opsdeck-sim engines at 1 Hz,
# then a Prometheus server (Debian's /usr/bin/prometheus) scraping the same N
# targets every second, each for the same measured span after a warm-up (the
# console then runs a second span of that length in which its GUI stalls are
# timed; its CPU share and memory are from the first).
# Reports CPU share of one core, resident memory, and the console's GUI stalls.
#
# Usage: run_poll_bench.sh BIN_DIR [SERVICES] [SECONDS]   (defaults 64, 60)
# BIN_DIR holds opsdeck-sim and bench_console_poll. Loopback only; every
# process it starts is stopped on exit.
set -euo pipefail
bin=${1:?usage: run_poll_bench.sh BIN_DIR [SERVICES] [SECONDS]}
count=${2:-64}
seconds=${3:-60}
warmup=$((seconds < 10 ? 2 : 10))
work=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# N free loopback ports, from the kernel (bind to port 0).
mapfile -t ports < <(/usr/bin/python3 - "$count" <<'PY'
import socket, sys
socks = []
for _ in range(int(sys.argv[1])):
    s = socket.socket(); s.bind(("127.0.0.1", 0)); socks.append(s)
for s in socks:
    print(s.getsockname()[1])
PY
)

{
  echo "hosts:"
  echo "  - name: local"
  echo "    kind: local"
  echo "services:"
  for i in "${!ports[@]}"; do
    echo "  - name: engine-$i"
    echo "    role: engine"
    echo "    host: local"
    echo "    url: http://127.0.0.1:${ports[$i]}"
  done
} >"$work/inventory.yaml"
targets=$(printf "'127.0.0.1:%s'," "${ports[@]}")

for i in "${!ports[@]}"; do
  "$bin/opsdeck-sim" --role engine --threads 16 --port "${ports[$i]}" \
    >"$work/sim-$i.log" 2>&1 &
  pids+=($!)
done
# Every engine answers /health before anything is measured (bounded: 30 s).
for port in "${ports[@]}"; do
  for _ in $(seq 300); do
    curl -fs -o /dev/null "http://127.0.0.1:$port/health" && break
    sleep 0.1
  done
done

QT_QPA_PLATFORM=offscreen "$bin/bench_console_poll" --inventory "$work/inventory.yaml" \
  --seconds "$seconds" --warmup "$warmup" >"$work/console.json"

# Prometheus: same targets, 1 s interval, its own port and data dir.
prom_port=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
cat >"$work/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: sim
    static_configs:
      - targets: [${targets%,}]
EOF
/usr/bin/prometheus --config.file="$work/prometheus.yml" --storage.tsdb.path="$work/tsdb" \
  --web.listen-address="127.0.0.1:$prom_port" --log.level=warn >"$work/prometheus.log" 2>&1 &
prom=$!
pids+=("$prom")
for _ in $(seq 300); do
  curl -fs -o /dev/null "http://127.0.0.1:$prom_port/-/ready" && break
  sleep 0.1
done
sleep "$warmup"
ticks=$(getconf CLK_TCK)
cpu_ticks() { awk '{print $14 + $15}' "/proc/$prom/stat"; }
start_cpu=$(cpu_ticks)
start_ns=$(date +%s%N)
peak_kb=0
for _ in $(seq "$seconds"); do
  rss_kb=$(awk '/^VmRSS:/ {print $2}' "/proc/$prom/status")
  ((rss_kb > peak_kb)) && peak_kb=$rss_kb
  sleep 1
done
end_cpu=$(cpu_ticks)
end_ns=$(date +%s%N)
up=$(curl -fs "http://127.0.0.1:$prom_port/api/v1/query?query=count(up==1)" |
  /usr/bin/python3 -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else 0)')

/usr/bin/python3 - "$work/console.json" "$start_cpu" "$end_cpu" "$ticks" "$start_ns" "$end_ns" \
  "$peak_kb" "$rss_kb" "$count" "$up" <<'PY'
import json, sys
console = json.load(open(sys.argv[1]))
c0, c1, hz, t0, t1 = (float(x) for x in sys.argv[2:7])
peak_kb, rss_kb, count, up = (float(x) for x in sys.argv[7:11])
wall = (t1 - t0) / 1e9
prom_cpu = (c1 - c0) / hz
print(f"{int(count)} services polled every 1 s for {console['seconds']:.0f} s (Prometheus: {int(up)} targets up)")
print(f"{'':<32}{'CPU share':>10}{'RSS MB':>10}{'peak MB':>10}")
print(f"{'opsdeck console':<32}{console['cpu_share']:>10.3f}{console['rss_mb']:>10.1f}{console['rss_peak_mb']:>10.1f}")
print(f"{'prometheus 2.42':<32}{prom_cpu / wall:>10.3f}{rss_kb * 1024 / 1e6:>10.1f}{peak_kb * 1024 / 1e6:>10.1f}")
print(f"{'CPU ratio console / prometheus':<32}{console['cpu_share'] / max(prom_cpu / wall, 1e-9):>10.2f}x")
print(f"GUI thread stalls while polling: worst {console['stall_worst_ms']:.1f} ms, p99 {console['stall_p99_ms']:.1f} ms over {console['ticks']} ticks of 10 ms")
PY
