#!/usr/bin/env python3
"""Parallel HDF5 1.10.8's testpar programs, natively and under the embedder,
side by side.

    python3 benchmarks/external/hdf5.py [--np 4] [--only a,b] [--with-bigio] [--out DIR]
                                        [--mpi openmpi|mpich] [--timeout S] [--jobs 2]

Sources: Debian bookworm's hdf5_1.10.8+repack1.orig.tar.gz (the upstream
release, repacked by Debian), fetched and SHA-256-checked by fetch.py from
the Debian archive this machine's apt uses. Debian's own patches are not
applied.

Build (twice, each in its own unpacked tree under
benchmarks/external/build/hdf5/<flavour>/, with the same configure options:
--enable-parallel, static, no Fortran/C++/HL, no zlib/szip):
  native: the host's mpicc (mpicc.openmpi, or mpicc.mpich with --mpi mpich),
          sources not edited
  wasm:   toolchain/bin/wasm-mpicc, with the files of compat/hdf5/ (see
          HDF5.md): newer config.sub/config.guess from the host, two patches
          (configure's PAC_FC_LDBL_DIG cross answer; a function-pointer
          signature fix in H5Dchunk.c), CONFIG_SITE answers, shim headers
          and a force-included compat header. The build-time programs
          H5detect and H5make_libsettings are wasm and run on the embedder
          (make RUNSERIAL=...); H5detect is compiled with raise() a no-op
          (compat/hdf5/h5detect_noraise.h: its signal self-test needs a
          longjmp wasm lacks).
Only src/ (libhdf5.a), test/libh5test.la and the testpar programs are built.
A build is reused while its stamp (tarball hash, compiler, compat files,
options) matches.

Run: each program in a fresh temporary directory DIR. Native: `mpirun -np N
./prog`, in DIR (the program is copied there: t_cache_image execs ./t_cache_image). Wasm: `mpirun -np N embedder --mapdir /:DIR prog.wasm`, in
DIR (the programs use relative file names; the guest's root is DIR).
t_pflush2 reads the files t_pflush1 leaves, and t_prestart the one
t_pshutdown leaves, so t_pflush1 (t_pshutdown) runs first in the same DIR
(logged as well), as testpflush.sh (testpar's Makefile) does.
Verdict: exit 0 and the program's own success line (see TESTS); t_pflush1
exits 1 by design (it skips MPI_Finalize), so as in testpflush.sh only its
"PASSED" counts. t_cache needs >= 3 ranks: it gets max(N, 3).

Results: OUT/results.md, OUT/results.csv, OUT/meta.json,
OUT/logs/<prog>.<native|wasm>.txt; default OUT: results/hdf5/<timestamp>/.
Exit status 0 when every program that passes natively passes under the
embedder too, else 1 (2: setup or build failed).
"""
import argparse
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
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))
from fetch import BUILD, DOWNLOADS, SOURCES, FetchError, fetch  # noqa: E402
from procs import first_line, run_logged  # noqa: E402
from romio import failure_lines, first_stderr_line, log_row, mark, mpi_tools, provided_file_functions, verdict  # noqa: E402

WASM_MPICC = ROOT / "toolchain" / "bin" / "wasm-mpicc"
EMBEDDER = ROOT / "target" / "release" / "embedder"
COMPAT = HERE / "compat" / "hdf5"
HDF5_BUILD = BUILD / "hdf5"
TOPDIR = SOURCES["hdf5"]["topdir"]

CONFIGURE_OPTS = ["--enable-parallel", "--disable-fortran", "--disable-cxx", "--disable-hl",
                  "--disable-shared", "--enable-static", "--without-zlib", "--without-szlib"]
WASM_PATCHES = ["configure-ldbl-dig.patch", "H5Dchunk-free-signature.patch", "H5Dmpio-qsort-tiebreak.patch",
                "H5Dmpio-size_t-mpi-type.patch"]
WASM_CFLAGS = "-Wno-error=implicit-int"  # H5HL.c's H5HL_insert has no return type (clang 16: error)
# H5detect's signal self-test needs longjmp: compiled with raise() a no-op
H5DETECT_CFLAGS = [WASM_CFLAGS, "-include", str(COMPAT / "h5detect_noraise.h")]
WASM_ENV = {
    "CC": str(WASM_MPICC),
    "AR": "llvm-ar-16", "RANLIB": "llvm-ranlib-16",  # GNU ar cannot index wasm objects
    "CONFIG_SITE": str(COMPAT / "config.site"),
    "CPPFLAGS": f"-I{COMPAT} -include {COMPAT / 'hdf5_wasm_compat.h'} -D_WASI_EMULATED_SIGNAL",
    "CFLAGS": WASM_CFLAGS,
    "LIBS": "-lwasi-emulated-signal",
}

# name -> (minimum ranks, success regex (None: exit 0 suffices), exit status required)
TESTS = {
    "t_mpi": (1, r"MPI tests finished with no errors", True),
    "t_init_term": (1, r"PASSED", True),
    "t_pshutdown": (1, r"PASSED", True),
    "t_prestart": (1, r"PASSED", True),  # opens t_pshutdown's shutdown.h5: t_pshutdown runs first
    "t_pflush1": (1, r"PASSED", False),  # exits 1 by design (no MPI_Finalize); testpflush.sh ignores it
    "t_pflush2": (1, r"PASSED", True),   # reads t_pflush1's files: t_pflush1 runs first in its DIR
    "t_pread": (1, r"Collective file open optimization tests finished with no failures", True),
    "testphdf5": (1, r"PHDF5 tests finished with no errors", True),
    "t_shapesame": (1, r"Shape Same tests finished with no errors", True),
    "t_cache": (3, r"metadata cache tests finished with no failures", True),
    "t_filters_parallel": (1, r"All Parallel Filters tests passed", True),
    "t_bigio": (1, None, True),  # prints no verdict; > 2 GiB of I/O (--with-bigio)
    "t_cache_image": (1, r"metadata cache image tests finished with no failures", True),
}
DEFAULT_SKIP = {"t_bigio"}
# programs that read the file another one leaves (testpar/Makefile.am's
# order; testpflush.sh): the other runs first in the same DIR
PREREQ = {"t_pflush2": "t_pflush1", "t_prestart": "t_pshutdown"}


class SetupError(Exception):
    pass


# ---------------------------------------------------------------------------
# build


def _files_hash(paths):
    h = hashlib.sha256()
    for p in sorted(paths):
        h.update(str(p.relative_to(COMPAT)).encode() + b"\0" + p.read_bytes())
    return h.hexdigest()


def build(flavour, cc, jobs, tarball, embedder, log):
    """Build HDF5 (libhdf5.a, libh5test, testpar) for `flavour` ("native-<cc>"
    or "wasm"); {program: path} of the testpar programs in fdir/bin (".wasm"
    suffix for wasm). Raises SetupError with the log's name on failure."""
    wasm = flavour == "wasm"
    fdir = HDF5_BUILD / flavour
    bindir = fdir / "bin"
    suffix = ".wasm" if wasm else ""
    key = json.dumps({"sha256": SOURCES["hdf5"]["sha256"], "cc": str(cc),
                      "cc_version": first_line([str(cc), "--version"]), "cc_show": first_line([str(cc), "-show"]),
                      "configure": CONFIGURE_OPTS, "env": WASM_ENV if wasm else {},
                      "h5detect": H5DETECT_CFLAGS if wasm else [],
                      "compat": _files_hash([p for p in COMPAT.rglob("*") if p.is_file()]) if wasm else "",
                      "tests": list(TESTS)}, sort_keys=True)
    stamp = fdir / "build.stamp"
    progs = {n: bindir / (n + suffix) for n in TESTS}
    if stamp.exists() and stamp.read_text() == key and all(p.exists() for p in progs.values()):
        return progs
    log_path = fdir / "build.log"
    log(f"hdf5: building {flavour} with {Path(cc).name} (nice, -j{jobs}), log {log_path.relative_to(ROOT)}")
    if fdir.exists():
        shutil.rmtree(fdir)
    fdir.mkdir(parents=True)
    with tarfile.open(tarball) as t:
        t.extractall(fdir, filter="data") if hasattr(tarfile, "data_filter") else t.extractall(fdir)
    src = fdir / TOPDIR

    def step(cmd, cwd=src, env=None):
        # env: configure's variables, on the logged command line
        pre = ["env", *(f"{k}={v}" for k, v in env.items())] if env else []
        rc, secs, out, err = run_logged([*pre, "nice", "-n", "19", *cmd], cwd, None, log_path, append=True)
        if rc != 0:
            tail = [x for x in (out + err).splitlines() if "error" in x.lower()] or (out + err).splitlines()[-3:]
            raise SetupError(f"{flavour}: `{shlex.join(map(str, cmd))[:120]}` exited {rc}: "
                             f"{(tail[-1] if tail else '').strip()[:200]} (log {log_path})")

    if wasm:
        # config.sub/config.guess of 2014 do not know wasm32-wasi: the host's (autotools-dev)
        for f in ("config.sub", "config.guess"):
            shutil.copy2(Path("/usr/share/misc") / f, src / "bin" / f)
        for p in WASM_PATCHES:
            step(["patch", "-p1", "-i", str(COMPAT / p)])
        step(["./configure", "--host=wasm32-wasi", *CONFIGURE_OPTS], env=WASM_ENV)
        runserial = shlex.join([str(embedder), "--backend", "cranelift", "--cache-dir", str(fdir / "runserial-cache"),
                                "run", "--mapdir", f"/:{src / 'src'}"])
        step(["make", "-C", "src", "H5detect", "CFLAGS=" + " ".join(H5DETECT_CFLAGS)])
        step(["make", "-C", "src", f"-j{jobs}", f"RUNSERIAL={runserial}"])
    else:
        step(["./configure", *CONFIGURE_OPTS], env={"CC": str(cc)})
        step(["make", "-C", "src", f"-j{jobs}"])
    step(["make", "-C", "test", f"-j{jobs}", "libh5test.la"])
    step(["make", "-C", "testpar", f"-j{jobs}", *TESTS])
    bindir.mkdir()
    for n, p in progs.items():
        shutil.copy2(src / "testpar" / n, p)
    stamp.write_text(key)
    return progs


# ---------------------------------------------------------------------------
# run


def judge(name, rc, out, err):
    """(passed, reason): exit 0 (not for t_pflush1) and the success line."""
    if rc is None:
        return False, "timeout"
    _, pattern, need_exit0 = TESTS[name]
    text = out + err
    if need_exit0 and rc != 0:
        # HDF5's own report of the failed check (stdout), if any
        vrfy = re.search(r"VRFY \(.*?\) failed at line +\d+ in \S+", text)
        return False, f"exit {rc}" + (f" ({vrfy.group(0)})" if vrfy else "")
    if pattern is None or re.search(pattern, text):
        return True, ""
    if "Skipping" in text:
        line = next(x.strip() for x in text.splitlines() if "Skipping" in x)
        return False, f"skipped itself ({line})"
    return False, f"exit {rc} without /{pattern}/"


def test_ranks(name, np):
    return max(TESTS[name][0], np)


def run_test(name, ranks, exes, kind, mpirun, logs, tmp_base, timeout, embedder, cache):
    work = Path(tempfile.mkdtemp(prefix=f"{name}-{kind}-", dir=tmp_base))
    log_file = logs / f"{name}.{kind}.txt"

    def cmd_for(prog):
        if kind == "native":
            # `./prog` in DIR: t_cache_image execl()s "./t_cache_image" for its serial setup process
            shutil.copy2(exes[prog], work / prog)
            return [*mpirun, "-np", str(ranks), f"./{prog}"]
        return [*mpirun, "-np", str(ranks), embedder, "--cache-dir", cache, "--mapdir", f"/:{work}", exes[prog]]

    append = False
    if name in PREREQ:
        run_logged(cmd_for(PREREQ[name]), work, timeout, log_file)
        append = True
    cmd = cmd_for(name)
    rc, secs, out, err = run_logged(cmd, work, timeout, log_file, append=append)
    passed, why = judge(name, rc, out, err)
    shutil.rmtree(work, ignore_errors=True)
    return {"pass": passed, "rc": rc, "seconds": round(secs, 2), "why": why,
            "first_stderr": "" if passed else first_stderr_line(err, out), "cmd": shlex.join(map(str, cmd)),
            "_out": out, "_err": err}


# ---------------------------------------------------------------------------
# report


def write_results(out_dir, rows, meta):
    import csv
    with open(out_dir / "results.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["test", "ranks", "native_pass", "native_exit", "native_s", "wasm_pass", "wasm_exit",
                    "wasm_s", "wasm_reason", "wasm_first_stderr", "native_reason", "native_first_stderr"])
        for r in rows:
            n, wa = r["native"], r["wasm"]
            g = (lambda d, k: "" if d is None else (int(d[k]) if k == "pass" else d[k]))
            w.writerow([r["test"], r["ranks"], g(n, "pass"), g(n, "rc"), g(n, "seconds"),
                        g(wa, "pass"), g(wa, "rc"), g(wa, "seconds"), g(wa, "why"), g(wa, "first_stderr"),
                        g(n, "why"), g(n, "first_stderr")])
    (out_dir / "meta.json").write_text(json.dumps(meta, indent=1) + "\n")
    md = [f"# HDF5 1.10.8 testpar, {meta['mpi']}: native vs embedder", "",
          f"- native: `{meta['native_cc']}`, `{shlex.join(meta['mpirun'])}`",
          f"- wasm: `toolchain/bin/wasm-mpicc` + compat/hdf5/, embedder "
          f"({meta['embedder_file_functions']} MPI_File_* functions provided)",
          f"- {meta['started']}, --np {meta['np']}, timeout {meta['timeout_s']} s per run", "",
          "| program | ranks | native | wasm | native s | wasm s | wasm reason |", "|---|---|---|---|---|---|---|"]
    for r in rows:
        n, wa = r["native"], r["wasm"]
        md.append(f"| {r['test']} | {r['ranks']} | {mark(n)} | {mark(wa)} | "
                  f"{'' if n is None else n['seconds']} | {'' if wa is None else wa['seconds']} | "
                  f"{'' if wa is None or wa['pass'] else wa['why']} |")
    md += ["", meta["summary"], ""] + failure_lines(rows)
    (out_dir / "results.md").write_text("\n".join(md) + "\n")
    return "\n".join(md)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="\n\n".join(__doc__.split("\n\n")[1:]))
    ap.add_argument("--np", type=int, default=4, help="ranks per program (default 4; t_cache gets at least 3)")
    ap.add_argument("--only", help="comma-separated program names (default: all %d but t_bigio)" % len(TESTS))
    ap.add_argument("--with-bigio", action="store_true", help="also run t_bigio (> 2 GiB of I/O)")
    ap.add_argument("--out", type=Path, help="results directory (default results/hdf5/<timestamp>/)")
    ap.add_argument("--mpi", choices=("openmpi", "mpich"), default="openmpi",
                    help="host MPI: mpicc/mpirun .openmpi (default) or .mpich")
    ap.add_argument("--timeout", type=float, default=300, help="seconds per run (default 300)")
    ap.add_argument("--jobs", type=int, default=2, help="make -j (default 2)")
    ap.add_argument("--embedder", type=Path, default=EMBEDDER, help=f"default {EMBEDDER.relative_to(ROOT)}")
    ap.add_argument("--no-wasm", action="store_true", help="native build and runs only")
    ap.add_argument("--no-native", action="store_true", help="wasm build and runs only")
    args = ap.parse_args(argv)

    names = [n for n in TESTS if n not in DEFAULT_SKIP or args.with_bigio]
    if args.only:
        names = [n.strip() for n in args.only.split(",") if n.strip()]
        unknown = [n for n in names if n not in TESTS]
        if unknown:
            ap.error(f"unknown program(s) {', '.join(unknown)}; known: {', '.join(TESTS)}")
    if args.no_native and args.no_wasm:
        ap.error("--no-native and --no-wasm leave nothing to run")
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    out_dir = (args.out or ROOT / "results" / "hdf5" / stamp).resolve()
    logs = out_dir / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    log = print

    tmp_base = Path(tempfile.mkdtemp(prefix="hdf5-runs-"))
    try:
        return _main(args, names, stamp, out_dir, logs, log, tmp_base)
    finally:
        shutil.rmtree(tmp_base, ignore_errors=True)


def _main(args, names, stamp, out_dir, logs, log, tmp_base):
    embedder = cache = None
    try:
        cc, mpirun, mpirun_opts = mpi_tools(args.mpi)
        if not args.no_wasm:
            if not args.embedder.exists():
                raise SetupError(f"{args.embedder} not built")
            # a private copy of the embedder: a rebuild of target/release during
            # the build and runs does not change the binary under test halfway
            embedder = tmp_base / "embedder"
            shutil.copy2(args.embedder, embedder)
        tarball = fetch("hdf5", DOWNLOADS, log=log)
        HDF5_BUILD.mkdir(parents=True, exist_ok=True)
        with open(HDF5_BUILD / ".lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            native = {} if args.no_native else build(f"native-{Path(cc).name}", cc, args.jobs, tarball, None, log)
            wasm = {} if args.no_wasm else build("wasm", WASM_MPICC, args.jobs, tarball, embedder, log)
    except (FetchError, SetupError) as e:
        print(f"hdf5: error: {e}", file=sys.stderr)
        return 2

    nfile = None
    if not args.no_wasm:
        cache = tmp_base / "cache"
        cache.mkdir(mode=0o700)
        nfile = provided_file_functions(embedder)
        mods = [str(wasm[n]) for n in dict.fromkeys([*(PREREQ[n] for n in names if n in PREREQ), *names])]
        log(f"hdf5: compiling {len(mods)} module(s) for the embedder (LLVM, cached for the runs)")
        p = subprocess.run(["nice", str(embedder), "--cache-dir", str(cache), "compile", *mods],
                           capture_output=True, text=True)
        if p.returncode != 0:
            log(f"hdf5: warning: embedder compile exited {p.returncode}: {first_stderr_line(p.stderr, p.stdout)}")
    launcher = [mpirun, *mpirun_opts]
    meta = {"started": stamp, "mpi": args.mpi, "native_cc": cc, "native_cc_version": first_line([cc, "--version"]),
            "mpirun": launcher, "mpirun_version": first_line([mpirun, "--version"]),
            "embedder": str(args.embedder), "embedder_version": first_line([str(args.embedder), "--version"]),
            "embedder_mtime": datetime.datetime.fromtimestamp(args.embedder.stat().st_mtime).isoformat()
            if args.embedder.exists() else None,
            "embedder_file_functions": nfile, "tests": names, "np": args.np, "timeout_s": args.timeout,
            "configure": CONFIGURE_OPTS, "wasm_env": WASM_ENV, "wasm_patches": WASM_PATCHES,
            "compat_dir": str(COMPAT.relative_to(ROOT)),
            "source": {k: SOURCES["hdf5"][k] for k in ("debian_source", "pool", "sha256", "size")}}

    rows = []
    for name in names:
        ranks = test_ranks(name, args.np)
        row = {"test": name, "ranks": ranks, "native": None, "wasm": None}
        for kind, exes in (("native", native), ("wasm", wasm)):
            if (kind == "native" and args.no_native) or (kind == "wasm" and args.no_wasm):
                continue
            row[kind] = run_test(name, ranks, exes, kind, launcher, logs, tmp_base, args.timeout, embedder, cache)
        n, wa = row["native"], row["wasm"]
        if wa is not None and not wa["pass"] and n is not None:
            wa["first_stderr"] = first_stderr_line(wa["_err"], wa["_out"], n["_out"] + n["_err"])
        for r in (n, wa):
            if r is not None:
                r.pop("_out", None), r.pop("_err", None)
        log_row(log, name, ranks, n, wa)
        rows.append(row)

    summary, wasm_only_fail = verdict(rows, "programs", f"{args.mpi}, np {args.np}", args.no_native, args.no_wasm)
    meta["summary"] = summary
    meta["wasm_only_failures"] = wasm_only_fail
    text = write_results(out_dir, rows, meta)
    print()
    print(text)
    print(f"results: {out_dir}")
    return 1 if wasm_only_fail else 0


if __name__ == "__main__":
    sys.exit(main())
