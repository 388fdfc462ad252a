#!/usr/bin/python3
"""Times Debian's python3-prometheus-client text parser on a page file.

Usage: python_parse_bench.py PAGE [--repeat N]
Prints one line: "python_prometheus_client MB/s <best> samples <n> median <median>"
(MB = 1e6 bytes; best and median of N runs of
prometheus_client.parser.text_string_to_metric_families, every sample
materialised). Same bytes as bench_parse (--write-page).
"""
import statistics
import sys
import time

from prometheus_client.parser import text_string_to_metric_families


def main() -> int:
    path = sys.argv[1]
    repeat = int(sys.argv[sys.argv.index("--repeat") + 1]) if "--repeat" in sys.argv else 3
    with open(path, "rb") as f:
        raw = f.read()
    text = raw.decode("utf-8")
    times = []
    samples = 0
    for _ in range(repeat):
        start = time.perf_counter()
        samples = sum(len(family.samples) for family in text_string_to_metric_families(text))
        times.append(time.perf_counter() - start)
    best = len(raw) / min(times) / 1e6
    median = len(raw) / statistics.median(times) / 1e6
    print(f"python_prometheus_client MB/s {best:.2f} samples {samples} median {median:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
