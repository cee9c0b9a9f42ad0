#!/usr/bin/env python3
"""IMB-style on one node with Open MPI, five ways in interleaved rounds, to
show what the embedder's copy-protocol sizes (embedder/src/host_mpi/mod.rs,
COPY_PROTOCOL) do to messages between ranks once single copy is off:

  native                   Open MPI's defaults (single copy on)
  native-contained-ompi    single copy off, Open MPI's own sizes
  native-contained         single copy off, the embedder's sizes
                           (the benchmark runner's native-contained)
  wasm-ompi                the embedder, Open MPI's sizes passed through the
                           launcher (the embedder leaves a launcher's value be)
  wasm                     the embedder as it runs

Prints, per benchmark and over all, the geometric mean over message sizes of
the median time (t_avg) divided by native's:

    python3 benchmarks/imb/copy_sizes.py --rounds 7
"""
import argparse
import collections
import math
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE.parent))
from parse import IMB_BENCHMARKS, parse_imb  # noqa: E402  benchmarks/parse.py
from run import CONTAINED_TRANSPORTS  # noqa: E402  benchmarks/run.py

# Open MPI 4's defaults of what COPY_PROTOCOL sets
OPEN_MPI_SIZES = {"OMPI_MCA_btl_vader_eager_limit": "4096", "OMPI_MCA_btl_vader_max_send_size": "32768"}


def kinds(embedder, cache):
    """{kind: (environment for mpirun, command)}."""
    contained_ompi = {**CONTAINED_TRANSPORTS, **OPEN_MPI_SIZES}
    wasm = [str(embedder), "--cache-dir", str(cache), str(HERE / "imb.wasm")]
    return {
        "native": ({}, [str(HERE / "imb")]),
        "native-contained-ompi": (contained_ompi, [str(HERE / "imb")]),
        "native-contained": (CONTAINED_TRANSPORTS, [str(HERE / "imb")]),
        "wasm-ompi": (OPEN_MPI_SIZES, wasm),
        "wasm": ({}, wasm),
    }


def ratios(times):
    """{kind: {benchmark: geometric mean over sizes of median / native's median}},
    and each kind's mean over all points under "all"; `times` maps (kind,
    benchmark, bytes) to the list of times."""
    native = {(b, s): statistics.median(t) for (k, b, s), t in times.items() if k == "native"}
    logs = collections.defaultdict(lambda: collections.defaultdict(list))
    for (kind, bench, size), t in times.items():
        base = native.get((bench, size))
        if kind != "native" and base and base > 0 and statistics.median(t) > 0:
            logs[kind][bench].append(math.log(statistics.median(t) / base))
    out = {}
    for kind, per in logs.items():
        out[kind] = {b: math.exp(sum(v) / len(v)) for b, v in per.items()}
        every = [x for v in per.values() for x in v]
        out[kind]["all"] = math.exp(sum(every) / len(every))
    return out


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--np", type=int, default=2)
    p.add_argument("--msglog", default="0:22")
    p.add_argument("--time", default="1", help="imb -time: seconds per sample at most")
    p.add_argument("--benchmarks", default=",".join(b for b in IMB_BENCHMARKS if b != "Barrier"))
    p.add_argument("--embedder", default=ROOT / "target" / "release" / "embedder")
    p.add_argument("--mpirun", default="mpirun")
    args = p.parse_args(argv)
    launcher = [args.mpirun, "-np", str(args.np)]
    if os.geteuid() == 0:
        launcher.append("--allow-run-as-root")
    benches = args.benchmarks.split(",")
    times = collections.defaultdict(list)
    with tempfile.TemporaryDirectory() as cache:
        runs = kinds(args.embedder, cache)
        for _ in range(args.rounds):
            for kind, (env, cmd) in runs.items():
                imb = [*cmd, "-npmin", str(args.np), "-msglog", args.msglog, "-time", args.time, *benches]
                r = subprocess.run(launcher + imb, env={**os.environ, **env}, capture_output=True, text=True)
                if r.returncode != 0:
                    sys.exit(f"{kind} failed ({r.returncode}):\n{r.stderr[-2000:]}")
                for row in parse_imb(r.stdout):
                    if row["processes"] == args.np:
                        times[(kind, row["benchmark"], row["bytes"])].append(row["t_avg"])
    table = ratios(times)
    shown = [k for k in runs if k != "native"]
    print(f"IMB-style, {args.np} processes, sizes {args.msglog}, {args.rounds} rounds: "
          "geometric mean of median time / native's")
    print("benchmark".ljust(16) + "".join(k.rjust(23) for k in shown))
    for bench in [*benches, "all"]:
        if all(bench in table.get(k, {}) for k in shown):
            print(bench.ljust(16) + "".join(f"{table[k][bench]:23.3f}" for k in shown))


if __name__ == "__main__":
    main()
