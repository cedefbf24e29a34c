#!/usr/bin/env bash
# Installs the Debian 12 packages JitScope needs to build, run and test (clang-14 and its libFuzzer runtime,
# libclang-rt-14-dev, for tests/fuzz/run.sh). Idempotent:
# does nothing (and needs no network) when everything is already installed.
set -euo pipefail

PACKAGES=(
  cmake ninja-build g++ make pkg-config
  libtorch-dev
  qt6-base-dev qt6-base-dev-tools qt6-svg-dev libqt6svg6 libgl-dev
  libgraphviz-dev graphviz
  libdtl-dev
  libbenchmark-dev
  python3-torch
  xvfb xauth
  desktop-file-utils appstream
  chromium
  clang-14 libclang-rt-14-dev
)
# `make deb` also needs dpkg-shlibdeps (dpkg-dev) and checks the package with lintian.
if [ "${1:-}" = "--package" ]; then
  PACKAGES+=(dpkg-dev lintian)
fi
# Optional: torchvision for the resnet tests (skipped by the tests when missing).
OPTIONAL=(python3-torchvision)

missing=()
for p in "${PACKAGES[@]}" "${OPTIONAL[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all packages present"
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${PACKAGES[@]}"
$SUDO apt-get install -y -qq --no-install-recommends "${OPTIONAL[@]}" || echo "install-deps: optional packages unavailable: ${OPTIONAL[*]}"
