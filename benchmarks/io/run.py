#!/usr/bin/env python3
"""I/O throughput, wasm against native in one run: benchmarks/io/io.c built
natively (mpicc) and to wasm (wasm-mpicc), both -O2, run interleaved.

    python3 benchmarks/io/run.py [--ranks 1,2,4] [--reps 3] [--quick] [--out DIR]
                                 [--mpi openmpi|mpich] [--tmp DIR]

(a) POSIX: one rank, write() then read() of one file in SIZE-byte calls,
    SIZE = 1 B, 16 B, 256 B, 4 KiB, 64 KiB, 1 MiB, 16 MiB; calls per size =
    min(volume / SIZE, max calls) (default 512 MiB and 200,000: every size
    moves 512 MiB except 1 B-4 KiB, which make 200,000 calls). Natively
    these are glibc's syscalls; in wasm, wasi-libc's fd_write/fd_read,
    implemented by the embedder. The file lives in a fresh temporary
    directory, which the wasm run sees as /io (--mapdir /io:DIR).
(b) MPI-IO: 1, 2 and 4 ranks on one shared file, block sizes 64 KiB and
    4 MiB, each rank its own blocks (call i of rank r at block i*ranks+r):
    independent (MPI_File_write_at / read_at) and collective
    (MPI_File_write_at_all / read_at_all); 256 MiB per rank (at most
    100,000 calls). Aggregate MB/s = bytes of all ranks / slowest rank's time.

Each repetition runs every configuration natively and as wasm, one right
after the other (native first in even repetitions, wasm first in odd ones),
each in its own fresh directory. Reported: medians over the repetitions of
MB/s (10^6 bytes per second) and calls/s, and wasm/native (of MB/s: 1.0 =
the same speed, 0.5 = wasm takes twice as long). Every byte read is checked
against what was written (io.c); a failed run is listed and excluded.
The files are written to and read from the page cache: this measures the
cost of the call path (WASI, the MPI bridge) more than the disk.

Output (default results/io/<timestamp>/): io_runs.csv (one row per
measurement), io_summary.csv and io_summary.md (medians and ratios),
meta.json, logs/. --quick: 1 repetition, ranks 1,2, 16 MiB volumes and at
most 20,000 calls per size (a CI smoke run of a few seconds per config).
"""
import argparse
import csv
import datetime
import json
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE.parent))
from procs import first_line, run_logged  # noqa: E402

SRC = HERE / "io.c"
WASM_MPICC = ROOT / "toolchain" / "bin" / "wasm-mpicc"
EMBEDDER = ROOT / "target" / "release" / "embedder"
CFLAGS = ["-O2"]
SIZES = ["1", "16", "256", "4K", "64K", "1M", "16M"]
BLOCKS = ["64K", "4M"]
FULL = {"posix_volume": "512M", "posix_max_calls": "200000", "mpiio_volume": "256M", "mpiio_max_calls": "100000"}
QUICK = {"posix_volume": "16M", "posix_max_calls": "20000", "mpiio_volume": "16M", "mpiio_max_calls": "20000"}
RESULT = re.compile(r"^RESULT (.*)$", re.M)
RUN_FIELDS = ["rep", "kind", "part", "op", "mode", "ranks", "size", "calls", "os_calls", "bytes", "seconds",
              "MB_s", "calls_s"]
SUMMARY_FIELDS = ["part", "op", "mode", "ranks", "size", "native_MB_s", "wasm_MB_s", "native_calls_s",
                  "wasm_calls_s", "wasm_over_native", "native_runs", "wasm_runs", "wasm_os_calls_per_call"]


def human(size):
    size = int(size)
    for unit, shift in (("MiB", 20), ("KiB", 10)):
        if size >= 1 << shift and size % (1 << shift) == 0:
            return f"{size >> shift} {unit}"
    return f"{size} B"


def first_error(err, out):
    for text in (err, out):
        for line in text.splitlines():
            s = line.strip()
            if s and not re.fullmatch(r"-+", s):
                return s
    return ""


def parse(out):
    rows = []
    for m in RESULT.finditer(out):
        f = dict(kv.split("=", 1) for kv in m.group(1).split())
        secs = float(f["seconds"])
        rows.append({"part": f["part"], "op": f["op"], "mode": f["mode"], "ranks": int(f["ranks"]),
                     "size": int(f["size"]), "calls": int(f["calls"]), "os_calls": int(f["os_calls"]),
                     "bytes": int(f["bytes"]), "seconds": secs,
                     "MB_s": int(f["bytes"]) / secs / 1e6 if secs > 0 else float("nan"),
                     "calls_s": int(f["calls"]) / secs if secs > 0 else float("nan")})
    return rows


def summarise(rows):
    groups = {}
    for r in rows:
        key = (r["part"], r["op"], r["mode"], r["ranks"], r["size"])
        groups.setdefault(key, {"native": [], "wasm": []})[r["kind"]].append(r)
    out = []
    order = {"posix": 0, "mpiio": 1}
    for key in sorted(groups, key=lambda k: (order[k[0]], k[2] != "indep", k[3], k[4], k[1] != "write")):
        g = groups[key]
        row = dict(zip(["part", "op", "mode", "ranks", "size"], key))
        for kind in ("native", "wasm"):
            rs = g[kind]
            row[f"{kind}_MB_s"] = statistics.median(r["MB_s"] for r in rs) if rs else None
            row[f"{kind}_calls_s"] = statistics.median(r["calls_s"] for r in rs) if rs else None
            row[f"{kind}_runs"] = len(rs)
        n, w = row["native_MB_s"], row["wasm_MB_s"]
        row["wasm_over_native"] = w / n if n and w else None
        ws = g["wasm"]
        row["wasm_os_calls_per_call"] = (statistics.median(r["os_calls"] / r["calls"] for r in ws) if ws else None)
        out.append(row)
    return out


def fmt(x, digits=1):
    if x is None:
        return "—"
    if x >= 100:
        return f"{x:,.0f}"
    return f"{x:.{digits}f}"


def table(summary):
    lines = ["| part | op | mode | ranks | size | native MB/s | wasm MB/s | native calls/s | wasm calls/s | wasm/native |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for s in summary:
        note = ""
        if s["wasm_os_calls_per_call"] and s["wasm_os_calls_per_call"] > 1:
            note = f" ({s['wasm_os_calls_per_call']:.0f} calls each)"
        lines.append(f"| {s['part']} | {s['op']} | {s['mode']} | {s['ranks']} | {human(s['size'])} | "
                     f"{fmt(s['native_MB_s'])} | {fmt(s['wasm_MB_s'])} | {fmt(s['native_calls_s'])} | "
                     f"{fmt(s['wasm_calls_s'])}{note} | {fmt(s['wasm_over_native'], 2)} |")
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="\n\n".join(__doc__.split("\n\n")[1:]))
    ap.add_argument("--ranks", default=None, help="MPI-IO rank counts (default 1,2,4; --quick 1,2)")
    ap.add_argument("--reps", type=int, default=None, help="repetitions (default 3; --quick 1)")
    ap.add_argument("--quick", action="store_true", help="small volumes, 1 repetition (CI)")
    ap.add_argument("--out", type=Path, help="results directory (default results/io/<timestamp>/)")
    ap.add_argument("--mpi", choices=("openmpi", "mpich"), default="openmpi", help="host MPI (default openmpi)")
    ap.add_argument("--tmp", type=Path, default=None, help="where the test files go (default: the system temp dir)")
    ap.add_argument("--parts", default="posix,mpiio", help="posix, mpiio or both (default)")
    ap.add_argument("--timeout", type=float, default=600, help="seconds per run (default 600)")
    ap.add_argument("--embedder", type=Path, default=EMBEDDER, help=f"default {EMBEDDER.relative_to(ROOT)}")
    args = ap.parse_args(argv)
    params = QUICK if args.quick else FULL
    ranks = [int(x) for x in (args.ranks or ("1,2" if args.quick else "1,2,4")).split(",")]
    reps = args.reps or (1 if args.quick else 3)
    parts = [p for p in args.parts.split(",") if p]
    if any(p not in ("posix", "mpiio") for p in parts):
        ap.error("--parts: posix and/or mpiio")

    cc, mpirun = f"mpicc.{args.mpi}", f"mpirun.{args.mpi}"
    for tool in (cc, mpirun):
        if not shutil.which(tool):
            print(f"io: error: {tool} not found", file=sys.stderr)
            return 2
    if not args.embedder.exists():
        print(f"io: error: {args.embedder} not built", file=sys.stderr)
        return 2
    launcher = [shutil.which(mpirun)] + (["--allow-run-as-root", "--oversubscribe"] if args.mpi == "openmpi" else [])
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    out_dir = (args.out or ROOT / "results" / "io" / stamp).resolve()
    (out_dir / "logs").mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="io-bench-", dir=args.tmp))
    failures = []
    rows = []
    try:
        native, wasm = work / "io", work / "io.wasm"
        for cmd in ([cc, *CFLAGS, "-o", native, SRC], [WASM_MPICC, *CFLAGS, "-o", wasm, SRC]):
            p = subprocess.run([str(c) for c in cmd], capture_output=True, text=True)
            if p.returncode != 0:
                print(f"io: error: {shlex.join(map(str, cmd))}:\n{p.stderr}", file=sys.stderr)
                return 2
        # a private copy of the embedder (a rebuild of target/release during
        # the runs does not change the binary under test) and its own cache
        embedder, cache = work / "embedder", work / "cache"
        shutil.copy2(args.embedder, embedder)
        cache.mkdir(mode=0o700)
        subprocess.run([str(embedder), "--cache-dir", str(cache), "compile", str(wasm)], check=True,
                       capture_output=True)

        configs = []
        if "posix" in parts:
            configs.append(("posix", 1, ["posix", "{dir}", params["posix_volume"], params["posix_max_calls"], *SIZES]))
        if "mpiio" in parts:
            for n in ranks:
                configs.append(("mpiio", n, ["mpiio", "{dir}", params["mpiio_volume"], params["mpiio_max_calls"],
                                             *BLOCKS]))
        for rep in range(reps):
            kinds = ("native", "wasm") if rep % 2 == 0 else ("wasm", "native")
            for part, n, pargs in configs:
                for kind in kinds:
                    d = Path(tempfile.mkdtemp(prefix=f"{part}-{n}-{kind}-", dir=work))
                    if kind == "native":
                        cmd = [*launcher, "-np", str(n), native, *[str(d) if a == "{dir}" else a for a in pargs]]
                    else:
                        cmd = [*launcher, "-np", str(n), embedder, "--cache-dir", cache, "--mapdir", f"/io:{d}",
                               wasm, *["/io" if a == "{dir}" else a for a in pargs]]
                    rc, _, out, err = run_logged(cmd, d, args.timeout, out_dir / "logs" / f"{part}-np{n}-{kind}.txt")
                    got = parse(out)
                    for r in got:
                        r.update(rep=rep, kind=kind)
                    rows.extend(got)
                    label = f"rep {rep} {part} np={n} {kind}"
                    if rc != 0:
                        failures.append({"run": label, "exit": rc, "message": first_error(err, out)})
                        print(f"{label}: FAILED (exit {rc}): {first_error(err, out)}", flush=True)
                    else:
                        print(f"{label}: {len(got)} measurements", flush=True)
                    shutil.rmtree(d, ignore_errors=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)

    with open(out_dir / "io_runs.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=RUN_FIELDS)
        w.writeheader()
        for r in rows:
            w.writerow({k: r[k] for k in RUN_FIELDS})
    summary = summarise(rows)
    with open(out_dir / "io_summary.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=SUMMARY_FIELDS)
        w.writeheader()
        for s in summary:
            w.writerow({k: s[k] for k in SUMMARY_FIELDS})
    meta = {"started": stamp, "mpi": args.mpi, "mpirun": launcher, "mpirun_version": first_line([mpirun, "--version"]),
            "cc": cc, "cc_version": first_line([cc, "--version"]), "cflags": CFLAGS,
            "embedder": str(args.embedder), "embedder_mtime": datetime.datetime.fromtimestamp(
                args.embedder.stat().st_mtime).isoformat(),
            "params": params, "sizes": SIZES, "blocks": BLOCKS, "ranks": ranks, "reps": reps, "parts": parts,
            "quick": args.quick, "tmp": str(args.tmp or tempfile.gettempdir()), "failures": failures}
    (out_dir / "meta.json").write_text(json.dumps(meta, indent=1) + "\n")
    text = (f"# I/O throughput, {args.mpi}: native vs wasm (median of {reps}, MB = 10^6 bytes)\n\n"
            f"POSIX volume {params['posix_volume']} (at most {params['posix_max_calls']} calls) per size; "
            f"MPI-IO {params['mpiio_volume']} per rank (at most {params['mpiio_max_calls']} calls).\n\n"
            + table(summary) + "\n")
    if failures:
        text += "\nFailed runs (excluded):\n\n" + "\n".join(
            f"- {f['run']}: exit {f['exit']}: `{f['message']}`" for f in failures) + "\n"
    (out_dir / "io_summary.md").write_text(text)
    print()
    print(text)
    print(f"results: {out_dir}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
