#!/usr/bin/env bash
# Runs cargo with every MPI compiler wrapper and launcher shadowed by one that
# fails, and no MPI include path or MPICC in the environment: the embedder
# loads its MPI library at run time, so a build step that reached for an MPI
# (a -sys crate's build script, a probe) breaks the build instead of
# quietly tying the binary to one MPI. A cold build (CI) is the check.
set -euo pipefail
shadow="$(cd "$(dirname "$0")/.." && pwd)/target/no-mpi-bin"
mkdir -p "$shadow"
for w in mpicc mpicxx mpic++ mpiCC mpif77 mpif90 mpifort mpicc.openmpi mpicc.mpich \
         mpicxx.openmpi mpicxx.mpich mpiexec mpirun mpiexec.openmpi mpiexec.mpich \
         mpirun.openmpi mpirun.mpich mpicc_abi; do
  printf '#!/bin/sh\necho "%s: the embedder build must not need an MPI" >&2\nexit 1\n' "$w" > "$shadow/$w"
  chmod +x "$shadow/$w"
done
unset MPICC MPICXX MPI_HOME MPI_PKG_CONFIG CPATH C_INCLUDE_PATH CPLUS_INCLUDE_PATH
PATH="$shadow:$PATH" exec cargo "$@"
