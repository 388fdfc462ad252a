#!/usr/bin/env bash
# Installs what the build and the tests need, builds every target with
# warnings as errors, and runs every test (ctest preset "ci": all but the
# long benchmarks). Tests start the real components they need themselves
# (opsdeck-sim processes on loopback; the GUI on Qt's offscreen platform;
# gnome-keyring in a private D-Bus session; tinyproxy).
set -euo pipefail
cd "$(dirname "$0")/.."
packaging/install-deps.sh --test
cmake --preset ci >/dev/null
cmake --build --preset ci
export QT_QPA_PLATFORM=offscreen
# A private HOME, runtime and XDG dirs: the keyring, Qt and the tests write
# there, never into the user's own, and nothing leaks between runs.
TEST_HOME=$(mktemp -d)
trap 'rm -rf "$TEST_HOME"' EXIT
mkdir -p "$TEST_HOME"/{runtime,data,config,cache}
chmod 700 "$TEST_HOME/runtime"
export HOME="$TEST_HOME" XDG_RUNTIME_DIR="$TEST_HOME/runtime" XDG_DATA_HOME="$TEST_HOME/data" \
  XDG_CONFIG_HOME="$TEST_HOME/config" XDG_CACHE_HOME="$TEST_HOME/cache"
# The secret-store tests use a real Secret Service: a private D-Bus session
# with gnome-keyring unlocked by a throwaway password (its login keyring is
# created in the private HOME). Both end with the session.
dbus-run-session -- sh -c 'echo -n opsdeck-test | gnome-keyring-daemon --unlock --components=secrets >/dev/null && exec ctest --preset ci --parallel 2'
