#!/usr/bin/env python3
"""ROMIO's MPI-IO tests (MPICH 4.0.2, src/mpi/romio/test/), natively and
under the embedder, side by side.

    python3 benchmarks/external/romio.py [--np 4] [--only a,b] [--quick] [--out DIR]
                                         [--mpi openmpi|mpich] [--timeout S]

Sources: MPICH 4.0.2's upstream tarball, the .orig.tar.xz of Debian
bookworm's source package mpich 4.0.2-3, fetched and SHA-256-checked by
fetch.py from the Debian archive this machine's apt uses. Only
src/mpi/romio/test/ is unpacked (into benchmarks/external/build/romio/src/).

Build (every test twice, -O2, sources not edited):
  native: the host's mpicc (mpicc.openmpi, or mpicc.mpich with --mpi mpich)
  wasm:   toolchain/bin/wasm-mpicc (one module per test, for either MPI)
Both builds force-include compat/romio_compat.h, which defines two legacy
names where the mpi.h in use lacks them: MPIO_Request/MPIO_Wait/MPIO_Test
(as MPICH's mpio.h does) and MPI-1's MPI_LB/MPI_UB struct markers (emulated
with MPI_Type_create_resized). The two generated tests, misc.c and
large_file.c, are made from misc.c.in and large_file.c.in by replacing
their only configure variable, @LL@ (printf length of MPI_Offset), with
`lld`, as ROMIO's configure does on LP64 and wasm32 (MPI_Offset is 64-bit).

Run: each test in a fresh temporary directory DIR, with the rank count and
arguments ROMIO's runtests uses (`-fname FILE` for most; a few take the file
name alone or `-f`). Native: `mpirun -np N ./test -fname DIR/testfile`,
started in DIR. Wasm: `mpirun -np N embedder --mapdir /work:DIR test.wasm
-fname /work/testfile`, started in DIR too (external32, which opens a
relative name, gets `--mapdir /:DIR`). A test passes as runtests judges
it: exit status 0 and " No Errors" in its output. The five programs that
print no verdict (perf, coll_perf, large_array, large_file, external32) pass
on exit 0 plus the line each prints on success (see TESTS).

Results: OUT/results.md (table, counts, the first stderr line of every wasm
failure, leaving out mpirun's banners and lines the native run printed too), OUT/results.csv, OUT/meta.json, OUT/logs/<test>.<native|wasm>.txt.
Default OUT: results/romio/<timestamp>/. Exit status 0 when every test that
passes natively passes under the embedder too, else 1 (2: setup failed).
"""
import argparse
import csv
import datetime
import fcntl
import hashlib
import json
import re
import shlex
import shutil
import subprocess
import sys
import tarfile
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))
from fetch import BUILD, DOWNLOADS, SOURCES, FetchError, fetch  # noqa: E402
from procs import first_line, run_logged  # noqa: E402

WASM_MPICC = ROOT / "toolchain" / "bin" / "wasm-mpicc"
EMBEDDER = ROOT / "target" / "release" / "embedder"
COMPAT_H = HERE / "compat" / "romio_compat.h"
ROMIO_BUILD = BUILD / "romio"
TEST_DIR = f"{SOURCES['mpich']['topdir']}/src/mpi/romio/test"
CFLAGS = ["-O2"]
# configure variables of the .in sources: @LL@ is the printf length of
# MPI_Offset (ROMIO's configure: "lld" where long long is 64-bit)
SUBST = {"LL": "lld"}

# name -> (ranks, arguments ({file} = the test file), extra pass check).
# Ranks and arguments are runtests.in's; the tests runtests does not run
# (perf, coll_perf, large_array, large_file, big_extents, creat_excl,
# external32) get what their own usage/README asks for. `expect`: a regex
# that must match the output besides exit 0, for the programs that print no
# " No Errors"; its count is the number of matches needed ("ranks" = one per
# rank).
NO_ERRORS = " No Errors"  # runtests' verdict: the output contains it
TESTS = {
    "simple": (4, ["-fname", "{file}"], None),
    "async": (4, ["-fname", "{file}"], None),
    "async-multiple": (4, ["-fname", "{file}"], None),
    "atomicity": (4, ["-fname", "{file}"], None),
    "coll_test": (4, ["-fname", "{file}"], None),
    "excl": (4, ["-fname", "{file}"], None),
    "file_info": (4, ["-fname", "{file}"], None),
    "i_noncontig": (2, ["-fname", "{file}"], None),
    "noncontig": (2, ["-fname", "{file}"], None),
    "noncontig_coll": (2, ["-fname", "{file}"], None),
    "noncontig_coll2": (4, ["-fname", "{file}"], None),
    "aggregation1": (4, ["-h", "-f", "{file}"], None),
    "aggregation2": (4, ["{file}"], None),
    "hindexed": (4, ["{file}"], None),
    "misc": (4, ["-fname", "{file}"], None),
    "shared_fp": (4, ["-fname", "{file}"], None),
    "ordered_fp": (4, ["-fname", "{file}"], None),
    "split_coll": (4, ["-fname", "{file}"], None),
    "psimple": (4, ["-fname", "{file}"], None),
    "error": (1, ["-fname", "{file}"], None),
    "status": (1, ["-fname", "{file}"], None),
    "types_with_zeros": (2, ["{file}"], None),
    "darray_read": (4, ["{file}"], None),
    # runtests: `syshints $srcdir/test_hintfile`; the test opens the hint file
    # itself (read-only) and sets ROMIO_HINTS to it before MPI_Init
    "syshints": (1, ["{hintfile}"], None),
    # not in runtests (in Makefile.am's CTESTS, or shipped alongside)
    "creat_excl": (4, ["-fname", "{file}"], None),
    "perf": (4, ["-fname", "{file}"], (r"Read bandwidth after file sync", 1)),
    "coll_perf": (4, ["-fname", "{file}"], (r"Collective read time", 1)),  # 14 GiB file (2176x1152x1408 ints)
    "external32": (4, [], (r"(?m)^(native|external32|internal) datarep is", 3)),  # fixed name test.datarep
    "big_extents": (4, ["{file}"], None),  # sparse file, offsets up to 6 GiB
    "large_array": (4, ["-fname", "{file}"], (r"data read back is correct", "ranks")),  # 4 GiB file
    "large_file": (1, ["-fname", "{file}"], (r"Data read back is correct", 1)),  # 4 GiB file
}
# external32 opens the fixed relative name "test.datarep": its wasm run gets
# DIR as the guest's root (--mapdir /:DIR, as HPCC's runs), where wasi-libc
# and the embedder resolve relative names; natively it starts in DIR.
GUEST_ROOT = {"external32"}
LARGE = {"coll_perf", "large_array", "large_file"}  # GiBs of data: 5x the timeout, skipped by --skip-large
# --quick: a fixed subset that takes a few seconds each natively and covers
# open/close, independent and collective, contiguous and noncontiguous,
# blocking and nonblocking access, file views, info and error reporting
QUICK = ["simple", "async", "coll_test", "noncontig", "noncontig_coll", "split_coll", "misc", "status"]


class SetupError(Exception):
    pass


def mpi_tools(mpi):
    names = {"openmpi": ("mpicc.openmpi", "mpirun.openmpi"), "mpich": ("mpicc.mpich", "mpirun.mpich")}[mpi]
    tools = [shutil.which(n) for n in names]
    if not all(tools):
        raise SetupError(f"{' and '.join(names)} needed for --mpi {mpi}")
    opts = ["--allow-run-as-root", "--oversubscribe"] if mpi == "openmpi" else []
    return tools[0], tools[1], opts


# ---------------------------------------------------------------------------
# sources


def unpack_tests(tarball, log):
    """src/mpi/romio/test/ of the MPICH tarball into ROMIO_BUILD/src (once per
    tarball hash), with misc.c and large_file.c generated from their .in."""
    src = ROMIO_BUILD / "src"
    stamp = ROMIO_BUILD / "src.stamp"
    want = json.dumps({"sha256": SOURCES["mpich"]["sha256"], "subst": SUBST})
    if src.is_dir() and stamp.exists() and stamp.read_text() == want:
        return src
    log(f"romio: unpacking {TEST_DIR}/ from {tarball.name}")
    if src.exists():
        shutil.rmtree(src)
    src.mkdir(parents=True)
    prefix = TEST_DIR + "/"
    with tarfile.open(tarball) as t:
        for m in t:
            if not m.name.startswith(prefix) or not m.isfile():
                continue
            rel = m.name[len(prefix):]
            if "/" in rel or rel.startswith("."):  # the directory is flat; skip .codingcheck
                continue
            (src / rel).write_bytes(t.extractfile(m).read())
    for name in ("misc", "large_file"):
        text = (src / f"{name}.c.in").read_text()
        for key, value in SUBST.items():
            text = text.replace(f"@{key}@", value)
        left = re.findall(r"@[A-Za-z_]+@", text)
        if left:
            raise SetupError(f"{name}.c.in: unsubstituted {left}")
        (src / f"{name}.c").write_text(text)
    stamp.write_text(want)
    return src


# ---------------------------------------------------------------------------
# build


def _compile(cc, src, out, log_path):
    cmd = [str(cc), *CFLAGS, "-include", str(COMPAT_H), "-o", str(out), str(src)]
    p = subprocess.run(["nice", *cmd], capture_output=True, text=True)
    with open(log_path, "a") as log:
        log.write(f"$ {shlex.join(cmd)}\n{p.stdout}{p.stderr}")
    return p.returncode, (p.stdout + p.stderr)


def build(src, names, flavour, cc, jobs, log):
    """{name: path or None (compile failed), ...}, "errors": {name: first error}}."""
    fdir = ROMIO_BUILD / flavour
    (fdir / "bin").mkdir(parents=True, exist_ok=True)
    suffix = ".wasm" if flavour == "wasm" else ""
    log_path = fdir / "build.log"
    key_base = json.dumps({"cc": str(cc), "cc_version": first_line([str(cc), "--version"]),
                           "cc_show": first_line([str(cc), "-show"]), "cflags": CFLAGS,
                           "compat": hashlib.sha256(COMPAT_H.read_bytes()).hexdigest()})
    stamps_path = fdir / "stamps.json"
    stamps = json.loads(stamps_path.read_text()) if stamps_path.exists() else {}
    out, errors, todo = {}, {}, []
    for name in names:
        exe = fdir / "bin" / (name + suffix)
        key = hashlib.sha256(key_base.encode() + (src / f"{name}.c").read_bytes()).hexdigest()
        if exe.exists() and stamps.get(name) == key:
            out[name] = exe
        else:
            todo.append((name, exe, key))
    if todo:
        log(f"romio: building {len(todo)} test(s) with {Path(cc).name} ({flavour}), log {log_path.relative_to(ROOT)}")

    def one(item):
        name, exe, key = item
        if exe.exists():
            exe.unlink()
        rc, text = _compile(cc, src / f"{name}.c", exe, log_path)
        return name, exe, key, rc, text

    with ThreadPoolExecutor(max_workers=jobs) as ex:
        for name, exe, key, rc, text in ex.map(one, todo):
            if rc == 0:
                out[name] = exe
                stamps[name] = key
            else:
                out[name] = None
                err = [x for x in text.splitlines() if "error" in x] or text.splitlines() or [f"exit {rc}"]
                errors[name] = err[0].strip()
                stamps.pop(name, None)
    stamps_path.write_text(json.dumps(stamps, indent=1) + "\n")
    return out, errors


# ---------------------------------------------------------------------------
# run


def judge(name, ranks, rc, out, err):
    """(passed, reason) as runtests judges: exit 0 and " No Errors"."""
    if rc is None:
        return False, "timeout"
    text = out + err
    expect = TESTS[name][2]
    if rc != 0:
        return False, f"exit {rc}"
    if expect is None:
        return (True, "") if NO_ERRORS in text else (False, 'exit 0 without " No Errors"')
    pattern, count = expect
    count = ranks if count == "ranks" else count
    found = len(re.findall(pattern, text))
    return (True, "") if found >= count else (False, f"exit 0, {found} of {count} lines /{pattern}/")


def first_stderr_line(err, out, also_native=""):
    """The first line of a failed run's stderr (else stdout), leaving out
    mpirun's own notices: Open MPI's help banners (between lines of dashes),
    its `[host:pid] ...` aggregation notes and blank lines, and lines the
    native run printed too (`also_native`: its output, e.g. a test's
    warning banner). If nothing else is left, the first banner line."""
    seen = {x.strip() for x in also_native.splitlines()}
    for text in (err, out):
        banner, first_banner = False, ""
        for line in text.splitlines():
            s = line.strip()
            if re.fullmatch(r"-{10,}", s):
                banner = not banner
                continue
            if not s or re.fullmatch(r"[-=*]+", s) or s in seen:
                continue
            if banner:
                first_banner = first_banner or s
                continue
            if re.match(r"\[[\w.-]+:\d+\] ", s) and ("help message" in s or "MCA parameter" in s):
                continue
            return s
        if first_banner:
            return first_banner
    return ""


def test_ranks(name, np_max):
    return min(TESTS[name][0], np_max)


def run_test(name, ranks, exe, kind, mpirun, logs, tmp_base, timeout, embedder, cache):
    """One run of `name` in a fresh directory; a result dict."""
    work = Path(tempfile.mkdtemp(prefix=f"{name}-{kind}-", dir=tmp_base))
    hintfile = work / "test_hintfile"
    shutil.copy2(ROMIO_BUILD / "src" / "test_hintfile", hintfile)
    if kind == "native":
        subst = {"{file}": str(work / "testfile"), "{hintfile}": str(hintfile)}
        prog = [exe]
    else:
        subst = {"{file}": "/work/testfile", "{hintfile}": "/work/test_hintfile"}
        guest_dir = "/" if name in GUEST_ROOT else "/work"
        prog = [embedder, "--cache-dir", cache, "--mapdir", f"{guest_dir}:{work}", exe]
    args = [subst.get(a, a) for a in TESTS[name][1]]
    cmd = [*mpirun, "-np", str(ranks), *prog, *args]
    rc, secs, out, err = run_logged(cmd, work, timeout, logs / f"{name}.{kind}.txt")
    passed, why = judge(name, ranks, rc, out, err)
    shutil.rmtree(work, ignore_errors=True)
    return {"pass": passed, "rc": rc, "seconds": round(secs, 2), "why": why,
            "first_stderr": "" if passed else first_stderr_line(err, out), "cmd": shlex.join(map(str, cmd)),
            "_out": out, "_err": err}


def provided_file_functions(embedder):
    p = subprocess.run([str(embedder), "inspect", "--provided"], capture_output=True, text=True)
    return sum(1 for line in p.stdout.splitlines() if line.startswith("MPI_File_"))


# ---------------------------------------------------------------------------
# report


def mark(r):
    if r is None:
        return "—"
    return "pass" if r["pass"] else "FAIL"


def log_row(log, name, ranks, n, wa):
    """One progress line: both verdicts and times, the wasm failure's reason."""
    log(f"{name:18s} np={ranks}  native {mark(n):4s} {'' if n is None else n['seconds']:>7}  "
        f"wasm {mark(wa):4s} {'' if wa is None else wa['seconds']:>7}"
        + ("" if wa is None or wa["pass"] else f"  {wa['why']}: {wa['first_stderr'][:150]}"))


def verdict(rows, noun, where, no_native=False, no_wasm=False):
    """(the summary line, the tests that pass natively and fail under the
    embedder) of result rows {"test", "native", "wasm"}."""
    both = [r for r in rows if r["native"] is not None and r["wasm"] is not None]
    n_native = sum(1 for r in rows if r["native"] and r["native"]["pass"])
    n_wasm = sum(1 for r in both if r["native"]["pass"] and r["wasm"]["pass"])
    wasm_only_fail = [r["test"] for r in both if r["native"]["pass"] and not r["wasm"]["pass"]]
    summary = f"{len(rows)} {noun}, {n_native} pass natively, {n_wasm} of those pass under the embedder ({where})"
    if no_wasm:
        summary = f"{len(rows)} {noun}, {n_native} pass natively ({where})"
    if no_native:
        n_w = sum(1 for r in rows if r["wasm"]["pass"])
        summary = f"{len(rows)} {noun}, {n_w} pass under the embedder ({where})"
    return summary, wasm_only_fail


def failure_lines(rows):
    """results.md's lists of the wasm and the native failures."""
    md = []
    fails = [r for r in rows if r["wasm"] is not None and not r["wasm"]["pass"]]
    if fails:
        md += ["Wasm failures (reason; first line of stderr):", ""]
        for r in fails:
            wa = r["wasm"]
            native = "" if r["native"] is None or r["native"]["pass"] else " (fails natively too)"
            md.append(f"- `{r['test']}`{native}: {wa['why']}; `{wa['first_stderr']}`")
    nfails = [r for r in rows if r["native"] is not None and not r["native"]["pass"]]
    if nfails:
        md += ["", "Native failures:", ""]
        for r in nfails:
            md.append(f"- `{r['test']}`: {r['native']['why']}; `{r['native']['first_stderr']}`")
    return md


def write_results(out_dir, rows, meta):
    with open(out_dir / "results.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["test", "ranks", "native_pass", "native_exit", "native_s", "wasm_pass", "wasm_exit",
                    "wasm_s", "wasm_reason", "wasm_first_stderr", "native_reason", "native_first_stderr"])
        for r in rows:
            n, wa = r["native"], r["wasm"]
            w.writerow([r["test"], r["ranks"],
                        "" if n is None else int(n["pass"]), "" if n is None else n["rc"],
                        "" if n is None else n["seconds"],
                        "" if wa is None else int(wa["pass"]), "" if wa is None else wa["rc"],
                        "" if wa is None else wa["seconds"], "" if wa is None else wa["why"],
                        "" if wa is None else wa["first_stderr"],
                        "" if n is None else n["why"], "" if n is None else n["first_stderr"]])
    (out_dir / "meta.json").write_text(json.dumps(meta, indent=1) + "\n")
    md = [f"# ROMIO tests (MPICH 4.0.2), {meta['mpi']}: native vs embedder", "",
          f"- native: `{meta['native_cc']}` {' '.join(CFLAGS)}, `{shlex.join(meta['mpirun'])}`",
          f"- wasm: `toolchain/bin/wasm-mpicc` {' '.join(CFLAGS)}, embedder "
          f"({meta['embedder_file_functions']} MPI_File_* functions provided)",
          f"- {meta['started']}, timeout {meta['timeout_s']} s per run ({meta['timeout_large_s']} s for "
          f"{', '.join(sorted(LARGE))})", "",
          "| test | ranks | native | wasm | native s | wasm s |", "|---|---|---|---|---|---|"]
    for r in rows:
        n, wa = r["native"], r["wasm"]
        md.append(f"| {r['test']} | {r['ranks']} | {mark(n)} | {mark(wa)} | "
                  f"{'' if n is None else n['seconds']} | {'' if wa is None else wa['seconds']} |")
    md += ["", meta["summary"], ""] + failure_lines(rows)
    (out_dir / "results.md").write_text("\n".join(md) + "\n")
    return "\n".join(md)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="\n\n".join(__doc__.split("\n\n")[1:]))
    ap.add_argument("--np", type=int, default=4,
                    help="most ranks per test (default 4: runtests' counts, 1, 2 or 4, unchanged)")
    ap.add_argument("--only", help="comma-separated test names (default: all %d)" % len(TESTS))
    ap.add_argument("--quick", action="store_true", help=f"the fixed CI subset: {','.join(QUICK)}")
    ap.add_argument("--out", type=Path, help="results directory (default results/romio/<timestamp>/)")
    ap.add_argument("--mpi", choices=("openmpi", "mpich"), default="openmpi",
                    help="host MPI: mpicc/mpirun .openmpi (default) or .mpich")
    ap.add_argument("--timeout", type=float, default=180,
                    help=f"seconds per run (default 180; x5 for {', '.join(sorted(LARGE))})")
    ap.add_argument("--jobs", type=int, default=2, help="parallel compiles (default 2)")
    ap.add_argument("--embedder", type=Path, default=EMBEDDER, help=f"default {EMBEDDER.relative_to(ROOT)}")
    ap.add_argument("--skip-large", action="store_true", help=f"leave out {', '.join(sorted(LARGE))} (GiBs of I/O)")
    ap.add_argument("--no-wasm", action="store_true", help="native runs only")
    ap.add_argument("--no-native", action="store_true", help="wasm runs only")
    args = ap.parse_args(argv)

    names = list(TESTS)
    if args.quick:
        names = list(QUICK)
    if args.only:
        names = [n.strip() for n in args.only.split(",") if n.strip()]
        unknown = [n for n in names if n not in TESTS]
        if unknown:
            ap.error(f"unknown test(s) {', '.join(unknown)}; known: {', '.join(TESTS)}")
    if args.skip_large:
        names = [n for n in names if n not in LARGE]
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    out_dir = (args.out or ROOT / "results" / "romio" / stamp).resolve()
    logs = out_dir / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    log = print

    try:
        cc, mpirun, mpirun_opts = mpi_tools(args.mpi)
        if not args.no_wasm and not args.embedder.exists():
            raise SetupError(f"{args.embedder} not built")
        tarball = fetch("mpich", DOWNLOADS, log=log)
        ROMIO_BUILD.mkdir(parents=True, exist_ok=True)
        with open(ROMIO_BUILD / ".lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            src = unpack_tests(tarball, log)
            native, native_cerr = ({}, {}) if args.no_native else \
                build(src, names, f"native-{Path(cc).name}", cc, args.jobs, log)
            wasm, wasm_cerr = ({}, {}) if args.no_wasm else build(src, names, "wasm", WASM_MPICC, args.jobs, log)
    except (FetchError, SetupError) as e:
        print(f"romio: error: {e}", file=sys.stderr)
        return 2

    tmp_base = Path(tempfile.mkdtemp(prefix="romio-runs-"))
    embedder = cache = None
    nfile = None
    if not args.no_wasm:
        # a private copy of the embedder: a rebuild of target/release during
        # the runs does not change the binary under test halfway
        embedder = tmp_base / "embedder"
        shutil.copy2(args.embedder, embedder)
        cache = tmp_base / "cache"
        cache.mkdir(mode=0o700)
        nfile = provided_file_functions(embedder)
        mods = [str(p) for p in wasm.values() if p]
        if mods:
            log(f"romio: compiling {len(mods)} module(s) for the embedder (LLVM, cached for the runs)")
            p = subprocess.run(["nice", str(embedder), "--cache-dir", str(cache), "compile", *mods],
                               capture_output=True, text=True)
            if p.returncode != 0:
                log(f"romio: warning: embedder compile exited {p.returncode}: {first_stderr_line(p.stderr, p.stdout)}")
    launcher = [mpirun, *mpirun_opts]
    meta = {"started": stamp, "mpi": args.mpi, "native_cc": cc, "native_cc_version": first_line([cc, "--version"]),
            "mpirun": launcher, "mpirun_version": first_line([mpirun, "--version"]),
            "embedder": str(args.embedder), "embedder_version": first_line([str(args.embedder), "--version"]),
            "embedder_mtime": datetime.datetime.fromtimestamp(args.embedder.stat().st_mtime).isoformat()
            if args.embedder.exists() else None,
            "embedder_file_functions": nfile, "tests": names, "np": args.np,
            "timeout_s": args.timeout, "timeout_large_s": args.timeout * 5, "cflags": CFLAGS,
            "compat_header": str(COMPAT_H.relative_to(ROOT)), "subst": SUBST,
            "source": {k: SOURCES["mpich"][k] for k in ("debian_source", "pool", "sha256", "size")}}

    rows = []
    try:
        for name in names:
            ranks = test_ranks(name, args.np)
            timeout = args.timeout * (5 if name in LARGE else 1)
            row = {"test": name, "ranks": ranks, "native": None, "wasm": None}
            for kind, exes, cerr in (("native", native, native_cerr), ("wasm", wasm, wasm_cerr)):
                if (kind == "native" and args.no_native) or (kind == "wasm" and args.no_wasm):
                    continue
                if exes.get(name) is None:
                    row[kind] = {"pass": False, "rc": None, "seconds": 0, "why": "does not compile",
                                 "first_stderr": cerr.get(name, ""), "cmd": ""}
                    continue
                row[kind] = run_test(name, ranks, exes[name], kind, launcher, logs, tmp_base, timeout,
                                     embedder, cache)
            n, wa = row["native"], row["wasm"]
            if wa is not None and not wa["pass"] and n is not None and "_out" in wa and "_out" in n:
                wa["first_stderr"] = first_stderr_line(wa["_err"], wa["_out"], n["_out"] + n["_err"])
            for r in (n, wa):
                if r is not None:
                    r.pop("_out", None), r.pop("_err", None)
            log_row(log, name, ranks, n, wa)
            rows.append(row)
    finally:
        shutil.rmtree(tmp_base, ignore_errors=True)

    summary, wasm_only_fail = verdict(rows, "tests", args.mpi, args.no_native, args.no_wasm)
    meta["summary"] = summary
    meta["wasm_only_failures"] = wasm_only_fail
    text = write_results(out_dir, rows, meta)
    print()
    print(text)
    print(f"results: {out_dir}")
    return 1 if wasm_only_fail else 0


if __name__ == "__main__":
    sys.exit(main())
