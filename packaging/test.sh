#!/usr/bin/env bash
# Installs what the build and the tests need, builds every target with
# warnings as errors, and runs every test (ctest preset "ci": all but the
# long benchmarks). Tests start the real components they need themselves
# (opsdeck-sim processes on loopback; the GUI on Qt's offscreen platform).
set -euo pipefail
cd "$(dirname "$0")/.."
packaging/install-deps.sh --test
cmake --preset ci >/dev/null
cmake --build --preset ci
export QT_QPA_PLATFORM=offscreen
# A private runtime dir: Qt warns without one, and nothing leaks between runs.
XDG_RUNTIME_DIR=$(mktemp -d)
export XDG_RUNTIME_DIR
trap 'rm -rf "$XDG_RUNTIME_DIR"' EXIT
ctest --preset ci --parallel 2
