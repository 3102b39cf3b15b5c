#!/usr/bin/env bash
# Installs everything geopipe needs to build, test and analyse, from Debian 12 packages.
# Idempotent; uses sudo when not run as root.
set -euo pipefail
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
PKGS=(
  build-essential cmake ninja-build git time hyperfine   # hyperfine: the commands of docs/performance.md
  libopenmpi-dev openmpi-bin libhdf5-dev hdf5-tools libtbb-dev libtomlplusplus-dev
  libgtest-dev libgmock-dev libbenchmark-dev libcli11-dev libfmt-dev
  libboost-dev nlohmann-json3-dev   # Boost.Random (Sobol' sequence), Boost.Math; JSON output
  libglpk-dev   # GLPK: the linear programs of the gavel-maxmin preset
  python3 python3-h5py python3-pandas python3-matplotlib python3-scipy python3-xarray
  python3-venv lmod   # installing as users do (README, "Install"): pip into a venv, the modulefiles under Lmod
  slurm-wlm munge
  clang-14 libclang-rt-14-dev   # scripts/fuzz.sh: clang-14 and its libFuzzer, ASan and UBSan runtimes
)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}" >&2
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
echo "setup: all packages present" >&2
