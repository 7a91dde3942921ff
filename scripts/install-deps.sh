#!/usr/bin/env bash
# Installs everything meshscope needs to build and test on Debian 12 (run as root or with sudo).
# Idempotent: apt-get skips packages that are already installed.
set -euo pipefail
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
PKGS=(
  build-essential cmake ninja-build ccache pkg-config git
  qt6-base-dev qt6-base-dev-tools libqt6opengl6-dev qt6-charts-dev libqt6svg6-dev
  libgl-dev libglx-dev libvulkan-dev
  nlohmann-json3-dev libeigen3-dev catch2 libexpected-dev zlib1g-dev libpugixml-dev libtomlplusplus-dev
  libbenchmark-dev xvfb xauth fonts-dejavu-core clang-14 libclang-rt-14-dev
  clang-format-14 clang-tidy-14
  pybind11-dev python3-pybind11 python3-dev python3-pytest python3-pandas
  slurm-wlm munge  # tests/slurm: a real single-node Slurm for the sweep job array
)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
