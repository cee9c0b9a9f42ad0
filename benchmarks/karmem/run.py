#!/usr/bin/env python3
"""Karmem shared regions: fan-out time and node memory (MPI_Bcast into
per-rank copies vs one READ_ONLY region), and SoA vs AoS loops natively
and in wasm.

    python3 benchmarks/karmem/run.py [--quick] [--out DIR] [--ranks 1,2,4]
                                     [--sizes 1,4,16,64,256] [--particles 16384,1048576]
                                     [--opts=-O2,-O3] [--rounds 3]

Fan-out (fanout.c, wasm only: regions are an embedder feature): for every
rank count, size D (MiB) and mode, one job on this node; the program prints
its median time per step and `ready`, then holds its buffers while this
driver sums the Pss of every embedder process under mpirun
(/proc/PID/smaps_rollup): the node's memory, each shared page counted once.
Steps are adaptive (budget / (D x ranks) steps, --budget MiB, at
least --min-steps), so the default run takes a few minutes on 2 cores and
--quick (1 and 2 ranks, 1 and 16 MiB) well under a minute.

SoA vs AoS (soa_aos.c): the same loops over SoA columns and AoS records,
native (gcc) and wasm (wasm-mpicc) at each of --opts, interleaved over
--rounds rounds, medians.

Prints Markdown tables and writes fanout.csv, soa_aos.csv and summary.md to
--out (default results/karmem/<UTC timestamp>/). Exit status 1 if a run
failed, the two fan-out modes' checksums differ, or a SoA/AoS checksum
differs between layouts or builds.
"""
import argparse
import csv
import datetime
import os
import queue
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
EMBEDDER = ROOT / "target" / "release" / "embedder"
WASM_MPICC = ROOT / "toolchain" / "bin" / "wasm-mpicc"
MPIRUN = shutil.which("mpirun.openmpi") or "mpirun"
MPIRUN_FLAGS = ["--allow-run-as-root", "--oversubscribe"]
CC = shutil.which("gcc") or "cc"
MIB = 1 << 20

# Node memory, summed over the job's processes. Pss counts each shared page
# once over all its mappers; node_data_pss_mib leaves out file pages (the
# embedder's and libraries' code, shared with any other process running
# them, so it varies with what else runs): it is the memory the job itself
# allocated, private (Pss_Anon) or shared (Pss_Shmem: regions, MPI's
# shared-memory transport).
NODE_MEMORY = {"node_pss_mib": "Pss", "node_data_pss_mib": "Data", "node_file_pss_mib": "Pss_File",
               "node_rss_mib": "Rss"}
FANOUT_FIELDS = ["ranks", "mib", "bytes", "mode", "steps", "median_us", "min_us", "max_us", *NODE_MEMORY,
                 "rank_pss_mib", "checksum", "wall_s"]
SOA_FIELDS = ["round", "build", "opt", "particles", "kernel", "layout", "ns_per_particle", "reps", "checksum"]


def int_list(text):
    try:
        values = [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        values = []
    if not values or min(values) < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: a comma-separated list of positive integers")
    return values


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="1,2 ranks; 1,16 MiB; one short SoA/AoS round")
    p.add_argument("--ranks", type=int_list, help="fan-out rank counts (default 1,2,4; --quick 1,2)")
    p.add_argument("--sizes", type=int_list, help="fan-out sizes in MiB (default 1,4,16,64,256; --quick 1,16)")
    p.add_argument("--budget", type=int, help="MiB read per rank count and size, sets the steps (default 8192; --quick 512)")
    p.add_argument("--min-steps", type=int, help="fewest steps of a fan-out run (default 7; --quick 5)")
    p.add_argument("--particles", type=int_list, help="SoA/AoS particle counts (default 16384,1048576)")
    p.add_argument("--opts", default="-O2,-O3", help="SoA/AoS optimisation levels, both builds (default -O2,-O3)")
    p.add_argument("--rounds", type=int, help="SoA/AoS rounds, native and wasm interleaved (default 3; --quick 1)")
    p.add_argument("--seconds", type=float, help="SoA/AoS time per measurement (default 0.2; --quick 0.03)")
    p.add_argument("--skip", choices=["fanout", "soa"], action="append", default=[], help="skip a part")
    p.add_argument("--timeout", type=float, default=300, help="seconds per run (default 300)")
    p.add_argument("--out", type=Path, help="output directory (default results/karmem/<UTC timestamp>)")
    a = p.parse_args(argv)
    q = a.quick
    a.ranks = a.ranks or ([1, 2] if q else [1, 2, 4])
    a.sizes = a.sizes or ([1, 16] if q else [1, 4, 16, 64, 256])
    a.budget = a.budget or (512 if q else 8192)
    a.min_steps = a.min_steps if a.min_steps is not None else (5 if q else 7)
    a.particles = a.particles or [16384, 1048576]
    a.rounds = a.rounds or (1 if q else 3)
    a.seconds = a.seconds or (0.03 if q else 0.2)
    a.opts = [o for o in a.opts.split(",") if o]
    if a.min_steps < 1 or a.rounds < 1 or a.seconds <= 0:
        p.error("--min-steps and --rounds must be at least 1, --seconds positive")
    if a.out is None:
        stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
        a.out = ROOT / "results" / "karmem" / stamp
    return a


def check_run(cmd, **kw):
    r = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, **kw)
    if r.returncode != 0:
        sys.exit(f"{' '.join(map(str, cmd))} failed ({r.returncode}):\n{r.stdout[-2000:]}{r.stderr[-4000:]}")
    return r


def build(work, a):
    """fanout.wasm, soa_aos natively and to wasm at every --opts level; the
    modules compiled into a cache of our own before any timed run."""
    out = {"fanout": work / "fanout.wasm", "soa": {}}
    std = ["-std=c11", "-Wall", "-Wextra"]
    if "fanout" not in a.skip:
        check_run([WASM_MPICC, *std, "-O2", "-o", out["fanout"], HERE / "fanout.c"])
    if "soa" not in a.skip:
        for opt in a.opts:
            tag = opt.lstrip("-")
            native, wasm = work / f"soa_aos.{tag}", work / f"soa_aos.{tag}.wasm"
            check_run([CC, *std, opt, "-o", native, HERE / "soa_aos.c"])
            check_run([WASM_MPICC, *std, opt, "-o", wasm, HERE / "soa_aos.c"])
            out["soa"][opt] = (native, wasm)
    embedder = [EMBEDDER, "--cache-dir", work / "cache"]
    for wasm in [out["fanout"]] * ("fanout" not in a.skip) + [w for _, w in out["soa"].values()]:
        check_run([*embedder, "compile", wasm])
    return out, embedder


# -- fan-out -------------------------------------------------------------------

def children_map():
    kids = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                stat = Path(f"/proc/{d}/stat").read_text()
            except OSError:
                continue
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            kids.setdefault(ppid, []).append(int(d))
    return kids


def embedder_pids(root):
    """The embedder processes among root's descendants (mpirun starts them
    directly on one node; a daemon in between would be walked through)."""
    kids, found, todo = children_map(), [], [root]
    while todo:
        pid = todo.pop()
        for c in kids.get(pid, []):
            todo.append(c)
            try:
                if Path(f"/proc/{c}/comm").read_text().strip() == "embedder":
                    found.append(c)
            except OSError:
                pass
    return sorted(found)


def rollup(pid):
    """A process's Pss, Rss, Pss_Anon, Pss_Shmem and Pss_File in MiB, from
    /proc/PID/smaps_rollup, and Data = Pss_Anon + Pss_Shmem."""
    values = {}
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
        key, _, rest = line.partition(":")
        if key in ("Pss", "Rss", "Pss_Anon", "Pss_Shmem", "Pss_File"):
            values[key] = int(rest.split()[0]) / 1024
    values["Data"] = values["Pss_Anon"] + values["Pss_Shmem"]
    return values


def steps_for(a, ranks, mib):
    return max(a.min_steps, min(200, round(a.budget / (mib * ranks))))


def run_fanout(a, built, embedder, work, ranks, mib, mode, log):
    hold = work / "hold"
    hold.mkdir(exist_ok=True)
    go = hold / "go"
    go.unlink(missing_ok=True)
    steps = steps_for(a, ranks, mib)
    cmd = [MPIRUN, *MPIRUN_FLAGS, "-np", ranks, *embedder, "--mapdir", f"/hold:{hold}", built["fanout"],
           mode, mib * MIB, steps, "/hold/go"]
    cmd = [str(c) for c in cmd]
    name = f"fanout.np{ranks}.{mib}MiB.{mode}"
    err = open(log / f"{name}.stderr", "w")
    t0 = time.monotonic()
    # a session of its own, so a hung job is killed as a whole (its group)
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=err, text=True, start_new_session=True)
    lines = queue.Queue()
    reader = threading.Thread(target=lambda: [lines.put(x) for x in p.stdout] + [lines.put(None)], daemon=True)
    reader.start()
    out, per_rank, failure = [], [], None
    try:
        while True:
            line = lines.get(timeout=max(1.0, a.timeout - (time.monotonic() - t0)))
            if line is None:
                failure = "exited before `ready`"
                break
            out.append(line)
            if line.strip() == "ready":
                pids = embedder_pids(p.pid)
                if len(pids) != ranks:
                    failure = f"found {len(pids)} embedder processes under mpirun, expected {ranks}"
                else:
                    per_rank = [rollup(pid) for pid in pids]
                go.touch()
                break
        p.wait(timeout=max(1.0, a.timeout - (time.monotonic() - t0)))
        reader.join(timeout=10)
    except (queue.Empty, subprocess.TimeoutExpired):
        failure = f"timed out after {a.timeout:.0f} s"
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
    except BaseException:  # interrupted: no job left holding its buffers
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
        raise
    finally:
        err.close()
    while not lines.empty():
        x = lines.get()
        if x is not None:
            out.append(x)
    wall = time.monotonic() - t0
    text = "".join(out)
    (log / f"{name}.stdout").write_text(" ".join(cmd) + "\n" + text)
    result = next((ln for ln in text.splitlines() if ln.startswith("result ")), None)
    if failure is None and p.returncode != 0:
        failure = f"exit status {p.returncode}"
    if failure is None and result is None:
        failure = "no result line"
    if failure:
        tail = (log / f"{name}.stderr").read_text()[-2000:]
        print(f"  {name}: FAILED ({failure})\n{tail}", file=sys.stderr)
        return None
    kv = dict(f.split("=", 1) for f in result.split()[1:])
    row = {"ranks": ranks, "mib": mib, "bytes": int(kv["bytes"]), "mode": mode, "steps": int(kv["steps"]),
           "median_us": float(kv["median_us"]), "min_us": float(kv["min_us"]), "max_us": float(kv["max_us"]),
           **{f: round(sum(x[k] for x in per_rank), 1) for f, k in NODE_MEMORY.items()},
           "rank_pss_mib": " ".join(f"{x['Pss']:.1f}" for x in per_rank), "checksum": kv["checksum"],
           "wall_s": round(wall, 2)}
    print(f"  {name}: {row['median_us']:.0f} us/step, node PSS {row['node_pss_mib']:.1f} MiB, "
          f"anon+shmem {row['node_data_pss_mib']:.1f} MiB ({steps} steps, {wall:.1f} s)",
          file=sys.stderr)
    return row


def fanout_table(rows):
    lines = ["| ranks | D (MiB) | mode | µs/step (median) | µs/step (min) | node PSS (MiB) "
             "| of which anon+shmem (MiB) |", "|---:|---:|---|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r['ranks']} | {r['mib']} | {r['mode']} | {r['median_us']:.0f} | {r['min_us']:.0f} "
                     f"| {r['node_pss_mib']:.1f} | {r['node_data_pss_mib']:.1f} |")
    return "\n".join(lines)


# -- SoA vs AoS ----------------------------------------------------------------

def parse_soa(text):
    rows = []
    for line in text.splitlines():
        if line.startswith("kernel="):
            kv = dict(f.split("=", 1) for f in line.split())
            rows.append({"particles": int(kv["particles"]), "kernel": kv["kernel"], "layout": kv["layout"],
                         "ns_per_particle": float(kv["ns_per_particle"]), "reps": int(kv["reps"]),
                         "checksum": kv["checksum"]})
    return rows


def run_soa(a, built, embedder, log):
    rows = []
    for rnd in range(a.rounds):
        for opt, (native, wasm) in built["soa"].items():
            for kind, prog in (("native", [native]), ("wasm", [*embedder, wasm])):
                for n in a.particles:
                    cmd = [str(c) for c in [*prog, n, a.seconds]]
                    r = subprocess.run(cmd, capture_output=True, text=True, timeout=a.timeout)
                    (log / f"soa_aos.{kind}{opt}.n{n}.round{rnd}.stdout").write_text(" ".join(cmd) + "\n" + r.stdout)
                    got = parse_soa(r.stdout)
                    if r.returncode != 0 or len(got) != 4:
                        print(f"  soa_aos {kind} {opt} {n}: FAILED ({r.returncode})\n{r.stderr[-2000:]}", file=sys.stderr)
                        return None
                    rows += [{"round": rnd, "build": kind, "opt": opt, **g} for g in got]
    return rows


def soa_table(rows):
    def med(**k):
        return statistics.median(r["ns_per_particle"] for r in rows if all(r[f] == v for f, v in k.items()))

    lines = ["| particles | kernel | opt | native SoA | native AoS | AoS/SoA | wasm SoA | wasm AoS | AoS/SoA "
             "| wasm/native SoA | wasm/native AoS |", "|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    keys = list(dict.fromkeys((r["particles"], r["kernel"], r["opt"]) for r in rows))
    for n, kernel, opt in keys:
        ns = {(b, l): med(particles=n, kernel=kernel, opt=opt, build=b, layout=l)
              for b in ("native", "wasm") for l in ("soa", "aos")}
        lines.append(f"| {n} | {kernel} | {opt} | {ns['native', 'soa']:.3f} | {ns['native', 'aos']:.3f} "
                     f"| {ns['native', 'aos'] / ns['native', 'soa']:.2f} | {ns['wasm', 'soa']:.3f} "
                     f"| {ns['wasm', 'aos']:.3f} | {ns['wasm', 'aos'] / ns['wasm', 'soa']:.2f} "
                     f"| {ns['wasm', 'soa'] / ns['native', 'soa']:.2f} | {ns['wasm', 'aos'] / ns['native', 'aos']:.2f} |")
    return "\n".join(lines)


def write_csv(path, fields, rows):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        w.writerows(rows)


def main(argv=None):
    a = parse_args(argv)
    # SIGTERM as an exception, so a running job is killed on the way out
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    a.out.mkdir(parents=True, exist_ok=True)
    log = a.out / "raw"
    log.mkdir(exist_ok=True)
    failed = []
    summary = [f"# Karmem benchmarks\n\n`{' '.join([Path(sys.argv[0]).name, *(argv or sys.argv[1:])])}`, "
               f"{os.cpu_count()} CPUs, {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC\n"]
    with tempfile.TemporaryDirectory(prefix="karmem-bench-") as tmp:
        work = Path(tmp)
        built, embedder = build(work, a)
        if "fanout" not in a.skip:
            rows = []
            for ranks in a.ranks:
                for mib in a.sizes:
                    for mode in ("bcast", "region"):
                        row = run_fanout(a, built, embedder, work, ranks, mib, mode, log)
                        if row is None:
                            failed.append(f"fanout {ranks} ranks {mib} MiB {mode}")
                        else:
                            rows.append(row)
            write_csv(a.out / "fanout.csv", FANOUT_FIELDS, rows)
            for ranks in a.ranks:
                for mib in a.sizes:
                    sums = {r["checksum"] for r in rows if r["ranks"] == ranks and r["mib"] == mib}
                    if len(sums) > 1:
                        failed.append(f"fanout {ranks} ranks {mib} MiB: the modes' checksums differ {sums}")
            table = fanout_table(rows)
            print("\nFan-out: one writer per node, every rank reads all D bytes each step\n")
            print(table)
            summary += ["## Fan-out\n", table, ""]
        if "soa" not in a.skip:
            rows = run_soa(a, built, embedder, log)
            if rows is None:
                failed.append("soa_aos")
            else:
                write_csv(a.out / "soa_aos.csv", SOA_FIELDS, rows)
                for n in a.particles:
                    for kernel in ("drift", "kinetic"):
                        sums = {r["checksum"] for r in rows if r["particles"] == n and r["kernel"] == kernel}
                        if len(sums) > 1:
                            failed.append(f"soa_aos {kernel} {n}: checksums differ {sums}")
                table = soa_table(rows)
                print(f"\nSoA vs AoS: ns per particle (medians of {a.rounds} round(s)), ratios\n")
                print(table)
                summary += ["## SoA vs AoS (ns per particle)\n", table, ""]
    (a.out / "summary.md").write_text("\n".join(summary) + "\n")
    print(f"\nwritten: {a.out}")
    if failed:
        print("FAILED: " + "; ".join(failed), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
