#!/usr/bin/env python3
"""Benchmark runner: IMB-style and HPCG-style, native vs wasm, plus compiler
backends, start-up costs and binary sizes, and two external codes (HPCC 1.5.0,
NetPIPE 3.7.2), the bridge's cost per MPI call, single-process compute
kernels and the MPI call counts of the at-scale model (benchmarks/model).
Writes tidy CSVs for plots/plot.py.

    python3 benchmarks/run.py [--ranks 1,2] [--reps 3] [--quick] [--out results/]
                              [--external on|off|only] [--phases main,...]
                              [--launcher srun --ranks-per-node K --mpirun-args --mpi=pmix]

Inside a Slurm allocation (--launcher srun) the ranks start with srun -n N,
over ceil(N/K) nodes with --ranks-per-node K, and the warm cache (--cache-dir,
node-local) is filled on every node before the runs; jobscripts/*-sweep.sbatch
use this for the paper's scaling sweeps.

Builds imb and hpcg natively (mpicc) and to wasm (wasm-mpicc), -O3 both, plus
an HPCG module without SIMD for the Singlepass backend. Then, for every rank
count and repetition, runs native and wasm interleaved (imb native, imb wasm,
hpcg native, hpcg wasm), on the LLVM backend with a warm cache. On Open MPI
imb also runs natively with the transport settings the embedder makes before
MPI_Init (kind native-contained, right after imb native; --native-contained):
the report then tells the embedder's own cost from the price of containing
truncated receives. Then one
single-rank HPCG per backend on a cold cache (compile time and GFLOP/s), and
start-up runs (cold compile, cached start, N ranks starting on a cold cache).

Then three short phases: bridge (benchmarks/bridge/overhead.c, ns per
MPI_Comm_rank, per 1-double MPI_Allreduce, per MPI_Testany poll and per
nonblocking exchange with itself, native and wasm interleaved,
per rank count and repetition), kernels (benchmarks/kernels/kernels.c, one
process, native and wasm interleaved, --reps rounds; both builds must print
the same checksums) and model (the native HPCG-style build with the PMPI
counter benchmarks/model/mpi_count.c preloaded, tiny grid, at --model-ranks
ranks; the counts are checked against benchmarks/model/calls.py).

External codes (benchmarks/external: fetched from Debian's source packages,
built unmodified natively and to wasm, cached in benchmarks/external/build/):
HPCC and NetPIPE's MPI module on 2 ranks, native and wasm interleaved, each
run in a fresh working directory (HPCC reads hpccinf.txt and writes
hpccoutf.txt there; NetPIPE writes np.out), which the wasm runs get as their
root directory (--mapdir /:DIR). If the Debian mirror cannot be reached and
nothing is cached, the external runs are skipped (noted in meta.json).

Output, in OUT/<UTC timestamp>/: raw/ (every stdout and stderr, and HPCC's and
NetPIPE's output files), runs.csv (one row per program run), imb.csv, hpcg.csv,
backends.csv, sizes.csv, startup.csv, bridge.csv, kernels.csv, calls.csv,
hpcc.csv, netpipe.csv, external_runs.csv, meta.json. The CSVs are derived
from raw/ + runs.csv only (tables_from_raw), so they can be rebuilt after a
parser change. Exit status 1
if any run failed, any HPCG/HPCC validation failed, the kernels' checksums
differ between the builds or a measured call count differs from the analytic
one.
"""
import argparse
import csv
import datetime
import importlib.util
import json
import os
import platform
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent / "model"))
import calls as model_calls  # noqa: E402  benchmarks/model/calls.py
from parse import (IMB_BENCHMARKS, IMB_PAIR, parse_bridge, parse_compile, parse_hpcc, parse_hpcg,  # noqa: E402
                   parse_imb, parse_kernels, parse_netpipe, parse_timings, parse_unsupported)

ROOT = Path(__file__).resolve().parents[1]
EMBEDDER = ROOT / "target" / "release" / "embedder"
WASM_MPICC = ROOT / "toolchain" / "bin" / "wasm-mpicc"
IMB_SRC = [ROOT / "benchmarks" / "imb" / "imb.c"]
HPCG_SRC = [ROOT / "benchmarks" / "hpcg" / f for f in ("hpcg.c", "geometry.c", "kernels.c", "cg.c")]
BRIDGE_SRC = [ROOT / "benchmarks" / "bridge" / "overhead.c"]
KERNELS_SRC = [ROOT / "benchmarks" / "kernels" / "kernels.c", ROOT / "benchmarks" / "external" / "cblas" / "cblas.c"]

_spec = importlib.util.spec_from_file_location("external_build", ROOT / "benchmarks" / "external" / "build.py")
external = importlib.util.module_from_spec(_spec)  # benchmarks/external/build.py (fetch + build)
_spec.loader.exec_module(external)

CFLAGS = ["-O3"]
WASM_CFLAGS = ["-O3"]
NOSIMD_FLAGS = ["-mno-simd128"]
BACKENDS = ["llvm", "cranelift", "singlepass"]

# Default and --quick program arguments. IMB: its own defaults (iter 1000, 40 MiB
# per sample, sizes 0 and 2^0..2^22) except the per-sample time budget (IMB: 10 s).
IMB_ARGS = "-msglog 0:22 -time 1"
IMB_ARGS_QUICK = "-msglog 0:4 -iter 20 -time 0.05"
HPCG_ARGS = "--nx 32 --ny 32 --nz 32 --rt 10"
HPCG_ARGS_QUICK = "--nx 16 --ny 16 --nz 16 --iters 1"
# External codes, on EXTERNAL_RANKS ranks (NetPIPE measures one pair). HPCC: HPL's
# N and NB in hpccinf.txt (HPCC sizes its other tests from N). NetPIPE: no
# perturbed sizes (-p 0), 1 B .. 4 MiB, its own repeat calibration; --quick
# fixes the repeats (-n) so it takes seconds.
EXTERNAL_RANKS = 2
PHASES = ["main", "external", "backends", "startup", "bridge", "kernels", "model"]
# the modules each phase runs from the warm cache (compiled before the runs)
PHASE_MODULES = [("main", "imb.wasm"), ("main", "hpcg.wasm"), ("startup", "imb.wasm"), ("startup", "hpcg.wasm"),
                 ("external", "hpcc.wasm"), ("external", "netpipe.wasm"), ("bridge", "overhead.wasm"),
                 ("kernels", "kernels.wasm")]
HPCC_N, HPCC_NB = 3000, 100
HPCC_N_QUICK, HPCC_NB_QUICK = 200, 40
NETPIPE_ARGS = "-p 0 -l 1 -u 4194304"
NETPIPE_ARGS_QUICK = "-p 0 -l 1 -u 65536 -n 20"
# Bridge: MPI_Comm_rank, MPI_Allreduce, MPI_Testany and self-exchange loop lengths (overhead.c's arguments);
# the defaults are benchmarks/bridge/run.py's. Kernels: kernels.c's names
# (empty: all of them); --quick keeps the two that take a second.
BRIDGE_CALLS = "10000000 200000 2000000 1000000"
BRIDGE_CALLS_QUICK = "1000000 20000 200000 100000"
KERNELS = ""
KERNELS_QUICK = "dgemm triad"
# Model: the counted runs are tiny and oversubscribed; their counts, not
# their times, are the result.
MODEL_RANKS = list(model_calls.MEASURE_RANKS)
MODEL_ARGS = model_calls.MEASURE_ARGS
# The Open MPI parameters the embedder sets before MPI_Init to contain
# truncated receives and the copy protocol's sizes it sets with them, under
# Open MPI 4's names (embedder/src/host_mpi/mod.rs, contain_truncation and
# COPY_PROTOCOL; a test checks that the two agree). IMB's "native-contained"
# runs use them.
CONTAINED_TRANSPORTS = {"OMPI_MCA_btl_self_flags": "send,inplace",
                        "OMPI_MCA_btl_vader_single_copy_mechanism": "none",
                        "OMPI_MCA_smsc": "^cma,xpmem,knem",
                        "OMPI_MCA_btl_vader_eager_limit": "32768",
                        "OMPI_MCA_btl_vader_max_send_size": "131072"}
# Start-up runs: the programs with almost no work, so the wall time is start-up.
STARTUP_ARGS = {"imb": "-msglog 0:0 -iter 1 -time 0.01 Barrier", "hpcg": "--nx 8 --ny 8 --nz 8 --iters 1"}

RUN_FIELDS = ["seq", "phase", "program", "kind", "backend", "module", "cache", "ranks", "rep",
              "rc", "wall_s", "stdout", "stderr", "cmd"]
IMB_FIELDS = ["ranks", "rep", "kind", "backend", "benchmark", "processes", "bytes", "repetitions",
              "t_min", "t_max", "t_avg", "mbytes_per_sec"]
HPCG_FIELDS = ["ranks", "rep", "kind", "backend", "gflops", "gbs", "time_s", "sets", "local",
               "procgrid", "global", "validation", "checks_failed", "rc", "wall_s", "load_s", "run_s"]
BACKEND_FIELDS = ["backend", "module", "simd", "rep", "compile_s", "cache", "instantiate_s",
                  "gflops", "validation", "rc", "wall_s"]
STARTUP_FIELDS = ["program", "mode", "ranks", "rep", "wall_s", "load_s", "caches",
                  "instantiate_s", "run_s", "rc"]
SIZE_FIELDS = ["program", "native_dynamic_bytes", "native_static_bytes", "wasm_bytes",
               "wasm_nosimd_bytes"]
HPCC_FIELDS = ["ranks", "rep", "kind", "backend", "test", "metric", "unit", "better", "value", "key",
               "success", "rc"]
BRIDGE_FIELDS = ["ranks", "rep", "build", "comm_rank_ns", "allreduce_1double_ns", "testany_pending_ns", "exchange_self_ns"]
KERNEL_FIELDS = ["rep", "build", "kernel", "rate", "unit", "checksum"]
CALLS_FIELDS = ["ranks", "rank", "neighbours", "function", "kind", "sets", "measured", "analytic"]
NETPIPE_FIELDS = ["ranks", "rep", "kind", "backend", "bytes", "mbps", "mbytes_per_sec", "usec"]
EXTERNAL_RUN_FIELDS = ["program", "ranks", "rep", "kind", "backend", "rc", "wall_s", "load_s", "run_s",
                       "success", "hpl_check", "hpl_residual", "failed_checks", "last_section", "points",
                       "unsupported_mpi", "output"]
# Files the external programs write in their working directory, kept in raw/ as <stem>.<name>.
OUTPUT_FILES = {"hpcc": "hpccoutf.txt", "netpipe": "np.out"}


def int_list(text):
    values = [int(v) for v in text.split(",") if v.strip()]
    if not values or min(values) < 1:
        raise argparse.ArgumentTypeError("a comma-separated list of positive integers")
    return values


def cpu_model():
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


class Runner:
    """Runs commands, saves their output under raw/, and logs them in runs.csv."""

    def __init__(self, out, args):
        self.out = out
        self.raw = out / "raw"
        self.raw.mkdir(parents=True)
        self.args = args
        self.seq = 0
        self.rows = []
        self.failures = []
        self.mpirun_opts = launcher_opts(args)

    def mpi(self, ranks, *cmd):
        return [self.args.mpirun, *self.mpirun_opts, *shlex.split(self.args.mpirun_args),
                *layout(self.args, ranks), *map(str, cmd)]

    def on_each_node(self, *cmd):
        """cmd once on every node of the job (srun inside an allocation), so
        node-local caches are filled on each node; else here."""
        if self.args.launcher != "srun":
            return list(map(str, cmd))
        nodes = os.environ.get("SLURM_JOB_NUM_NODES", "1")
        return [self.args.mpirun, "-N", nodes, "--ntasks-per-node=1", *map(str, cmd)]

    def run(self, cmd, phase, program, kind, ranks="", rep="", backend="", module="", cache="", cwd=None,
            keep=(), env=None):
        """Run cmd (in directory cwd, with `env` added to the environment), save its stdout/stderr and the files
        named in `keep` that it left in cwd (as raw/<stem>.<name>), log it; a
        non-zero exit is a failure."""
        self.seq += 1
        cmd = [str(c) for c in cmd]
        parts = [f"{self.seq:03d}", phase, program, kind]
        parts += [p for p in (backend, module.replace(".wasm", "") if module else "", cache) if p]
        if ranks != "":
            parts.append(f"np{ranks}")
        if rep != "":
            parts.append(f"rep{rep}")
        stem = "_".join(parts)
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                start_new_session=True, cwd=cwd, env={**os.environ, **env} if env else None)
        try:
            stdout, stderr = proc.communicate(timeout=self.args.timeout)
            rc = proc.returncode
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)  # the process group of this mpirun only
            stdout, stderr = proc.communicate()
            stderr += f"\nrun.py: timed out after {self.args.timeout} s\n"
            rc = -9
        wall = time.perf_counter() - t0
        (self.raw / f"{stem}.stdout").write_text(stdout)
        (self.raw / f"{stem}.stderr").write_text(stderr)
        for name in keep:
            if cwd and (Path(cwd) / name).exists():
                shutil.copy2(Path(cwd) / name, self.raw / f"{stem}.{name}")
        row = {"seq": self.seq, "phase": phase, "program": program, "kind": kind, "backend": backend,
               "module": module, "cache": cache, "ranks": ranks, "rep": rep, "rc": rc,
               "wall_s": f"{wall:.4f}", "stdout": f"raw/{stem}.stdout",
               "stderr": f"raw/{stem}.stderr", "cmd": shlex.join(cmd)}
        self.rows.append(row)
        status = "ok" if rc == 0 else f"EXIT {rc}"
        if rc != 0:
            self.failures.append(f"{stem}: exit {rc} (see raw/{stem}.stderr)")
        print(f"  [{self.seq:3d}] {stem:<48} {wall:7.2f} s  {status}", flush=True)
        return row, stdout, stderr

    def write_runs(self):
        write_csv(self.out / "runs.csv", RUN_FIELDS, self.rows)


def write_csv(path, fields, rows):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
        w.writeheader()
        for row in rows:
            w.writerow({k: ("" if row.get(k) is None else row.get(k)) for k in fields})


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


# ---------------------------------------------------------------------------
# Tidy tables from raw/ + runs.csv


def _max(values):
    values = [v for v in values if v is not None]
    return max(values) if values else None


def tables_from_raw(out):
    """(Re)write imb.csv, hpcg.csv, backends.csv, startup.csv, bridge.csv,
    kernels.csv, calls.csv, hpcc.csv, netpipe.csv and external_runs.csv in
    `out` from runs.csv and the raw/ files it names. Returns (tables,
    problems): tables is {name: rows}; problems lists runs whose output could
    not be used (HPCG/HPCC result missing or validation failed, unparseable
    IMB/NetPIPE/bridge/kernel/count output, MPI functions the embedder does
    not support), kernels whose checksums differ between the builds and
    measured call counts that differ from the analytic ones."""
    out = Path(out)
    runs = read_csv(out / "runs.csv")
    imb, hpcg, backends, startup, problems = [], [], [], [], []
    hpcc, netpipe, external_runs = [], [], []
    bridge, kernels, counted = [], [], []
    for r in runs:
        stdout = (out / r["stdout"]).read_text()
        stderr = (out / r["stderr"]).read_text()
        rc = int(r["rc"])
        timings = parse_timings(stderr)
        if r["kind"] == "compile":  # `embedder compile`: its one line per module, as timings
            timings = [{"load_s": c["seconds"], "run_s": None, "instantiate_s": None, "cache": c["cache"]}
                       for c in parse_compile(stderr)]
        load = _max(t["load_s"] for t in timings)
        run_s = _max(t["run_s"] for t in timings)
        inst = _max(t["instantiate_s"] for t in timings)
        labels = {"ranks": r["ranks"], "rep": r["rep"], "kind": r["kind"], "backend": r["backend"]}
        if r["phase"] == "main" and r["program"] == "imb":
            if rc != 0:
                continue
            try:
                rows = parse_imb(stdout)
            except ValueError as e:
                problems.append(f"{r['stdout']}: {e}")
                continue
            if not rows:
                problems.append(f"{r['stdout']}: no IMB table")
            imb += [{**labels, **row} for row in rows]
        elif r["phase"] in ("main", "backends") and r["program"] == "hpcg":
            try:
                res = parse_hpcg(stdout)
            except ValueError as e:
                problems.append(f"{r['stdout']}: {e}")
                continue
            if res["validation"] != "PASSED":
                problems.append(f"{r['stdout']}: HPCG validation {res['validation']}")
            failed = sorted(k for k, v in res["checks"].items() if v != "PASSED")
            if r["phase"] == "main":
                hpcg.append({**labels, **res, "checks_failed": " ".join(failed), "rc": rc,
                             "wall_s": r["wall_s"], "load_s": load, "run_s": run_s})
            else:
                backends.append({"backend": r["backend"], "module": r["module"],
                                 "simd": "no" if "nosimd" in r["module"] else "yes",
                                 "rep": r["rep"], "compile_s": load,
                                 "cache": " ".join(sorted({t["cache"] for t in timings})),
                                 "instantiate_s": inst, "gflops": res["gflops"],
                                 "validation": res["validation"], "rc": rc, "wall_s": r["wall_s"]})
        elif r["phase"] == "external":
            ext, prob = external_tables(out, r, rc, stderr, labels, load, run_s)
            external_runs.append(ext["run"])
            hpcc += ext["hpcc"]
            netpipe += ext["netpipe"]
            problems += prob
        elif r["phase"] in ("bridge", "kernels", "model"):
            rows, prob = SHORT_PHASES[r["phase"]](r, stdout, rc)
            {"bridge": bridge, "kernels": kernels, "model": counted}[r["phase"]].extend(rows)
            problems += prob
        elif r["phase"] == "startup":
            startup.append({"program": r["program"], "mode": r["kind"], "ranks": r["ranks"],
                            "rep": r["rep"], "wall_s": r["wall_s"], "load_s": load,
                            "caches": " ".join(sorted({t["cache"] for t in timings})),
                            "instantiate_s": inst, "run_s": run_s, "rc": rc})
    write_csv(out / "imb.csv", IMB_FIELDS, imb)
    write_csv(out / "hpcg.csv", HPCG_FIELDS, hpcg)
    write_csv(out / "backends.csv", BACKEND_FIELDS, backends)
    write_csv(out / "startup.csv", STARTUP_FIELDS, startup)
    write_csv(out / "bridge.csv", BRIDGE_FIELDS, bridge)
    write_csv(out / "kernels.csv", KERNEL_FIELDS, kernels)
    write_csv(out / "calls.csv", CALLS_FIELDS, counted)
    problems += checksum_problems(kernels) + count_problems(counted)
    write_csv(out / "hpcc.csv", HPCC_FIELDS, hpcc)
    write_csv(out / "netpipe.csv", NETPIPE_FIELDS, netpipe)
    write_csv(out / "external_runs.csv", EXTERNAL_RUN_FIELDS, external_runs)
    return {"imb": imb, "hpcg": hpcg, "backends": backends, "startup": startup, "bridge": bridge,
            "kernels": kernels, "calls": counted, "hpcc": hpcc, "netpipe": netpipe,
            "external_runs": external_runs}, problems


def _where(r):
    return r["stdout"][: -len(".stdout")]


def bridge_rows(r, stdout, rc):
    """One bridge.csv row per overhead run (rank 0's line)."""
    if rc != 0:
        return [], []  # already a failure of the run
    try:
        res = parse_bridge(stdout)
    except ValueError as e:
        return [], [f"{_where(r)}: {e}"]
    return [{"ranks": r["ranks"], "rep": r["rep"], "build": r["kind"], **res}], []


def kernel_rows(r, stdout, rc):
    """kernels.csv rows of one kernels run."""
    if rc != 0:
        return [], []
    rows = parse_kernels(stdout)
    if not rows:
        return [], [f"{_where(r)}: no kernel line"]
    return [{"rep": r["rep"], "build": r["kind"], **row} for row in rows], []


def model_rows(r, stdout, rc):
    """calls.csv rows of one counted run: the timed segment's counts per
    rank and function next to benchmarks/model/calls.py's."""
    if rc != 0:
        return [], []
    try:
        rows, _ = model_calls.compare(stdout, model_calls.sets_of(stdout))
    except ValueError as e:
        return [], [f"{_where(r)}: {e}"]
    return rows, []


SHORT_PHASES = {"bridge": bridge_rows, "kernels": kernel_rows, "model": model_rows}


def checksum_problems(kernels):
    """A kernel whose checksum is not the same in every run (native and wasm,
    every round) computed something else: a code generation bug, not a
    speed difference."""
    problems = []
    for name in dict.fromkeys(k["kernel"] for k in kernels):
        seen = {}
        for k in kernels:
            if k["kernel"] == name:
                seen.setdefault(k["checksum"], set()).add(k["build"])
        if len(seen) > 1:
            problems.append(f"kernels: {name}: checksums differ between builds: "
                            + ", ".join(f"{c} ({'/'.join(sorted(b))})" for c, b in sorted(seen.items())))
    return problems


def count_problems(counted):
    """Measured calls that the analytic count (benchmarks/model/calls.py)
    does not predict: the model's call counts would be wrong."""
    bad = [c for c in counted if int(c["measured"]) != int(c["analytic"])]
    return [f"model: {c['ranks']} ranks, rank {c['rank']}: {c['function']} measured {c['measured']}, "
            f"analytic {c['analytic']}" for c in bad]


def output_file(out, run_row, program):
    """raw/<stem>.<file> of an external run (its hpccoutf.txt or np.out)."""
    return Path(out) / (run_row["stdout"][: -len(".stdout")] + "." + OUTPUT_FILES[program])


def external_tables(out, r, rc, stderr, labels, load, run_s):
    """Rows of hpcc.csv / netpipe.csv and one external_runs.csv row for one
    external run, plus its problems."""
    program = r["program"]
    path = output_file(out, r, program)
    unsupported = parse_unsupported(stderr)
    info = {"program": program, **labels, "rc": rc, "wall_s": r["wall_s"], "load_s": load, "run_s": run_s,
            "unsupported_mpi": " ".join(unsupported),
            "output": str(path.relative_to(out)) if path.exists() else ""}
    res = {"run": info, "hpcc": [], "netpipe": []}
    problems = []
    where = r["stdout"][: -len(".stdout")]
    if unsupported:
        problems.append(f"{where}: not supported by the embedder: {', '.join(unsupported)}")
    if not path.exists():
        problems.append(f"{where}: no {OUTPUT_FILES[program]} (exit {rc})")
        return res, problems
    text = path.read_text(errors="replace")
    try:
        if program == "hpcc":
            h = parse_hpcc(text)
            failed = sorted(k for k, v in h["checks"].items() if v != "PASSED")
            info.update({"success": {True: 1, False: 0}.get(h["success"], ""),
                         "hpl_check": (h["hpl"] or {}).get("check") or "",
                         "hpl_residual": (h["hpl"] or {}).get("residual"),
                         "failed_checks": " ".join(failed),
                         "last_section": h["sections"][-1] if h["sections"] else ""})
            res["hpcc"] = [{**labels, **m, "success": info["success"], "rc": rc} for m in h["metrics"]]
            if h["success"] is not True or info["hpl_check"] != "PASSED" or failed:
                problems.append(f"{where}: HPCC Success={h['summary'].get('Success', 'missing')}, "
                                f"HPL check {info['hpl_check'] or 'missing'}"
                                + (f", failed: {' '.join(failed)}" if failed else "")
                                + ("" if h["complete"] else f" (stopped in {info['last_section']})"))
        else:
            rows = parse_netpipe(text)
            info["points"] = len(rows)
            res["netpipe"] = [{**labels, **row, "usec": round(row["usec"], 4)} for row in rows]
            if not rows:
                problems.append(f"{where}: empty np.out")
    except ValueError as e:
        problems.append(f"{where}: {e}")
    return res, problems


# ---------------------------------------------------------------------------
# Phases


def build(out, args, meta):
    """Compile the programs into out/build; returns {name: path}; sizes.csv."""
    bdir = out / "build"
    bdir.mkdir()
    logs = []
    p = {}

    def cc(target, compiler, flags, sources, required=True):
        cmd = [str(compiler), *flags, "-o", str(bdir / target), *map(str, sources), "-lm"]
        r = subprocess.run(cmd, capture_output=True, text=True)
        logs.append({"cmd": shlex.join(cmd), "rc": r.returncode, "stderr": r.stderr.strip()[-2000:]})
        if r.returncode != 0:
            if required:
                sys.exit(f"run.py: build failed: {shlex.join(cmd)}\n{r.stderr}")
            return None
        return bdir / target

    std = ["-std=c99"]
    phases = set(args.phases)
    # what the chosen phases run (a sweep's main phase needs one program)
    needed = set(args.programs) if "main" in phases else set()
    needed |= {"imb", "hpcg"} if "startup" in phases else set()
    needed |= {"hpcg"} if phases & {"backends", "model"} else set()
    for name, src in (("imb", IMB_SRC), ("hpcg", HPCG_SRC)):
        if name in needed:
            p[name] = cc(name, args.mpicc, std + CFLAGS, src)
            p[name + ".wasm"] = cc(name + ".wasm", WASM_MPICC, std + WASM_CFLAGS, src)
            p[name + "-static"] = cc(name + "-static", args.mpicc, std + CFLAGS + ["-static"], src,
                                     required=False)
    if "backends" in phases:
        p["hpcg-nosimd.wasm"] = cc("hpcg-nosimd.wasm", WASM_MPICC, std + WASM_CFLAGS + NOSIMD_FLAGS, HPCG_SRC)
    for name, src, phase in (("overhead", BRIDGE_SRC, "bridge"), ("kernels", KERNELS_SRC, "kernels")):
        if phase in phases:
            p[name] = cc(name, args.mpicc, std + CFLAGS, src)
            p[name + ".wasm"] = cc(name + ".wasm", WASM_MPICC, std + WASM_CFLAGS, src)
    if "model" in phases:
        # the PMPI counter is preloaded into native runs only (LD_PRELOAD)
        p["mpi_count.so"] = cc("mpi_count.so", args.mpicc, ["-O2", "-shared", "-fPIC"],
                               [model_calls.COUNTER_SRC])
    if "external" in args.phases:
        p.update(build_external(bdir, args, meta))
    meta["builds"] = logs
    static_errors = [log for log in logs if "-static" in log["cmd"] and log["rc"] != 0]
    meta["static_link"] = "ok"
    if static_errors:  # e.g. no libmpi.a: the native static size stays empty
        lines = static_errors[0]["stderr"].splitlines()
        meta["static_link"] = "failed: " + (lines[0] if lines else f"exit {static_errors[0]['rc']}")

    def size(key):
        return os.path.getsize(p[key]) if p.get(key) else ""

    sizes = []
    for name in ("imb", "hpcg", "hpcc", "netpipe"):
        if p.get(name):
            sizes.append({"program": name, "native_dynamic_bytes": size(name),
                          "native_static_bytes": size(name + "-static"), "wasm_bytes": size(name + ".wasm"),
                          "wasm_nosimd_bytes": size(name + "-nosimd.wasm")})
    write_csv(out / "sizes.csv", SIZE_FIELDS, sizes)
    return p


def build_external(bdir, args, meta):
    """Fetch and build HPCC and NetPIPE (benchmarks/external/build.py, cached),
    copy them into bdir. Returns {name: path} ({} if skipped); notes the
    outcome, sources, flags and the MPI functions the modules import that the
    embedder does not provide in meta["external"]."""
    info = meta.setdefault("external", {})
    try:
        built = external.build(args.mpicc, jobs=2, log=lambda m: print(f"  {m}", flush=True))
    except external.MirrorUnreachable as e:
        info["status"] = f"skipped: Debian mirror unreachable and no cached sources ({e})"
        print(f"run.py: external benchmarks {info['status']}", file=sys.stderr)
        return {}
    except (external.FetchError, external.BuildError) as e:
        info["status"] = f"failed: {e}"
        meta.setdefault("failures", []).append(f"external build: {str(e).splitlines()[0]}")
        print(f"run.py: external build failed: {e}", file=sys.stderr)
        return {}
    info.update({"status": "built", **built["info"]})
    p = {}
    for key, target in (("hpcc", "hpcc"), ("hpcc.wasm", "hpcc.wasm"), ("netpipe", "NPmpi"),
                        ("netpipe.wasm", "NPmpi.wasm")):
        p[key] = bdir / target
        shutil.copy2(built[key], p[key])
    missing = {}
    for key in ("hpcc.wasm", "netpipe.wasm"):
        r = subprocess.run([str(EMBEDDER), "inspect", str(p[key])], capture_output=True, text=True)
        missing[p[key].name] = [line.split()[0].split(".", 1)[-1] for line in r.stdout.splitlines()
                                if "NOT SUPPORTED" in line or "MISSING" in line]
    info["imports_not_provided"] = missing
    return p


def imb_args_for(ranks, all_ranks, base):
    """IMB arguments for one launch: only tables for `ranks` processes
    (-npmin ranks); PingPong/PingPing (2 active processes) only in the
    launch with the smallest rank count >= 2, so idle ranks never wait
    in a barrier beside them."""
    pair_at = min([r for r in all_ranks if r >= 2], default=None)
    names = [b for b in IMB_BENCHMARKS if b not in IMB_PAIR or ranks == pair_at]
    return ["-npmin", str(ranks), *shlex.split(base), *names]


def main_phase(run, bins, args, warm_cache):
    emb = [EMBEDDER, "--backend", "llvm", "--cache-dir", warm_cache, "--timings"]
    hpcg_args = shlex.split(args.hpcg_args)
    for ranks in args.ranks:
        imb_args = imb_args_for(ranks, args.ranks, args.imb_args)
        for rep in range(1, args.reps + 1):
            for program, pargs in (("imb", imb_args), ("hpcg", hpcg_args)):
                if program not in args.programs:
                    continue
                run.run(run.mpi(ranks, bins[program], *pargs), "main", program, "native", ranks, rep)
                if program == "imb" and args.native_contained:
                    run.run(run.mpi(ranks, bins[program], *pargs), "main", program, "native-contained", ranks, rep,
                            env=CONTAINED_TRANSPORTS)
                run.run(run.mpi(ranks, *emb, bins[program + ".wasm"], *pargs), "main", program, "wasm",
                        ranks, rep, backend="llvm", module=program + ".wasm", cache="warm")


def external_phase(run, bins, args, tmp, warm_cache):
    """HPCC then NetPIPE, native then wasm, per repetition, each run in a
    fresh working directory that the wasm run gets as its root directory."""
    emb = [EMBEDDER, "--backend", "llvm", "--cache-dir", Path(warm_cache).resolve(), "--timings"]
    ranks = EXTERNAL_RANKS
    programs = [("hpcc", []), ("netpipe", [*shlex.split(args.netpipe_args), "-o", "np.out"])]
    for rep in range(1, args.external_reps + 1):
        for program, pargs in programs:
            if not bins.get(program):
                continue
            for kind in ("native", "wasm"):
                # absolute paths: the run starts in its working directory
                native, module = Path(bins[program]).resolve(), Path(bins[program + ".wasm"]).resolve()
                work = Path(tempfile.mkdtemp(prefix=f"{program}-{kind}-", dir=Path(tmp).resolve()))
                if program == "hpcc":
                    (work / "hpccinf.txt").write_text(external.hpccinf(args.hpcc_n, args.hpcc_nb, ranks))
                if kind == "native":
                    cmd = run.mpi(ranks, native, *pargs)
                    labels = {}
                else:
                    cmd = run.mpi(ranks, *emb, "--mapdir", f"/:{work}", module, *pargs)
                    labels = {"backend": "llvm", "module": module.name, "cache": "warm"}
                run.run(cmd, "external", program, kind, ranks, rep, cwd=work, keep=[OUTPUT_FILES[program]],
                        **labels)


def backends_phase(run, bins, args, tmp):
    combos = [(b, m) for b in args.backends for m in ("hpcg.wasm", "hpcg-nosimd.wasm")
              if not (b == "singlepass" and m == "hpcg.wasm")]  # Singlepass has no SIMD
    for rep in range(1, args.backend_reps + 1):
        for backend, module in combos:
            cache = tempfile.mkdtemp(prefix="cold-", dir=tmp)
            cmd = run.mpi(1, EMBEDDER, "--backend", backend, "--cache-dir", cache, "--timings",
                          bins[module], *shlex.split(args.hpcg_args))
            run.run(cmd, "backends", "hpcg", "wasm", 1, rep, backend=backend, module=module, cache="cold")


def bridge_phase(run, bins, args, warm_cache):
    """overhead.c, native then wasm, per rank count and repetition."""
    emb = [EMBEDDER, "--backend", "llvm", "--cache-dir", warm_cache]
    loops = shlex.split(args.bridge_calls)
    for ranks in args.ranks:
        for rep in range(1, args.reps + 1):
            run.run(run.mpi(ranks, bins["overhead"], *loops), "bridge", "overhead", "native", ranks, rep)
            run.run(run.mpi(ranks, *emb, bins["overhead.wasm"], *loops), "bridge", "overhead", "wasm", ranks, rep,
                    backend="llvm", module="overhead.wasm", cache="warm")


def kernels_phase(run, bins, args, warm_cache):
    """kernels.c on one process, native then wasm, --reps rounds."""
    emb = [EMBEDDER, "--backend", "llvm", "--cache-dir", warm_cache]
    names = shlex.split(args.kernels)
    for rep in range(1, args.reps + 1):
        run.run(run.mpi(1, bins["kernels"], *names), "kernels", "kernels", "native", 1, rep)
        run.run(run.mpi(1, *emb, bins["kernels.wasm"], *names), "kernels", "kernels", "wasm", 1, rep,
                backend="llvm", module="kernels.wasm", cache="warm")


def model_phase(run, bins, args):
    """The native HPCG-style build with the PMPI counter, once per rank count
    (more ranks than cores is fine: only the counts are used)."""
    for ranks in args.model_ranks:
        cmd = model_calls.counted_command(run.mpi(ranks), bins["mpi_count.so"], bins["hpcg"], args.model_args)
        run.run(cmd, "model", "hpcg", "native-count", ranks, 1)


def startup_phase(run, bins, args, tmp, warm_cache):
    for rep in range(1, args.startup_reps + 1):
        for program in ("imb", "hpcg"):
            module = program + ".wasm"
            pargs = shlex.split(STARTUP_ARGS[program])
            cold = tempfile.mkdtemp(prefix="cold-", dir=tmp)
            run.run([EMBEDDER, "--backend", "llvm", "--cache-dir", cold, "--timings", "compile", bins[module]],
                    "startup", program, "compile", "", rep, backend="llvm", module=module, cache="cold")
            for ranks in args.startup_ranks:
                run.run(run.mpi(ranks, bins[program], *pargs), "startup", program, "native", ranks, rep)
                cold = tempfile.mkdtemp(prefix="cold-", dir=tmp)
                run.run(run.mpi(ranks, EMBEDDER, "--backend", "llvm", "--cache-dir", cold, "--timings",
                                bins[module], *pargs),
                        "startup", program, "wasm-cold", ranks, rep, backend="llvm", module=module, cache="cold")
                run.run(run.mpi(ranks, EMBEDDER, "--backend", "llvm", "--cache-dir", warm_cache, "--timings",
                                bins[module], *pargs),
                        "startup", program, "wasm-warm", ranks, rep, backend="llvm", module=module, cache="warm")


def launcher_opts(args):
    if args.launcher == "mpirun" and "openmpi" in Path(args.mpirun).name:
        return ["--allow-run-as-root", "--oversubscribe"]
    return []


def layout(args, ranks):
    """How one launch places `ranks` ranks: mpirun -np, or srun -n with
    --ranks-per-node spreading them over ceil(ranks / k) nodes."""
    if args.launcher == "mpirun":
        return ["-np", str(ranks)]
    opts = ["-n", str(ranks)]
    if args.ranks_per_node:
        nodes = -(-ranks // args.ranks_per_node)
        opts += ["-N", str(nodes), f"--ntasks-per-node={min(ranks, args.ranks_per_node)}"]
    return opts


def collect_meta(args, started):
    mpirun_version = external.first_line([args.mpirun, "--version"])
    return {
        "date_utc": started.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "hostname": socket.gethostname(),
        "nproc": external.first_line(["nproc"]),
        "cpu_model": cpu_model(),
        "kernel": " ".join(platform.uname()[i] for i in (0, 2, 4)),
        "mpi_library": mpirun_version,
        "mpicc": external.first_line([args.mpicc, "--version"]),
        "clang": external.first_line([str(WASM_MPICC), "--version"]),
        "embedder": external.first_line([str(EMBEDDER), "--version"]),
        "python": platform.python_version(),
        "git_commit": external.first_line(["git", "-C", str(ROOT), "rev-parse", "HEAD"]),
        "git_dirty": bool(subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no"],
                                         capture_output=True, text=True).stdout.strip()),
        "command": shlex.join([sys.executable, *sys.argv]),
        "flags": {
            "native_cc": args.mpicc, "native_cflags": ["-std=c99", *CFLAGS],
            "wasm_cc": str(WASM_MPICC.relative_to(ROOT)), "wasm_cflags": ["-std=c99", *WASM_CFLAGS],
            "wasm_nosimd_cflags": ["-std=c99", *WASM_CFLAGS, *NOSIMD_FLAGS],
            "mpirun": [args.mpirun, *launcher_opts(args), *shlex.split(args.mpirun_args)],
            "launcher": args.launcher, "ranks_per_node": args.ranks_per_node,
            "embedder_main": ["--backend", "llvm", "--timings", "(warm cache)"],
            "native_contained_env": CONTAINED_TRANSPORTS if args.native_contained else None,
        },
        "parameters": {
            "ranks": args.ranks, "reps": args.reps, "quick": args.quick, "phases": args.phases,
            "programs": args.programs,
            "imb_args": args.imb_args, "imb_args_per_rank_count": {
                str(r): shlex.join(imb_args_for(r, args.ranks, args.imb_args)) for r in args.ranks},
            "hpcg_args": args.hpcg_args, "backends": args.backends, "backend_reps": args.backend_reps,
            "startup_ranks": args.startup_ranks, "startup_reps": args.startup_reps,
            "startup_args": STARTUP_ARGS, "timeout_s": args.timeout,
            "external": args.external, "external_ranks": EXTERNAL_RANKS, "external_reps": args.external_reps,
            "hpcc_n": args.hpcc_n, "hpcc_nb": args.hpcc_nb,
            "hpcc_grid": "x".join(map(str, external.process_grid(EXTERNAL_RANKS))),
            "netpipe_args": args.netpipe_args,
            "bridge_calls": args.bridge_calls, "kernels": args.kernels or "all",
            "model_ranks": args.model_ranks, "model_args": args.model_args,
        },
    }


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="\n\n".join(__doc__.split("\n\n")[1:]))
    ap.add_argument("--ranks", type=int_list, default=[1, 2], help="rank counts (default 1,2)")
    ap.add_argument("--reps", type=int, default=3, help="repetitions per rank count (default 3)")
    ap.add_argument("--quick", action="store_true", help="tiny sizes: a smoke test in seconds")
    ap.add_argument("--out", type=Path, default=ROOT / "results", help="parent directory (default results/)")
    ap.add_argument("--imb-args", help=f"IMB options (default {IMB_ARGS!r}; --quick {IMB_ARGS_QUICK!r})")
    ap.add_argument("--hpcg-args", help=f"HPCG options (default {HPCG_ARGS!r}; --quick {HPCG_ARGS_QUICK!r})")
    ap.add_argument("--backends", default=",".join(BACKENDS), help="backends to compare (default all)")
    ap.add_argument("--backend-reps", type=int, help="repetitions of the backend runs (default --reps; --quick 1)")
    ap.add_argument("--startup-ranks", type=int_list, default=[1, 2, 4],
                    help="rank counts of the start-up runs (default 1,2,4)")
    ap.add_argument("--startup-reps", type=int, help="repetitions of the start-up runs (default --reps; --quick 1)")
    ap.add_argument("--mpicc", default=shutil.which("mpicc.openmpi") or "mpicc")
    ap.add_argument("--launcher", choices=["mpirun", "srun"], default="mpirun",
                    help="start ranks with mpirun -np N (default) or, inside a Slurm allocation, srun -n N")
    ap.add_argument("--mpirun", help="the launcher's path (default mpirun.openmpi or mpirun; srun for --launcher srun)")
    ap.add_argument("--mpirun-args", default="",
                    help="extra launcher options, e.g. '--bind-to none' (Open MPI binds each rank to a core "
                         "when np <= 2, which also confines the embedder's compiler threads) or, for srun, "
                         "'--mpi=pmix'")
    ap.add_argument("--ranks-per-node", type=int,
                    help="srun: at most this many ranks per node (-N ceil(ranks/K) --ntasks-per-node=K)")
    ap.add_argument("--phases", default=",".join(PHASES),
                    help=f"phases to run (default all: {','.join(PHASES)}); --external off/only trims them")
    ap.add_argument("--native-contained", choices=["auto", "on", "off"], default="auto",
                    help="also run IMB natively with the embedder's Open MPI transport settings "
                         "(default auto: when the launcher is Open MPI's mpirun)")
    ap.add_argument("--programs", default="imb,hpcg", help="programs of the main phase (default imb,hpcg)")
    ap.add_argument("--cache-dir", type=Path,
                    help="the warm compiled-module cache, filled once per node before the runs (default: a "
                         "temporary directory; under srun give a node-local path such as /tmp/bench-$SLURM_JOB_ID)")
    ap.add_argument("--timeout", type=float, default=1800, help="seconds per run before it is killed")
    ap.add_argument("--external", choices=["on", "off", "only"], default="on",
                    help="HPCC and NetPIPE (benchmarks/external): with the rest (on, default), not at all, or only")
    ap.add_argument("--external-reps", type=int,
                    help="repetitions of the external runs (default --reps; --quick 1): one HPCC run per kind "
                         "is not a measurement on a shared machine (a DGEMM ratio moved from 0.81 to 1.48 "
                         "between five back-to-back pairs)")
    ap.add_argument("--hpcc-n", type=int, help=f"HPCC's HPL N (default {HPCC_N}; --quick {HPCC_N_QUICK})")
    ap.add_argument("--hpcc-nb", type=int, help=f"HPCC's HPL NB (default {HPCC_NB}; --quick {HPCC_NB_QUICK})")
    ap.add_argument("--netpipe-args", help=f"NetPIPE options (default {NETPIPE_ARGS!r}; "
                                           f"--quick {NETPIPE_ARGS_QUICK!r}); -o np.out is added")
    ap.add_argument("--bridge-calls", help="overhead.c's MPI_Comm_rank, MPI_Allreduce, MPI_Testany and exchange loop lengths "
                                           f"(default {BRIDGE_CALLS!r}; --quick {BRIDGE_CALLS_QUICK!r})")
    ap.add_argument("--kernels", help=f"kernels.c's kernels, space-separated (default all; --quick {KERNELS_QUICK!r})")
    ap.add_argument("--model-ranks", type=int_list, default=MODEL_RANKS,
                    help=f"rank counts of the counted HPCG-style runs (default {','.join(map(str, MODEL_RANKS))})")
    ap.add_argument("--model-args", default=MODEL_ARGS,
                    help=f"HPCG options of the counted runs (default {MODEL_ARGS!r})")
    args = ap.parse_args(argv)
    if args.mpirun is None:
        args.mpirun = "srun" if args.launcher == "srun" else (shutil.which("mpirun.openmpi") or "mpirun")
    args.phases = [x.strip() for x in args.phases.split(",") if x.strip()]
    if set(args.phases) - set(PHASES):
        ap.error(f"unknown phase(s) {sorted(set(args.phases) - set(PHASES))}; known: {','.join(PHASES)}")
    if args.external == "off":
        args.phases = [x for x in args.phases if x != "external"]
    elif args.external == "only":
        args.phases = ["external"]
    args.programs = [x.strip() for x in args.programs.split(",") if x.strip()]
    if args.native_contained == "auto":
        version = external.first_line([args.mpirun, "--version"]) if args.launcher == "mpirun" else ""
        args.native_contained = any(name in (version or "") for name in ("Open MPI", "OpenRTE"))  # 5.x, 4.x
    else:
        args.native_contained = args.native_contained == "on"
    if not args.programs or set(args.programs) - {"imb", "hpcg"}:
        ap.error("--programs takes imb, hpcg or both")
    if args.ranks_per_node is not None and args.ranks_per_node < 1:
        ap.error("--ranks-per-node must be >= 1")
    if args.reps < 1:
        ap.error("--reps must be >= 1")
    args.imb_args = args.imb_args if args.imb_args is not None else (IMB_ARGS_QUICK if args.quick else IMB_ARGS)
    args.hpcg_args = args.hpcg_args if args.hpcg_args is not None else (HPCG_ARGS_QUICK if args.quick else HPCG_ARGS)
    args.backends = [b.strip() for b in args.backends.split(",") if b.strip()]
    unknown = set(args.backends) - set(BACKENDS)
    if unknown:
        ap.error(f"unknown backend(s) {sorted(unknown)}")
    if args.backend_reps is None:
        args.backend_reps = 1 if args.quick else args.reps
    if args.startup_reps is None:
        args.startup_reps = 1 if args.quick else args.reps
    if args.external_reps is None:
        args.external_reps = 1 if args.quick else args.reps
    if args.external_reps < 1:
        ap.error("--external-reps must be >= 1")
    if args.hpcc_n is None:
        args.hpcc_n = HPCC_N_QUICK if args.quick else HPCC_N
    if args.hpcc_nb is None:
        args.hpcc_nb = HPCC_NB_QUICK if args.quick else HPCC_NB
    if args.netpipe_args is None:
        args.netpipe_args = NETPIPE_ARGS_QUICK if args.quick else NETPIPE_ARGS
    if args.bridge_calls is None:
        args.bridge_calls = BRIDGE_CALLS_QUICK if args.quick else BRIDGE_CALLS
    if args.kernels is None:
        args.kernels = KERNELS_QUICK if args.quick else KERNELS
    return args


def main(argv=None):
    args = parse_args(argv)
    for tool in (args.mpicc, args.mpirun, EMBEDDER, WASM_MPICC):
        if not shutil.which(str(tool)):
            sys.exit(f"run.py: {tool} not found")
    started = datetime.datetime.now(datetime.timezone.utc)
    out = args.out / started.strftime("%Y%m%dT%H%M%SZ")
    while out.exists():  # two runs in the same second
        out = out.with_name(out.name + "-1")
    out.mkdir(parents=True)
    t0 = time.perf_counter()
    meta = collect_meta(args, started)
    print(f"run.py: results in {out}", flush=True)
    print("build", flush=True)
    bins = build(out, args, meta)
    if args.phases == ["external"] and not (bins.get("hpcc") or bins.get("netpipe")):
        sys.exit(f"run.py: --external only, but the external build {meta['external'].get('status')}")
    run = Runner(out, args)
    tmp = Path(tempfile.mkdtemp(prefix="bench-caches-"))
    phases = args.phases
    try:
        warm = args.cache_dir or tmp / "warm"
        modules = list(dict.fromkeys(m for phase, m in PHASE_MODULES if phase in phases and bins.get(m)))
        for module in modules:  # the main runs measure execution, not compilation
            run.run(run.on_each_node(EMBEDDER, "--backend", "llvm", "--cache-dir", warm, "compile", bins[module]),
                    "prepare", module.split(".")[0], "compile", backend="llvm", module=bins[module].name)
        if "main" in phases:
            print(f"main: {args.programs} at ranks {args.ranks}, {args.reps} reps, native and wasm interleaved",
                  flush=True)
            main_phase(run, bins, args, warm)
        if "external" in phases and (bins.get("hpcc") or bins.get("netpipe")):
            print(f"external: HPCC (N={args.hpcc_n}, NB={args.hpcc_nb}) and NetPIPE ({args.netpipe_args}), "
                  f"{EXTERNAL_RANKS} ranks, {args.external_reps} reps, native and wasm interleaved", flush=True)
            external_phase(run, bins, args, tmp, warm)
        if "backends" in phases:
            print(f"backends: {args.backends}, {args.backend_reps} reps, single-rank HPCG on a cold cache",
                  flush=True)
            backends_phase(run, bins, args, tmp)
        if "startup" in phases:
            print(f"startup: ranks {args.startup_ranks}, {args.startup_reps} reps", flush=True)
            startup_phase(run, bins, args, tmp, warm)
        if "bridge" in phases:
            print(f"bridge: ranks {args.ranks}, {args.reps} reps, loops {args.bridge_calls}", flush=True)
            bridge_phase(run, bins, args, warm)
        if "kernels" in phases:
            print(f"kernels: {args.kernels or 'all'}, 1 process, {args.reps} rounds", flush=True)
            kernels_phase(run, bins, args, warm)
        if "model" in phases:
            print(f"model: MPI calls counted at ranks {args.model_ranks} ({args.model_args})", flush=True)
            model_phase(run, bins, args)
    finally:
        run.write_runs()
        shutil.rmtree(tmp, ignore_errors=True)
    _, problems = tables_from_raw(out)
    meta["duration_s"] = round(time.perf_counter() - t0, 1)
    meta["failures"] = meta.get("failures", []) + run.failures + problems
    (out / "meta.json").write_text(json.dumps(meta, indent=2) + "\n")
    print(f"run.py: {len(run.rows)} runs in {meta['duration_s']:.0f} s; results in {out}")
    print(f"run.py: plots and report: python3 plots/plot.py {out}")
    if meta["failures"]:
        print("run.py: FAILED:\n  " + "\n  ".join(meta["failures"]), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
