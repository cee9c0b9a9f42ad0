#!/usr/bin/env python3
"""Write embedder/host-abi/<family>.tsv: one MPI family's constants, status
layout and handle width, read from that MPI's own mpi.h by compiling
host_abi_dump.c with its mpicc. The embedder is built from these tables, so
building it needs no MPI headers; run this when a family's ABI changes.

    python3 embedder/gen/gen_host_abi.py [--check]

Families and the compiler wrapper that knows their headers (Debian names;
override with EMBEDDER_MPICC_<FAMILY>=path):
  openmpi  mpicc.openmpi   (Open MPI 4.x and 5.x: same symbols and values)
  mpich    mpicc.mpich     (MPICH 3.x/4.x and its ABI-compatible derivatives)
The MPI-5 standard ABI needs no dump: its values are the guest's own
(mpi-header/abi-constants.tsv).
"""
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE.parent / "host-abi"
FAMILIES = {"openmpi": "mpicc.openmpi", "mpich": "mpicc.mpich"}


def dump(family, mpicc):
    with tempfile.TemporaryDirectory() as tmp:
        exe = Path(tmp) / "dump"
        subprocess.run([mpicc, "-O0", "-o", exe, HERE / "host_abi_dump.c"], check=True)
        # a plain run (no launcher): Get_library_version needs no MPI_Init
        env = {k: v for k, v in os.environ.items() if not k.startswith(("OMPI_", "PMIX_", "PMI_"))}
        return subprocess.run([exe], check=True, capture_output=True, text=True, env=env).stdout


def main():
    check = "--check" in sys.argv
    stale = []
    for family, default in FAMILIES.items():
        text = dump(family, os.environ.get(f"EMBEDDER_MPICC_{family.upper()}", default))
        path = OUT / f"{family}.tsv"
        # the first line names the library version it was read from
        body = lambda t: t.split("\n", 1)[1]
        if check:
            if not path.exists() or body(path.read_text()) != body(text):
                stale.append(path)
        else:
            path.write_text(text)
    if stale:
        sys.exit(f"out of date with the installed MPI headers: {', '.join(map(str, stale))}")


if __name__ == "__main__":
    main()
