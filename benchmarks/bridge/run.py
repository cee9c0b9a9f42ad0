#!/usr/bin/env python3
"""Per-call cost of the bridge: the same overhead.c natively and as wasm,
interleaved (native, wasm, native, wasm, ...) on the same ranks.

    python3 benchmarks/bridge/run.py [--np 2] [--rounds 3] [--mpi openmpi]
"""
import argparse
import re
import statistics
import subprocess
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SRC = Path(__file__).resolve().parent / "overhead.c"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--np", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--mpi", default="openmpi")
    ap.add_argument("--calls", default="10000000 200000 2000000 1000000",
                    help="Comm_rank, Allreduce, Testany and self-exchange iterations")
    a = ap.parse_args()
    out = Path(tempfile.mkdtemp(prefix="bridge-"))
    native, wasm = out / "overhead", out / "overhead.wasm"
    subprocess.run([f"mpicc.{a.mpi}", "-O3", "-o", native, SRC], check=True)
    subprocess.run([ROOT / "toolchain/bin/wasm-mpicc", "-O3", "-o", wasm, SRC], check=True)
    mpirun = [f"mpirun.{a.mpi}", "-np", str(a.np)] + (["--allow-run-as-root", "--oversubscribe"] if a.mpi == "openmpi" else [])
    embedder = [ROOT / "target/release/embedder", "--cache-dir", out / "cache"]
    subprocess.run([*embedder, "compile", wasm], check=True, capture_output=True)
    results = {"native": [], "wasm": []}
    for _ in range(a.rounds):
        for kind, cmd in (("native", [native]), ("wasm", [*embedder, wasm])):
            r = subprocess.run([*mpirun, *cmd, *a.calls.split()], check=True, capture_output=True, text=True)
            results[kind].append({k: float(v) for k, v in re.findall(r"(\w+) ([\d.]+)", r.stdout)})
    print(f"| per call ({a.mpi}, {a.np} ranks, median of {a.rounds}) | native | wasm | added by the bridge |")
    print("|---|---|---|---|")
    for key, label in (("comm_rank_ns", "MPI_Comm_rank"), ("allreduce_1double_ns", "MPI_Allreduce, 1 double"),
                       ("testany_pending_ns", "MPI_Testany, 1 pending receive"),
                       ("exchange_self_ns", "MPI_Irecv + MPI_Isend + MPI_Waitall, with itself")):
        n = statistics.median(x[key] for x in results["native"])
        w = statistics.median(x[key] for x in results["wasm"])
        print(f"| {label} | {n:.1f} ns | {w:.1f} ns | {w - n:+.1f} ns |")


if __name__ == "__main__":
    main()
