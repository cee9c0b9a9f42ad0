#!/usr/bin/env python3
"""Two-node benchmark: IMB-style PingPong (and, if asked, other two-rank
benchmarks of benchmarks/imb/imb.c) between two network namespaces joined
by a veth pair (netns.py), one rank on each "node", natively and under the
embedder, interleaved over --reps repetitions on Open MPI with
`--mca btl self,vader,tcp` (TCP carries every message: the ranks are on
different nodes) and yielding ranks (see yield_opts). Prints, per
benchmark, the median time of each size for both builds, their ratio
(wasm / native: above 1 is slower) and the geometric mean of the ratios.

    python3 benchmarks/twonode/run.py [--reps 5] [--msglog 0:22] [--time 0.5] [--iter N]
                                      [--benchmarks PingPong,Sendrecv,Allreduce]
                                      [--spin] [--raw DIR]

Needs root (namespaces), iproute2, util-linux, Open MPI (mpicc.openmpi,
mpirun.openmpi), the wasm toolchain (toolchain/bin/wasm-mpicc) and
target/release/embedder. Exit status 1 if a run failed.
"""
import argparse
import math
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT / "benchmarks"))
import netns  # noqa: E402
from parse import parse_imb  # noqa: E402

EMBEDDER = ROOT / "target" / "release" / "embedder"
WASM_MPICC = ROOT / "toolchain" / "bin" / "wasm-mpicc"
IMB_SRC = ROOT / "benchmarks" / "imb" / "imb.c"
MPICC = shutil.which("mpicc.openmpi") or "mpicc"
MPIRUN = shutil.which("mpirun.openmpi") or "mpirun"
# The same optimisation for both builds, as benchmarks/run.py.
CFLAGS = ["-O3"]
BUILDS = ("native", "wasm")
NOTHING_US = 0.5


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--reps", type=int, default=5, help="repetitions of each build (default 5)")
    p.add_argument("--msglog", default="0:22", help="imb -msglog (default 0:22)")
    p.add_argument("--time", default="0.5", help="imb -time: seconds per size (default 0.5)")
    p.add_argument("--iter", help="imb -iter N[,VOL_MiB] (default imb's: 1000,40)")
    p.add_argument("--benchmarks", default="PingPong",
                   help="comma-separated imb benchmarks, run on the 2 ranks (default PingPong)")
    p.add_argument("--btl", default="self,vader,tcp", help="Open MPI btl list (default self,vader,tcp)")
    p.add_argument("--spin", action="store_true",
                   help="let the ranks busy-poll (Open MPI's default) instead of mpi_yield_when_idle=1")
    p.add_argument("--timeout", type=float, default=600, help="seconds per run (default 600)")
    p.add_argument("--raw", type=Path, help="keep every run's output in this directory")
    args = p.parse_args()
    if args.reps < 1:
        p.error("--reps must be at least 1")
    return args


def build(work):
    """imb natively and to wasm, and the module compiled into a cache of
    its own, so no timed run compiles."""
    native, wasm, cache = work / "imb", work / "imb.wasm", work / "cache"
    for cmd in ([MPICC, *CFLAGS, "-o", native, IMB_SRC, "-lm"], [WASM_MPICC, *CFLAGS, "-o", wasm, IMB_SRC, "-lm"],
                [EMBEDDER, "--cache-dir", cache, "compile", wasm]):
        r = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=600)
        if r.returncode != 0:
            sys.exit(f"{' '.join(map(str, cmd))} failed:\n{r.stderr}")
    return {"native": [native], "wasm": [EMBEDDER, "--cache-dir", cache, wasm]}


def launch(nodes, args, program):
    """mpirun on node A: one rank there, one on node B (node-exec starts
    Open MPI's daemon there, as ssh would on a cluster)."""
    a, b = nodes.names
    imb = ["-msglog", args.msglog, "-time", args.time, *(["-iter", args.iter] if args.iter else []),
           *args.benchmarks.split(",")]
    return [MPIRUN, "--allow-run-as-root", "--oversubscribe", "--mca", "plm_rsh_agent", netns.NODE_EXEC,
            "--mca", "btl", args.btl, *yield_opts(args), "--display-map", "-H", f"{a}:1,{b}:1", "-np", "2",
            *program, *imb]


def yield_opts(args):
    """A veth pair has no interrupt of its own: the receiving side's packet
    processing runs as kernel soft-interrupt work, which two spinning ranks
    on a machine with few cores hold off until the next scheduler tick
    (measured here on 2 cores: every PingPong took 3.8 ms, 11.5 ms from
    64 KiB; with yielding ranks 14 us). So the ranks yield when idle, both
    builds alike; --spin measures Open MPI's default."""
    return [] if args.spin else ["--mca", "mpi_yield_when_idle", "1"]


def one_rank_per_node(stdout, nodes):
    return all(f"Data for node: {n}" in stdout for n in nodes.names) and stdout.count("Num procs: 1") >= 2


def run_once(nodes, args, build_name, program, rep):
    cmd = [str(c) for c in launch(nodes, args, program)]
    t0 = time.monotonic()
    try:
        r = nodes.run(nodes.names[0], cmd, timeout=args.timeout)
        stdout, stderr, rc = r.stdout, r.stderr, r.returncode
    except subprocess.TimeoutExpired as e:
        stdout, stderr, rc = e.stdout or "", (e.stderr or "") + f"\ntimed out after {args.timeout}s", None
    if args.raw:
        args.raw.mkdir(parents=True, exist_ok=True)
        (args.raw / f"{build_name}.rep{rep}.stdout").write_text(stdout if isinstance(stdout, str) else stdout.decode())
        (args.raw / f"{build_name}.rep{rep}.stderr").write_text(stderr if isinstance(stderr, str) else stderr.decode())
    wall = time.monotonic() - t0
    if rc != 0 or not one_rank_per_node(stdout, nodes):
        print(f"  {build_name} rep {rep}: FAILED (exit {rc}, {wall:.1f} s)\n{stderr[-2000:]}", file=sys.stderr)
        return None
    print(f"  {build_name} rep {rep}: {wall:.1f} s", file=sys.stderr)
    return parse_imb(stdout)


def collect(nodes, args, programs):
    """{(benchmark, bytes): {build: [row per rep]}}, builds interleaved so
    that a change in the machine's load hits both alike."""
    rows, failed = {}, 0
    for rep in range(1, args.reps + 1):
        for name in BUILDS:
            parsed = run_once(nodes, args, name, programs[name], rep)
            if parsed is None:
                failed += 1
                continue
            for row in parsed:
                rows.setdefault((row["benchmark"], row["bytes"]), {b: [] for b in BUILDS})[name].append(row)
    return rows, failed


def median(rows, key):
    values = [r[key] for r in rows if r[key] is not None]
    return statistics.median(values) if values else float("nan")


def fmt(value, width, digits=2):
    return f"{value:>{width}.{digits}f}" if math.isfinite(value) else f"{'-':>{width}}"


def report(rows):
    """One table per benchmark; returns {benchmark: geometric-mean ratio}.
    A size whose native time is under NOTHING_US moved no data (a 0-byte
    reduction) and stays out of the mean."""
    means = {}
    for bench in dict.fromkeys(b for b, _ in rows):
        print(f"\n{bench} (medians; ratio = wasm / native time)")
        print(f"{'bytes':>10} {'native us':>11} {'wasm us':>11} {'ratio':>7} {'native MB/s':>12} {'wasm MB/s':>10}")
        logs = []
        for (b, size), by_build in sorted(rows.items()):
            if b != bench or not all(by_build[x] for x in BUILDS):
                continue
            t = {x: median(by_build[x], "t_avg") for x in BUILDS}
            bw = {x: median(by_build[x], "mbytes_per_sec") for x in BUILDS}
            ratio = t["wasm"] / t["native"] if t["native"] >= NOTHING_US else float("nan")
            if math.isfinite(ratio) and ratio > 0:
                logs.append(math.log(ratio))
            print(f"{size:>10} {fmt(t['native'], 11)} {fmt(t['wasm'], 11)} {fmt(ratio, 7, 3)} "
                  f"{fmt(bw['native'], 12)} {fmt(bw['wasm'], 10)}")
        if logs:
            means[bench] = math.exp(sum(logs) / len(logs))
            print(f"geometric-mean ratio over {len(logs)} sizes: {means[bench]:.3f}")
    return means


def main():
    args = parse_args()
    for tool in (EMBEDDER, WASM_MPICC):
        if not tool.exists():
            sys.exit(f"{tool} is missing (make build; the toolchain comes with make setup)")
    with tempfile.TemporaryDirectory(prefix="twonode-") as tmp:
        programs = build(Path(tmp))
        try:
            with netns.TwoNodes() as nodes:
                print(f"nodes {nodes.names[0]} ({nodes.addresses[0]}) and {nodes.names[1]} "
                      f"({nodes.addresses[1]}): TCP over a veth pair; {args.reps} reps, native and wasm "
                      f"interleaved; btl {args.btl}", file=sys.stderr)
                rows, failed = collect(nodes, args, programs)
        except netns.NamespacesUnavailable as e:
            sys.exit(str(e))
    print(f"# two nodes on one machine (network namespaces, TCP over veth; Open MPI btl {args.btl}, "
          f"{'busy-polling' if args.spin else 'mpi_yield_when_idle=1'}), 1 rank per node, "
          f"imb -msglog {args.msglog} -time {args.time}, {args.reps} reps")
    report(rows)
    if failed:
        print(f"\n{failed} run(s) failed", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
