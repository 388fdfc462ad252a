#!/usr/bin/env bash
# Installs the Debian 12 packages OpsDeck needs to build and run; with
# --display, also Xvfb (the demo's screenshot without a display); with --test,
# also what the test suite starts (Xvfb, sshd, curl, D-Bus, tinyproxy, nginx, Prometheus) or uses
# (openssl makes the TLS tests' certificates). Idempotent and
# quiet when everything is already there. Run as root (or with sudo).
set -euo pipefail

build_packages=(
  cmake ninja-build g++ pkg-config dpkg-dev
  qt6-base-dev libqt6opengl6-dev qt6-charts-dev libqt6sql6-sqlite libsqlite3-dev qt6-qpa-plugins
  qtkeychain-qt6-dev libsecret-1-0 gnome-keyring
  libssh-dev libspdlog-dev libyaml-cpp-dev libcurl4-openssl-dev libcpp-httplib-dev nlohmann-json3-dev
  libcli11-dev
  libgtest-dev libgmock-dev libbenchmark-dev help2man
  fonts-dejavu-core
)
display_packages=(xvfb xauth)
test_packages=("${display_packages[@]}" openssh-server curl dbus procps python3-prometheus-client openssl nginx-light
               tinyproxy prometheus sudo openssh-client passwd socat iproute2 strace)

wanted=("${build_packages[@]}")
case "${1:-}" in
  --test) wanted+=("${test_packages[@]}") ;;
  --display) wanted+=("${display_packages[@]}") ;;
esac

missing=()
for package in "${wanted[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$package")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

sudo_cmd=()
[[ $(id -u) -eq 0 ]] || sudo_cmd=(sudo)
echo "install-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
