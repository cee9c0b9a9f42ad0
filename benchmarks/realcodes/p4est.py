"""p4est 2.2 (parallel adaptive forests of octrees) with its bundled libsc:
libsc + libp4est and a set of p4est's own test programs (test/) and tutorial
examples (example/steps/), verified natively and as wasm.

Built (autotools, the project's own build system, sources unedited), the same
way for both flavours:

    ./bootstrap          (the tarball ships no configure: aclocal, autoconf,
                          autoheader, libtoolize, automake; Debian packages
                          autoconf automake libtool)
    ./configure --enable-mpi --disable-shared --without-blas --without-lapack
                --disable-vtk-zlib ac_cv_search_adler32_combine=no
                ac_cv_search_lua_createtable=no
    make -C sc src/libsc.la
    make test/p4est_test_ghost ... example/steps/p4est_step3 ...

with CC/CXX = the flavour's MPI compilers (native: mpicc.openmpi /
mpicxx.openmpi; wasm: toolchain/bin/wasm-mpicc / wasm-mpicxx, AR/RANLIB
llvm-ar/llvm-ranlib, --host=wasm32-wasi from the Toolchain). Only the
programs the tests run are made (and libsc.la, libp4est.la for them): 2D
(p4est_*) and 3D (p8est_*), configure's default CFLAGS (-g -O2) both ways,
no debug mode, MPI I/O and MPI_Init_thread on (their defaults with
--enable-mpi). The version prints as "UNKNOWN" (git-version-gen
without .git or .tarball-version), the same both ways.

Optional dependencies are off in both flavours: BLAS/LAPACK by option; zlib
and Lua have no configure switch in libsc 2.2, so their link checks are
answered "no" by cache variable (the host has libz, wasm has none). Without
zlib p4est_checksum()/sc_array_checksum() abort, so the test programs that
call them (test_balance, test_partition, test_valid, test_balance_type,
test_loadsave, example/simple, example/timings, example/mesh) are not used.
p6est (test/p6est_test_all) builds but is left out: p6est keeps each
column's layer range in the 8-byte quadrant union and ships it through
p4est_ghost_exchange_data with data_size 0, which copies sizeof(void *) =
4 bytes on wasm32 (p6est_ghost.c asserts sizeof (void *) ==
sizeof (p4est_quadrant_data_t) in debug builds): an LP64 assumption of
p6est itself, not an embedder fault. As wasm it aborts at 2 and 4 ranks
("MPI_Irecv: negative count") and at 1 rank loops in p6est_balance until
malloc fails.

Build changes beyond the compiler, wasm only, configure arguments (no
source, Makefile or flag change):
  --build=<triplet> (common.Toolchain.configure_args gives it to every
      wasm configure): p4est's configure probes F77 (mpif77) before CC;
      the host Fortran compiler's test program runs, which sets
      cross_compiling=no for the whole run, and then AC_CHECK_SIZEOF runs
      wasm programs and records sizeof(int) etc. as 0. With --build and
      --host both given, configure knows it cross-compiles.
  ac_cv_f77_libs= ac_cv_fc_libs= ac_cv_f77_dummy_main=none
  ac_cv_fc_dummy_main=none ac_cv_{f77,fc}_mangling=...   libsc's
      SC_MPI_ENGAGE runs AC_F77_WRAPPERS/AC_FC_WRAPPERS, which link the
      host's Fortran runtime (-lgfortran -lmpi_mpifh ...) into a wasm C test
      program ("linking to Fortran libraries from C fails"); p4est uses no
      Fortran (the mangling only names BLAS/LAPACK symbols, which are off).
WASI: libsc's sc.c uses signal(), SIGINT, SIGSEGV, SIGUSR2 unconditionally,
so it needs wasi-libc's signal emulation (-D_WASI_EMULATED_SIGNAL
-lwasi-emulated-signal), which wasm-mpicc adds by default. configure finds
no execinfo.h/backtrace (libsc then prints no backtraces), no dlfcn.h and
no obstack (libsc uses its builtin copy); nothing else is missing.

Tests: each program asserts its own results (SC_CHECK_ABORT: a failed check
aborts with "[libsc N] Abort" and a non-zero exit) and logs p4est's global
statistics on rank 0: quadrant counts after new/refine/coarsen/balance/
partition, quadrants shipped, ghost/node/lnodes counts, search matches,
and for example/steps the advection solution's u_max per step (step3) or
the CG iteration count, residual and L2 error of the Poisson solve (step4).
A run passes when it exits 0 and prints no Abort. Summary (must be equal
native and wasm): the last key statistic, the number of rank 0's log
records and a digest of them without the build banner (CC/CFLAGS/LIBS
lines): its global log ("[p4est] ...", "[libsc] ...") in order, its own
records ("[p4est 0] ...") as a sorted multiset. Other ranks' records are
not compared: the launcher may splice one rank's record into another's
line, which cannot be undone (seen natively under MPICH).

    p4est/p8est_test_balance_seeds  balance via seed quadrants vs p4est_balance
    p4est/p8est_test_ghost          ghost layers (face/edge/corner), expand, checks
    p4est/p8est_test_iterate        p4est_iterate over faces/edges/corners, checked
    p4est/p8est_test_lnodes         high-order node numbering, checked vs ghosts
    p4est/p8est_test_nodes          p4est_nodes_new on refined, balanced forests
    p4est/p8est_test_partition_corr partition for coarsening (family correction)
    p4est/p8est_test_plex           p4est_get_plex_data (DMPlex mesh description), overlaps
    p4est/p8est_test_search         p4est_search with points, match counts checked
    p4est/p8est_test_subcomm        forests on sub-communicators (MPI_Comm_split)
    p4est_test_comm                 per-tree quadrant counts, global quadrant ranges
    p4est_test_order                unique local vertices, order under repartitioning
    p4est_test_complete_subtree     p4est_complete_subtree on locally built trees
    p4est_test_coarsen              p4est_coarsen vs a reference implementation
    p8est_test_periodic             periodic 3D connectivity: face/edge/corner transforms
                                    (serial, no MPI: 1 rank only)
    p4est/p8est_step3               advection tutorial: adapt, partition, ghost
                                    exchange, explicit time steps (u_max)
    p4est_step4                     Poisson tutorial: lnodes + CG (iterations,
                                    residual, L2 error)
"""
import hashlib
import re
import shutil
import time
from pathlib import Path

from common import JOBS, SetupError, Test, run_checked

SOURCE = "p4est"
BUILD_SYSTEM = "autotools"
LANG = "C"
CHANGES = ("none to sources or Makefiles; ./bootstrap (autoreconf) first; zlib/lua off by cache variable "
           "both ways; wasm configure: F77/FC link-check cache variables (libsc probes the host's "
           "Fortran runtime)")

CONFIGURE_OPTS = [
    "--enable-mpi", "--disable-shared", "--without-blas", "--without-lapack", "--disable-vtk-zlib",
    # libsc 2.2 has no switch for these two optional libraries
    "ac_cv_search_adler32_combine=no", "ac_cv_search_lua_createtable=no",
]
_MANGLING = "lower case, underscore, no extra underscore"
# wasm: the host Fortran compilers' runtime cannot be linked into wasm C programs
WASM_FORTRAN_CACHE = [
    "ac_cv_f77_libs=", "ac_cv_fc_libs=", "ac_cv_f77_dummy_main=none", "ac_cv_fc_dummy_main=none",
    f"ac_cv_f77_mangling={_MANGLING}", f"ac_cv_fc_mangling={_MANGLING}",
]
BOOTSTRAP_TOOLS = ["aclocal", "autoconf", "autoheader", "libtoolize", "automake"]

PAIRS = ["balance_seeds", "ghost", "iterate", "lnodes", "nodes", "partition_corr", "plex", "search",
         "subcomm"]
TEST_PROGRAMS = ([f"{d}est_test_{t}" for t in PAIRS for d in ("p4", "p8")]
                 + ["p4est_test_comm", "p4est_test_order", "p4est_test_complete_subtree",
                    "p4est_test_coarsen", "p8est_test_periodic"])
EXAMPLE_PROGRAMS = ["p4est_step3", "p8est_step3", "p4est_step4"]


def _make_target(name):
    return f"example/steps/{name}" if name in EXAMPLE_PROGRAMS else f"test/{name}"


def build(src: Path, out: Path, tc, log):
    missing = [t for t in BOOTSTRAP_TOOLS if not shutil.which(t)]
    if missing:
        raise SetupError(f"p4est's ./bootstrap needs {', '.join(missing)} "
                         "(apt-get install autoconf automake libtool)")
    env = tc.env()

    def step(what, cmd):
        t0 = time.monotonic()
        run_checked(cmd, log, cwd=src, env=env)
        log(f"{what}: {time.monotonic() - t0:.1f} s")

    step("bootstrap", ["./bootstrap"])
    extra = WASM_FORTRAN_CACHE if tc.flavour == "wasm" else []
    step("configure", ["./configure", *CONFIGURE_OPTS, *tc.configure_args(), *extra])
    programs = TEST_PROGRAMS + EXAMPLE_PROGRAMS
    # libsc is its own (recursive) package in sc/: the top Makefile has no rule for its library
    step("make -C sc src/libsc.la", ["make", f"-j{JOBS}", "-C", "sc", "src/libsc.la"])
    step("make (programs)", ["make", f"-j{JOBS}", *[_make_target(p) for p in programs]])
    for name in programs:
        dest = tc.program(out, name)
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src / _make_target(name), dest)  # static: libtool links in place, no wrapper script


_BANNER = re.compile(r"^\[(libsc|p4est)\] (CPP|CPPFLAGS|CC|CFLAGS|LDFLAGS|LIBS)(\s|$)")
# One log record: "[p4est] text" (rank 0's global log) or "[p4est N] text"
# (rank N), up to the next record or the end of the line. Found anywhere in
# a line, not only at its start: the launcher forwards each rank's output
# as it comes, so a record of one rank can land inside another's line (seen
# natively under MPICH's mpirun: "[p4est[p4est 0] Matched ...").
_RECORD = re.compile(r"\[(?:libsc|p4est)(?: (\d+))?\] .*?(?=\[(?:libsc|p4est)(?: \d+)?\] |$)", re.M)
# the statistic shown first in the summary: the last line of the first kind found
_KEYS = [re.compile(k) for k in (r"u_max|\|\|u_fe", r"global nodes", r"total quadrants", r"shipped")]
_ABORT = re.compile(r"^\[libsc[ \d]*\] Abort|MPI_ABORT was invoked", re.M)


def result(stdout, stderr):
    """Rank 0's records are compared: the global ones in order, its own as a
    set. The other ranks' records are not (a record split by another rank's
    output cannot be put back together); their checks still abort the run."""
    records = [(m.group(1), m.group(0).rstrip()) for m in _RECORD.finditer(stdout)]
    ordered = [r for rank, r in records if rank is None and not _BANNER.match(r)]
    rank0 = sorted(r for rank, r in records if rank == "0")
    digest = hashlib.sha256("\n".join(ordered + ["--"] + rank0).encode()).hexdigest()[:12]
    key = next(([ln for ln in ordered if k.search(ln)][-1] for k in _KEYS
                if any(k.search(ln) for ln in ordered)), "")
    key = re.sub(r"^\[p4est\]\s+", "", key)
    ok = not (_ABORT.search(stdout) or _ABORT.search(stderr))
    return ok, f"{key + '; ' if key else ''}{len(ordered) + len(rank0)} records #{digest}"


# serial programs (no MPI_Init: every rank would print as rank 0, interleaved)
SERIAL = {"p8est_test_periodic"}
TESTS = [Test(name=p, program=p, args=[], result=result, ranks=(1,) if p in SERIAL else (1, 2, 4),
              timeout=300)
         for p in TEST_PROGRAMS + EXAMPLE_PROGRAMS]
