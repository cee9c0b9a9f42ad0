#!/usr/bin/env python3
"""Real MPI applications, built unmodified with their own build systems,
natively and through the toolchain, and their own tests run both ways.

    python3 benchmarks/realcodes/realcodes.py [--apps fftw,hypre,p4est] [--ranks 1,2,4]
                                              [--mpi openmpi|mpich] [--out DIR] [--quick]

Sources: the Debian source packages' upstream tarballs (fetch.py: the archive
this machine's apt uses, SHA-256 pinned). Builds: cached under
$XDG_CACHE_HOME/mpi-wasm-embedder-realcodes/<source>/<flavour>/<key>/, the
key hashing the tarball, the application module, common.py and the
toolchain (every file of toolchain/ and mpi-header/, compiler versions).
Runs: every test at each rank count natively (`mpirun -np N prog`) and as
wasm (`mpirun -np N embedder --mapdir /:DIR prog.wasm`), interleaved, each
in a fresh directory. A test passes when it exits 0, its own check passes
and (wasm) its summary equals the native run's.

Results: OUT/results.md (per application: build system, build changes,
build seconds, tests passed native/wasm, wasm/native time ratio), OUT/results.csv,
OUT/logs/. Default OUT: results/realcodes/<timestamp>/. Exit status 0 when
every run passes both ways with equal summaries, 1 otherwise, 2 when a
build or the setup failed.
"""
import argparse
import csv
import datetime
import importlib
import json
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import common  # noqa: E402
from build import BuildError  # noqa: E402
from fetch import FetchError  # noqa: E402

APPS = ["fftw", "hypre", "p4est"]
# CI builds and tests the smallest (fewest files to compile twice)
QUICK_APPS = ["fftw"]


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--apps", default=None, help=f"comma-separated, of {','.join(APPS)} (default: all; "
                    f"--quick: {','.join(QUICK_APPS)})")
    ap.add_argument("--ranks", default="1,2,4", help="rank counts (default 1,2,4)")
    ap.add_argument("--mpi", choices=sorted(common.MPIS), default="openmpi", help="host MPI (default openmpi)")
    ap.add_argument("--out", type=Path, help="results directory (default results/realcodes/<timestamp>)")
    ap.add_argument("--quick", action="store_true", help="CI: only the smallest application")
    ap.add_argument("--no-run", action="store_true", help="build only")
    args = ap.parse_args(argv)
    apps = (args.apps.split(",") if args.apps else QUICK_APPS if args.quick else APPS)
    unknown = [a for a in apps if a not in APPS]
    if unknown:
        ap.error(f"unknown application {', '.join(unknown)} (known: {', '.join(APPS)})")
    try:
        args.ranks = [int(r) for r in args.ranks.split(",")]
    except ValueError:
        ap.error(f"--ranks wants comma-separated integers, not {args.ranks!r}")
    if not args.ranks or min(args.ranks) < 1:
        ap.error("--ranks: at least one rank count, each >= 1")
    args.apps = apps
    return args


def ratio(rows):
    """Median over runs of wasm seconds / native seconds (runs that passed both ways)."""
    r = [x["wasm"]["seconds"] / x["native"]["seconds"] for x in rows
         if x["native"]["pass"] and x["wasm"]["pass"] and x["native"]["seconds"] > 0]
    return statistics.median(r) if r else None


def report(out, apps, builds, rows, args):
    md = ["# Real codes: native vs wasm", "",
          f"Host MPI {args.mpi}; ranks {','.join(map(str, args.ranks))}; "
          f"{datetime.datetime.now().isoformat(timespec='seconds')}", "",
          "| application | build system | build changes | build s native / wasm | tests passed native | "
          "passed wasm (same result) | wasm/native time (median) |",
          "|---|---|---|---|---|---|---|"]
    for name, app in apps.items():
        mine = [r for r in rows if r["app"] == name]
        n_ok = sum(r["native"]["pass"] for r in mine)
        w_ok = sum(r["native"]["pass"] and r["wasm"]["pass"] for r in mine)
        rt = ratio(mine)
        b = builds[name]
        md.append(f"| {app.SOURCE} ({app.LANG}) | {app.BUILD_SYSTEM} | {app.CHANGES} | "
                  f"{b['native']} / {b['wasm']} | {n_ok}/{len(mine)} | {w_ok}/{len(mine)} | "
                  f"{'—' if rt is None else f'{rt:.2f}'} |")
    md += ["", "| application | test | ranks | native | wasm | native s | wasm s | summary |",
           "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        n, w = r["native"], r["wasm"]
        md.append(f"| {r['app']} | {r['test']} | {r['ranks']} | {'pass' if n['pass'] else 'FAIL ' + n['why']} | "
                  f"{'pass' if w['pass'] else 'FAIL ' + w['why']} | {n['seconds']} | {w['seconds']} | "
                  f"{w['summary'] or n['summary']} |")
    (out / "results.md").write_text("\n".join(md) + "\n")
    with open(out / "results.csv", "w", newline="") as f:
        wr = csv.writer(f)
        wr.writerow(["app", "test", "ranks", "native_pass", "wasm_pass", "native_s", "wasm_s",
                     "native_summary", "wasm_summary", "wasm_why"])
        for r in rows:
            n, w = r["native"], r["wasm"]
            wr.writerow([r["app"], r["test"], r["ranks"], int(n["pass"]), int(w["pass"]), n["seconds"],
                         w["seconds"], n["summary"], w["summary"], w["why"]])
    (out / "meta.json").write_text(json.dumps({"builds": builds, "mpi": args.mpi, "ranks": args.ranks}, indent=1))


def main(argv=None):
    args = parse_args(argv)
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    out = args.out or common.ROOT / "results" / "realcodes" / stamp
    (out / "logs").mkdir(parents=True, exist_ok=True)

    def log(text):
        print(text, flush=True)

    if not common.EMBEDDER.is_file():
        print(f"realcodes: {common.EMBEDDER} missing (make build)", file=sys.stderr)
        return 2
    apps = {name: importlib.import_module(name) for name in args.apps}
    builds, built = {}, {}
    try:
        for name, app in apps.items():
            builds[name] = {}
            for flavour in ("native", "wasm"):
                tc = common.Toolchain(flavour, args.mpi)
                log(f"{name}: building {tc.name} ({app.BUILD_SYSTEM})")
                dest, secs, cached = common.build_cached(app, tc, log)
                log(f"{name}: {tc.name} in {dest} ({'cached, built in ' if cached else ''}{secs} s)")
                builds[name][flavour] = secs
                built[name, flavour] = (tc, dest)
            common.warm(*built[name, "wasm"], [t.program for t in app.TESTS], out / "logs" / "warm.txt")
    except (common.SetupError, FetchError, BuildError) as e:
        print(f"realcodes: {e}", file=sys.stderr)
        return 2
    if args.no_run:
        return 0

    rows = []
    for name, app in apps.items():
        for test in app.TESTS:
            for ranks in args.ranks:
                if ranks not in test.ranks:
                    continue
                row = {"app": name, "test": test.name, "ranks": ranks}
                for flavour in ("native", "wasm"):
                    tc, dest = built[name, flavour]
                    tag = f"{name}.{test.name}.np{ranks}.{flavour}"
                    row[flavour] = common.run_test(tc, dest, test, ranks, out / "work" / tag,
                                                   out / "logs" / f"{tag}.txt")
                n, w = row["native"], row["wasm"]
                if n["pass"] and w["pass"] and not test.same(n["summary"], w["summary"]):
                    w["pass"], w["why"] = False, f"result differs from native: {w['summary']} vs {n['summary']}"
                rows.append(row)
                log(f"{name:6s} {test.name:24s} np={ranks}  native {'pass' if n['pass'] else 'FAIL'} "
                    f"{n['seconds']:7.2f}s  wasm {'pass' if w['pass'] else 'FAIL'} {w['seconds']:7.2f}s"
                    f"{'' if w['pass'] and n['pass'] else '  ' + (w['why'] or n['why'])}")
    report(out, apps, builds, rows, args)
    log(f"realcodes: {out / 'results.md'}")
    bad = [r for r in rows if not (r["native"]["pass"] and r["wasm"]["pass"])]
    if not rows:
        print("realcodes: no test ran (rank counts?)", file=sys.stderr)
        return 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
