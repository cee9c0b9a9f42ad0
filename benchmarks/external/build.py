#!/usr/bin/env python3
"""Build the external benchmarks, HPCC 1.5.0 and NetPIPE 3.7.2 (MPI module),
natively (host mpicc) and to wasm32-wasi (toolchain/bin/wasm-mpicc), from
unmodified upstream sources.

    python3 benchmarks/external/build.py [--mpicc mpicc.openmpi] [--jobs 2] [--force]

Sources: the .orig.tar.gz of Debian bookworm's source packages, fetched and
SHA-256-checked by fetch.py. Each flavour gets its own freshly unpacked tree
under benchmarks/external/build/<flavour>/src-*/ (git-ignored): HPCC's
Makefiles build inside the source tree. The programs end up in
benchmarks/external/build/<flavour>/bin/. Nothing in the sources is edited; the build is
configured only through make variables and files the build reads:

- HPCC: hpl/Make.<arch> is generated here (arch `native` or `wasm`), the
  way HPL's setup/Make.* templates are meant to be copied and edited:
  CC/LINKER = mpicc or wasm-mpicc, ARCHIVER = ar or llvm-ar,
  HPL_OPTS = -DHPL_CALL_CBLAS, LAlib = our cblas.o. HPL builds MPI struct
  datatypes with MPI_Address and MPI_Type_struct, which MPI-3.0 removed: the
  guest mpi.h maps them to MPI_Get_address/MPI_Type_create_struct, Open MPI
  4's mpi.h declares them with OMPI_OMIT_MPI1_COMPAT_DECLS=0, and MPICH's
  library still has them (its header does not declare them: gcc 12 only
  warns about the implicit declarations).
- BLAS: benchmarks/external/cblas/cblas.c (our own, portable C), the same
  code in both flavours. HPL's CBLAS interface needs 9 functions and no
  Fortran character-length conventions.
- NetPIPE: `make mpi MPICC=... CFLAGS=...`.
- wasm only: wasi-libc's emulations (-D_WASI_EMULATED_SIGNAL,
  _PROCESS_CLOCKS, _GETPID with their -lwasi-emulated-* libraries) for
  <signal.h>, getrusage() and getpid(); and compat/gethostname.c, because
  wasi-libc declares gethostname() but does not define it (NetPIPE's MPI
  module calls it).

A build is redone only when its inputs change (stamp.json: tarball hash,
our sources, this script, compilers, flags). Prints the four programs.
"""
import argparse
import fcntl
import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))
from fetch import BUILD, DOWNLOADS, SOURCES, FetchError, MirrorUnreachable, fetch, url  # noqa: E402,F401

WASM_MPICC = ROOT / "toolchain" / "bin" / "wasm-mpicc"
CBLAS_DIR = HERE / "cblas"
COMPAT_DIR = HERE / "compat"

OPT_FLAGS = ["-O3"]  # both flavours; wasm-mpicc adds -msimd128 (128-bit vectors, like x86-64's baseline SSE2)
HPL_OPTS = ["-DHPL_CALL_CBLAS"]
# Open MPI 4 hides the removed MPI-1 names (MPI_Address, ...) unless asked.
NATIVE_DEFINES = ["-DOMPI_OMIT_MPI1_COMPAT_DECLS=0"]
WASI_EMULATION = ["-D_WASI_EMULATED_SIGNAL", "-D_WASI_EMULATED_PROCESS_CLOCKS", "-D_WASI_EMULATED_GETPID"]
WASI_EMULATION_LIBS = ["-lwasi-emulated-signal", "-lwasi-emulated-process-clocks", "-lwasi-emulated-getpid"]
PROGRAMS = ("hpcc", "hpcc.wasm", "netpipe", "netpipe.wasm")
CODES = ("hpcc", "netpipe")  # the entries of fetch.SOURCES built here (mpich is romio.py's)


class BuildError(Exception):
    pass


def first_line(cmd):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
        lines = [x.strip() for x in (p.stdout + p.stderr).splitlines() if x.strip()]
        return lines[0] if lines else ""
    except (OSError, subprocess.SubprocessError) as e:
        return f"unavailable ({e})"


def llvm_tool(tool):
    """llvm-ar / llvm-ranlib matching the clang that wasm-mpicc uses (its
    symbol index must understand wasm objects; GNU ar's does not)."""
    if os.environ.get("WASI_SDK_PATH"):
        cand = Path(os.environ["WASI_SDK_PATH"]) / "bin" / f"llvm-{tool}"
        if cand.exists():
            return str(cand)
    m = re.search(r"clang-(\d+)", first_line([str(WASM_MPICC), "-showme:command"]))
    names = ([f"llvm-{tool}-{m.group(1)}"] if m else []) + [f"llvm-{tool}-{v}" for v in range(19, 13, -1)]
    for name in names + [f"llvm-{tool}"]:
        if shutil.which(name):
            return shutil.which(name)
    raise BuildError(f"no llvm-{tool} found (needed to archive wasm objects)")


def flavours(mpicc):
    """Compiler settings of the two builds."""
    return {
        "native": {"dir": f"native-{Path(mpicc).name}", "cc": mpicc, "cflags": OPT_FLAGS, "defines": NATIVE_DEFINES,
                   "libs": [], "ar": "ar", "ranlib": "ranlib", "compat": [], "suffix": ""},
        "wasm": {"dir": "wasm", "cc": str(WASM_MPICC), "cflags": OPT_FLAGS, "defines": WASI_EMULATION,
                 "libs": WASI_EMULATION_LIBS, "ar": None, "ranlib": None,
                 "compat": [COMPAT_DIR / "gethostname.c"], "suffix": ".wasm"},
    }


def hpl_make_file(fl, cblas_obj):
    """HPCC's hpl/Make.<arch>, after HPL's setup/Make.Linux_PII_CBLAS.
    Files HPL builds with CCNOOPT (HPL_dlamch.c, HPL_slamch.c, noopt.c: the
    machine-constant probes) get -O0 explicitly: wasm-mpicc would otherwise
    add its default -O3."""
    defs = " ".join(fl["defines"])
    return f"""# Generated by benchmarks/external/build.py; `make arch=<arch>` in the HPCC top directory.
SHELL        = /bin/sh
CD           = cd
CP           = cp
LN_S         = ln -s
MKDIR        = mkdir -p
RM           = /bin/rm -f
TOUCH        = touch
ARCH         = $(arch)
TOPdir       = ../../..
INCdir       = $(TOPdir)/include
BINdir       = $(TOPdir)/bin/$(ARCH)
LIBdir       = $(TOPdir)/lib/$(ARCH)
HPLlib       = $(LIBdir)/libhpl.a
MPinc        =
MPlib        =
LAinc        =
LAlib        = {cblas_obj}
HPL_OPTS     = {' '.join(HPL_OPTS)}
HPL_INCLUDES = -I$(INCdir) $(LAinc) $(MPinc)
HPL_LIBS     = $(HPLlib) $(LAlib) $(MPlib) -lm {' '.join(fl['libs'])}
HPL_DEFS     = $(HPL_OPTS) $(HPL_INCLUDES)
CC           = {fl['cc']}
CCNOOPT      = $(HPL_DEFS) {defs} -O0
CCFLAGS      = $(HPL_DEFS) {defs} {' '.join(fl['cflags'])}
LINKER       = {fl['cc']}
LINKFLAGS    = $(CCFLAGS)
ARCHIVER     = {fl['ar']}
ARFLAGS      = r
RANLIB       = {fl['ranlib']}
"""


def _hash_files(paths):
    h = hashlib.sha256()
    for p in paths:
        h.update(Path(p).name.encode() + b"\0" + Path(p).read_bytes())
    return h.hexdigest()


def _run(cmd, cwd, log_path):
    with open(log_path, "a") as log:
        log.write(f"$ (cd {cwd} && {shlex.join(map(str, cmd))})\n")
        log.flush()
        p = subprocess.run([str(c) for c in cmd], cwd=cwd, stdout=log, stderr=subprocess.STDOUT)
    if p.returncode != 0:
        tail = "".join(Path(log_path).read_text().splitlines(True)[-30:])
        raise BuildError(f"{shlex.join(map(str, cmd))} failed (exit {p.returncode}) in {cwd}; "
                         f"log {log_path}:\n{tail}")


def _unpack(tarball, dest):
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    with tarfile.open(tarball) as t:
        for member in t.getmembers():  # no absolute paths or .. (the hash is pinned, but still)
            if member.name.startswith("/") or ".." in Path(member.name).parts:
                raise BuildError(f"{tarball}: unsafe member {member.name}")
        if hasattr(tarfile, "data_filter"):  # Python >= 3.11.4: refuse links out of dest, odd modes
            t.extractall(dest, filter="data")
        else:
            t.extractall(dest)


def _build_flavour(name, fl, tarballs, jobs, log):
    fdir = BUILD / fl["dir"]
    fdir.mkdir(parents=True, exist_ok=True)
    log_path = fdir / "build.log"
    log_path.write_text("")
    log(f"build: {name} ({fl['cc']}), log {log_path.relative_to(ROOT)}")
    cflags = fl["cflags"] + fl["defines"]
    cblas_obj = fdir / "cblas.o"
    _run([fl["cc"], *cflags, "-I", CBLAS_DIR, "-c", CBLAS_DIR / "cblas.c", "-o", cblas_obj], fdir, log_path)
    compat_objs = []
    for src in fl["compat"]:
        obj = fdir / (src.stem + ".o")
        _run([fl["cc"], *cflags, "-c", src, "-o", obj], fdir, log_path)
        compat_objs.append(obj)

    # HPCC: unpack, generate hpl/Make.<arch>, make arch=<arch>
    arch = "wasm" if name == "wasm" else "native"
    _unpack(tarballs["hpcc"], fdir / "src-hpcc")
    top = fdir / "src-hpcc" / SOURCES["hpcc"]["topdir"]
    (top / "hpl" / f"Make.{arch}").write_text(hpl_make_file(fl, cblas_obj))
    _run(["make", f"-j{jobs}", f"arch={arch}"], top, log_path)
    (fdir / "bin").mkdir(exist_ok=True)
    hpcc = fdir / "bin" / ("hpcc" + fl["suffix"])
    shutil.copy2(top / "hpcc", hpcc)

    # NetPIPE: unpack, make mpi
    _unpack(tarballs["netpipe"], fdir / "src-netpipe")
    top = fdir / "src-netpipe" / SOURCES["netpipe"]["topdir"]
    np_cflags = cflags + fl["libs"] + [str(o) for o in compat_objs]
    _run(["make", "mpi", f"MPICC={fl['cc']}", f"CFLAGS={' '.join(np_cflags)}"], top, log_path)
    netpipe = fdir / "bin" / ("NPmpi" + fl["suffix"])
    shutil.copy2(top / "NPmpi", netpipe)
    return hpcc, netpipe


def build(mpicc="mpicc", jobs=2, force=False, log=print):
    """Fetch (if needed) and build both flavours (if their inputs changed).
    Returns {"hpcc", "hpcc.wasm", "netpipe", "netpipe.wasm": Path, "info": dict}.
    Raises FetchError / MirrorUnreachable / BuildError."""
    mpicc = shutil.which(mpicc) or mpicc
    BUILD.mkdir(parents=True, exist_ok=True)
    with open(BUILD / ".lock", "w") as lock:  # one build at a time (tests and run.py share BUILD)
        fcntl.flock(lock, fcntl.LOCK_EX)
        tarballs = {n: fetch(n, DOWNLOADS, log=log) for n in CODES}
        fls = flavours(mpicc)
        fls["wasm"]["ar"], fls["wasm"]["ranlib"] = llvm_tool("ar"), llvm_tool("ranlib")
        ours = sorted(CBLAS_DIR.glob("cblas.[ch]")) + sorted(COMPAT_DIR.glob("*.c")) + [Path(__file__)]
        out = {}
        info = {"sources": {n: {"tarball": s["pool"], "sha256": s["sha256"], "debian_source": s["debian_source"]}
                            for n, s in SOURCES.items() if n in CODES},
                "hpl_opts": HPL_OPTS, "flavours": {}}
        for name, fl in fls.items():
            stamp_data = {"sources": {n: SOURCES[n]["sha256"] for n in CODES}, "ours": _hash_files(ours),
                          "cc": fl["cc"], "cc_version": first_line([fl["cc"], "--version"]),
                          "cc_show": first_line([fl["cc"], "-show"]) if name == "wasm" else "",
                          "flavour": {k: [str(x) for x in v] if isinstance(v, list) else v
                                      for k, v in fl.items()}}
            fdir = BUILD / fl["dir"]
            hpcc, netpipe = fdir / "bin" / ("hpcc" + fl["suffix"]), fdir / "bin" / ("NPmpi" + fl["suffix"])
            stamp = fdir / "stamp.json"
            fresh = (not force and hpcc.exists() and netpipe.exists() and stamp.exists()
                     and json.loads(stamp.read_text()) == stamp_data)
            if not fresh:
                if stamp.exists():
                    stamp.unlink()
                hpcc, netpipe = _build_flavour(name, fl, tarballs, jobs, log)
                stamp.write_text(json.dumps(stamp_data, indent=1) + "\n")
            else:
                log(f"build: {name} up to date ({fdir.relative_to(ROOT)})")
            key = "" if name == "native" else ".wasm"
            out["hpcc" + key], out["netpipe" + key] = hpcc, netpipe
            info["flavours"][name] = {
                "cc": fl["cc"], "cc_version": stamp_data["cc_version"],
                "cflags": fl["cflags"] + fl["defines"], "libs": fl["libs"],
                "compat": [str(Path(c).relative_to(ROOT)) for c in fl["compat"]],
                "hpcc_make": f"make arch={'native' if name == 'native' else 'wasm'} (hpl/Make.<arch> generated)",
                "netpipe_make": "make mpi MPICC=<cc> CFLAGS=<cflags and libs>"}
        out["info"] = info
        return out


# ---------------------------------------------------------------------------
# HPCC input


def process_grid(ranks):
    """HPL's P x Q for `ranks` processes: the most square grid with P <= Q."""
    p = max(d for d in range(1, int(ranks ** 0.5) + 1) if ranks % d == 0)
    return p, ranks // p


def hpccinf(n, nb, ranks):
    """The text of hpccinf.txt: HPCC's own _hpccinf.txt with one problem size
    N, one block size NB and one P x Q grid for `ranks` processes. HPCC sizes
    its other tests from N (PTRANS uses N/2; STREAM, RandomAccess and FFT
    take memory comparable to HPL's matrix)."""
    p, q = process_grid(ranks)
    return f"""HPLinpack benchmark input file
Innovative Computing Laboratory, University of Tennessee
HPL.out      output file name (if any)
8            device out (6=stdout,7=stderr,file)
1            # of problems sizes (N)
{n:<12} Ns
1            # of NBs
{nb:<12} NBs
0            PMAP process mapping (0=Row-,1=Column-major)
1            # of process grids (P x Q)
{p:<12} Ps
{q:<12} Qs
16.0         threshold
1            # of panel fact
2            PFACTs (0=left, 1=Crout, 2=Right)
1            # of recursive stopping criterium
4            NBMINs (>= 1)
1            # of panels in recursion
2            NDIVs
1            # of recursive panel fact.
1            RFACTs (0=left, 1=Crout, 2=Right)
1            # of broadcast
1            BCASTs (0=1rg,1=1rM,2=2rg,3=2rM,4=Lng,5=LnM)
1            # of lookahead depth
1            DEPTHs (>=0)
2            SWAP (0=bin-exch,1=long,2=mix)
64           swapping threshold
0            L1 in (0=transposed,1=no-transposed) form
0            U  in (0=transposed,1=no-transposed) form
1            Equilibration (0=no,1=yes)
8            memory alignment in double (> 0)
##### This line (no. 32) is ignored (it serves as a separator). ######
0                      		Number of additional problem sizes for PTRANS
1200 10000 30000        	values of N
0                       	number of additional blocking sizes for PTRANS
40 9 8 13 13 20 16 32 64       	values of NB
"""


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="\n\n".join(__doc__.split("\n\n")[1:]))
    ap.add_argument("--mpicc", default=shutil.which("mpicc.openmpi") or "mpicc", help="native MPI compiler")
    ap.add_argument("--jobs", type=int, default=2, help="make -j (default 2)")
    ap.add_argument("--force", action="store_true", help="rebuild even if up to date")
    args = ap.parse_args(argv)
    try:
        out = build(args.mpicc, args.jobs, args.force)
    except (FetchError, BuildError) as e:
        print(f"build: error: {e}", file=sys.stderr)
        return 2 if isinstance(e, MirrorUnreachable) else 1
    for name in PROGRAMS:
        print(f"{name}: {out[name]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
