#!/usr/bin/env python3
"""Compute kernels (kernels.c) natively and as wasm, interleaved (native,
wasm, native, wasm, ...), one process each: medians of each kernel's best
rate and the wasm/native ratio. Both builds must print the same checksums.

    python3 benchmarks/kernels/run.py [--rounds 5] [--backend llvm] [kernel ...]
    python3 benchmarks/kernels/run.py --embedder-args=--strict-traps   # an option against native ('=': argparse)
    python3 benchmarks/kernels/run.py --versus=--wrapping-addresses --cpu 1   # and against the default, in the same rounds

Prints a Markdown table; --csv FILE also writes one row per (round, build,
kernel).
"""
import argparse
import csv
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
SOURCES = [HERE / "kernels.c", ROOT / "benchmarks/external/cblas/cblas.c"]
sys.path.insert(0, str(HERE.parent))
from parse import parse_kernels  # noqa: E402


def build(out, cc, flags):
    native, wasm = out / "kernels", out / "kernels.wasm"
    subprocess.run([cc, *flags, "-o", native, *SOURCES, "-lm"], check=True)
    subprocess.run([ROOT / "toolchain/bin/wasm-mpicc", *flags, "-o", wasm, *SOURCES, "-lm"], check=True)
    return native, wasm


def checked(cmd):
    """Run cmd; on failure stop with its command line and its own error."""
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"{' '.join(map(str, cmd))} failed ({r.returncode}):\n{r.stderr}")
    return r


def run(cmd):
    r = checked(cmd)
    return {k["kernel"]: (k["rate"], k["unit"], k["checksum"]) for k in parse_kernels(r.stdout)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("kernels", nargs="*", help="kernel names (default: all)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--backend", default="llvm")
    ap.add_argument("--embedder-args", default="", help="extra embedder options for the wasm runs")
    ap.add_argument("--versus", metavar="ARGS", help="also run wasm with these embedder options instead, "
                    "in the same rounds: its rates, and the median of the per-round ratios wasm / versus")
    ap.add_argument("--cpu", type=int, help="run every process on this CPU (taskset): less spread between runs")
    ap.add_argument("--cc", default="mpicc.openmpi", help="native compiler (default mpicc.openmpi)")
    ap.add_argument("--cflags", default="-std=c99 -O3")
    ap.add_argument("--csv", type=Path)
    a = ap.parse_args()
    out = Path(tempfile.mkdtemp(prefix="kernels-"))
    native, wasm = build(out, a.cc, a.cflags.split())
    base = [ROOT / "target/release/embedder", "--cache-dir", out / "cache", "--backend", a.backend]
    builds = {"native": [native], "wasm": [*base, *a.embedder_args.split(), wasm]}
    if a.versus is not None:
        builds["versus"] = [*base, *a.versus.split(), wasm]
    for cmd in list(builds.values())[1:]:
        checked([*cmd[:-1], "compile", wasm])
    pin = ["taskset", "-c", str(a.cpu)] if a.cpu is not None else []
    rows = []
    for rnd in range(a.rounds):
        for kind, cmd in builds.items():
            for name, (rate, unit, check) in run([*pin, *cmd, *a.kernels]).items():
                rows.append({"round": rnd, "build": kind, "kernel": name, "rate": rate, "unit": unit, "checksum": check})
    if a.csv:
        with open(a.csv, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)
    names = list(dict.fromkeys(r["kernel"] for r in rows))
    head = f"| kernel ({a.rounds} interleaved rounds, medians) | native | wasm ({a.backend}{' ' + a.embedder_args if a.embedder_args else ''}) | wasm/native |"
    if "versus" in builds:
        head += f" wasm ({a.versus}) | its /native | wasm / it, paired |"
    print(head)
    print("|---" * (head.count("|") - 1) + "|")
    bad = []
    for name in names:
        rate = {k: [r["rate"] for r in rows if r["kernel"] == name and r["build"] == k] for k in builds}
        med = {k: statistics.median(v) for k, v in rate.items()}
        unit = next(r["unit"] for r in rows if r["kernel"] == name)
        if len({r["checksum"] for r in rows if r["kernel"] == name}) != 1:
            bad.append(name)
        line = f"| {name} | {med['native']:.3f} {unit} | {med['wasm']:.3f} {unit} | {med['wasm'] / med['native']:.2f} |"
        if "versus" in builds:
            paired = statistics.median(w / v for w, v in zip(rate["wasm"], rate["versus"]))
            line += f" {med['versus']:.3f} {unit} | {med['versus'] / med['native']:.2f} | {paired:.3f} |"
        print(line)
    if bad:
        sys.exit(f"checksums differ between the builds: {', '.join(bad)}")


if __name__ == "__main__":
    main()
