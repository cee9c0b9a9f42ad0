#!/usr/bin/env bash
# Installs what building and testing the embedder needs on Debian 12
# (bookworm): idempotent, quiet when everything is already there.
# Rust itself (>= 1.89, e.g. from rustup) is a prerequisite.
set -euo pipefail

packages=(
  # host MPIs: both, side by side; MPI=openmpi|mpich picks one
  openmpi-bin libopenmpi-dev mpich libmpich-dev
  # Wasmer's LLVM backend (LLVM 15); llvm-config's static link line names
  # Polly, whose archives Debian ships in libclang-common-15-dev
  llvm-15-dev libclang-common-15-dev libzstd-dev zlib1g-dev
  # the wasm32-wasi C/C++ toolchain behind wasm-mpicc
  clang-16 lld-16 wasi-libc libclang-rt-16-dev-wasm32 libc++-16-dev-wasm32 libc++abi-16-dev-wasm32
  # llvm-ar/llvm-ranlib for archives of wasm objects (HPCC's HPL library)
  llvm-16
  # build tools and the test runner's interpreter; autoconf for the toolchain's
  # configure --host=wasm32-wasi test, automake and libtool for the real codes'
  # own bootstrap (benchmarks/realcodes: p4est's ./bootstrap)
  make cmake autoconf automake libtool python3 python3-pip
  # wat2wasm for the hand-written sandbox-boundary modules in the tests
  wabt
  # a C compiler for rustc's linker and embedder/csrc (container builds start without one)
  gcc g++ libc6-dev ca-certificates
  # the job-script tests' real Slurm (tests/cluster/slurm.py) and the
  # two-node tests' network, UTS and mount namespaces
  slurmctld slurmd slurm-client munge iproute2 util-linux
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if ! command -v cargo >/dev/null; then
  echo "setup: no Rust toolchain found; install Rust >= 1.89 (e.g. rustup) and rerun" >&2
  exit 1
fi

py_missing=()
python3 -c "import pytest" 2>/dev/null || py_missing+=(pytest)
python3 -c "import pympistandard" 2>/dev/null || py_missing+=(pympistandard)
python3 -c "import matplotlib" 2>/dev/null || py_missing+=(matplotlib)
python3 -c "import pandas" 2>/dev/null || py_missing+=(pandas)
# forging cache entries in the cache-trust tests
python3 -c "import blake3" 2>/dev/null || py_missing+=(blake3)
if ((${#py_missing[@]})); then
  echo "setup: pip installing ${py_missing[*]}"
  python3 -m pip install -q "${py_missing[@]}" 2>/dev/null \
    || python3 -m pip install -q --break-system-packages "${py_missing[@]}"
fi
