#!/usr/bin/env python3
"""Start-up costs of the embedder: cold compile per backend, cached load,
and module size next to the native binary.

    python3 benchmarks/startup.py [--reps 3] PROGRAM.c|DIR ...

Each C file (or all .c files of a directory) is built with wasm-mpicc and with the host mpicc (-O3); prints a
Markdown table. Medians over --reps runs; the machine's noise applies.
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EMBEDDER = ROOT / "target/release/embedder"
WASM_MPICC = ROOT / "toolchain/bin/wasm-mpicc"


def sh(*cmd, **kw):
    return subprocess.run([str(c) for c in cmd], check=True, capture_output=True, text=True, **kw)


def cold_compile(wasm, backend, reps):
    times = []
    for _ in range(reps):
        with tempfile.TemporaryDirectory() as cache:
            t = time.perf_counter()
            try:
                sh(EMBEDDER, "--cache-dir", cache, "--backend", backend, "compile", wasm)
            except subprocess.CalledProcessError as e:
                return "n/a (" + ("SIMD" if "SIMD" in e.stderr else "error") + ")"
            times.append(time.perf_counter() - t)
    return f"{statistics.median(times):.2f} s"


def warm_load(wasm, cache, reps):
    """(cached load seconds from --timings, wall seconds of `embedder compile` on a warm cache)"""
    sh(EMBEDDER, "--cache-dir", cache, "compile", wasm)
    loads, walls = [], []
    for _ in range(reps):
        t = time.perf_counter()
        r = sh(EMBEDDER, "--cache-dir", cache, "-v", "compile", wasm)
        walls.append(time.perf_counter() - t)
        m = re.search(r"cache hit \(\w+ backend, ([\d.]+) s\)", r.stderr)
        loads.append(float(m.group(1)) if m else float("nan"))
    return statistics.median(loads), statistics.median(walls)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--mpicc", default=shutil.which("mpicc.openmpi") or "mpicc")
    ap.add_argument("sources", nargs="+", type=Path)
    args = ap.parse_args()
    out = Path(tempfile.mkdtemp(prefix="startup-"))
    print("| module | .wasm | native (dynamic) | LLVM cold | Cranelift cold | Singlepass cold | cached load | `embedder compile` warm, wall |")
    print("|---|---|---|---|---|---|---|---|")
    for src in args.sources:
        files = sorted(src.glob("*.c")) if src.is_dir() else [src]  # a directory is one program
        wasm, native = out / f"{src.stem}.wasm", out / f"{src.stem}.native"
        sh(WASM_MPICC, "-O3", "-o", wasm, *files, "-lm")
        sh(args.mpicc, "-O3", "-o", native, *files, "-lm")
        colds = [cold_compile(wasm, b, args.reps) for b in ("llvm", "cranelift", "singlepass")]
        load, wall = warm_load(wasm, out / "cache", args.reps)
        kib = lambda p: f"{os.path.getsize(p) / 1024:.0f} KiB"
        print(f"| {src.name} | {kib(wasm)} | {kib(native)} | " + " | ".join(colds)
              + f" | {load * 1000:.1f} ms | {wall * 1000:.0f} ms |")


if __name__ == "__main__":
    main()
