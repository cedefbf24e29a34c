#!/usr/bin/env bash
# Installs what JitScope needs to build, run and test: the Debian 12 packages (clang-14 and its libFuzzer runtime,
# libclang-rt-14-dev, for tests/fuzz/run.sh), and the engine's torch: a virtual environment the project owns
# (.venv, or $JITSCOPE_VENV) with torch 2.14.1 and torchvision 0.29.1, pinned (a bare `torch` downloads several GB).
# With TORCH_PYTHON set to another Python that has torch 2.x, that one is the engine's and no environment is made.
# Idempotent: does nothing (and needs no network) when everything is already installed.
set -euo pipefail

PACKAGES=(
  cmake ninja-build g++ make pkg-config
  qt6-base-dev qt6-base-dev-tools qt6-svg-dev libqt6svg6 libgl-dev
  libgraphviz-dev graphviz
  libdtl-dev
  zlib1g-dev
  libbenchmark-dev
  python3 python3-venv
  xvfb xauth
  desktop-file-utils appstream
  chromium
  clang-14 libclang-rt-14-dev
  ccache
  dpkg-dev lintian
)
# dpkg-dev (dpkg-shlibdeps) and lintian: `make deb` and tst_deb, which builds the package in `make test` and checks
# it with lintian. (--package, which added them once, is accepted and means nothing more.)
# Optional: Debian's torch 1.13 and torchvision, an older PyTorch the bridge's tests run user files under too
# (skipped by those tests when missing). The engine never links it.
OPTIONAL=(python3-torch python3-torchvision)

missing=()
for p in "${PACKAGES[@]}" "${OPTIONAL[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all packages present"
else
  echo "install-deps: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${PACKAGES[@]}"
  $SUDO apt-get install -y -qq --no-install-recommends "${OPTIONAL[@]}" || echo "install-deps: optional packages unavailable: ${OPTIONAL[*]}"
fi

# The engine's torch.
TORCH_PIN="torch==2.14.1"
TORCHVISION_PIN="torchvision==0.29.1"
VENV=${JITSCOPE_VENV:-$(cd "$(dirname "$0")/.." && pwd)/.venv}
if [ -n "${TORCH_PYTHON:-}" ] && [ "$TORCH_PYTHON" != "$VENV/bin/python" ]; then
  "$TORCH_PYTHON" -c 'import torch, sys; sys.exit(0 if int(torch.__version__.split(".")[0]) >= 2 else 1)' || {
    echo "install-deps: $TORCH_PYTHON has no torch 2.x: the engine needs one (or leave TORCH_PYTHON unset)" >&2
    exit 1
  }
  echo "install-deps: the engine's torch is $TORCH_PYTHON's ($("$TORCH_PYTHON" -c 'import torch; print(torch.__version__)'))"
  exit 0
fi
want="${TORCH_PIN#torch==} ${TORCHVISION_PIN#torchvision==}"
have=$("$VENV/bin/python" -c 'import torch, torchvision; print(torch.__version__.split("+")[0], torchvision.__version__.split("+")[0])' 2>/dev/null || true)
if [ "$have" = "$want" ]; then
  echo "install-deps: $VENV has $TORCH_PIN and $TORCHVISION_PIN"
  exit 0
fi
# A plain CPython 3.11 with venv: the first python3 on PATH (the wheels are for 3.11).
PYTHON=${JITSCOPE_VENV_PYTHON:-python3}
echo "install-deps: creating $VENV with $TORCH_PIN and $TORCHVISION_PIN (about 5.5 GB)"
"$PYTHON" -m venv "$VENV"
"$VENV/bin/pip" install -q --disable-pip-version-check "$TORCH_PIN" "$TORCHVISION_PIN" 2>&1 | grep -v "^WARNING: Location" || true
"$VENV/bin/python" -c 'import torch, torchvision' || { echo "install-deps: torch did not install in $VENV" >&2; exit 1; }
