#!/usr/bin/env bash
# Installs what OpsDeck needs, builds it, and opens the console on a
# simulated PD cluster (prefill, decode, router, proxy and traffic) running
# on this machine. Closing the window stops every process it started.
# Without a display it renders the window under Xvfb to opsdeck-demo.png.
set -euo pipefail
cd "$(dirname "$0")/.."
packaging/install-deps.sh
cmake --preset default >/dev/null
# Only the three programs: the window, its command-line twin and the simulator.
cmake --build --preset default --target opsdeck opsdeck-cli opsdeck-sim
if [[ -z "${XDG_RUNTIME_DIR:-}" ]]; then
  # Qt wants one; a throw-away one is removed when the demo ends.
  XDG_RUNTIME_DIR=$(mktemp -d)
  export XDG_RUNTIME_DIR
  trap 'rm -rf "$XDG_RUNTIME_DIR"' EXIT
fi
if [[ -n "${DISPLAY:-}" || -n "${WAYLAND_DISPLAY:-}" ]]; then
  build/bin/opsdeck --demo "$@"
  exit
fi
packaging/install-deps.sh --display # Xvfb, nothing the tests need
echo "demo: no display here; rendering the console under Xvfb to $PWD/opsdeck-demo.png" >&2
xvfb-run -a -s "-screen 0 1920x1200x24" build/bin/opsdeck --demo --screenshot opsdeck-demo.png \
  --after 30 "$@"
