"""hypre 2.26.0 (LLNL's scalable linear solvers: BoomerAMG, PFMG/SMG
structured multigrid, Krylov methods, ParaSails/Euclid/PILUT
preconditioners) and its own test drivers src/test/ij.c (IJ/ParCSR
interface) and src/test/struct.c (Struct interface).

Built with hypre's CMake build system (src/CMakeLists.txt, sources unedited),
the same options for both flavours:

    cmake -S src -B src/cmbuild -DCMAKE_BUILD_TYPE=Release
          -DHYPRE_BUILD_TESTS=ON -DHYPRE_ENABLE_SHARED=OFF -DHYPRE_WITH_MPI=ON
          -DHYPRE_WITH_OPENMP=OFF -DHYPRE_ENABLE_HYPRE_BLAS=ON
          -DHYPRE_ENABLE_HYPRE_LAPACK=ON   (+ the Toolchain's cmake args)
    cmake --build src/cmbuild --target ij struct

i.e. static libHYPRE.a with hypre's internal BLAS/LAPACK, no OpenMP, no
Fortran, no GPU, 32-bit HYPRE_Int, double precision, -O3 -DNDEBUG (CMake's
Release flags); FindMPI finds the compiler wrapper (native: mpicc.openmpi;
wasm: the toolchain file's wasm-mpicc, "implicit" MPI). Only the library and
the two drivers are built (test/CMakeLists.txt would also build sstruct,
ams_driver, maxwell_unscaled, struct_migrate, sstruct_fac, ij_mv).

Build changes beyond the compiler: none. On wasm hypre needs two of wasi-libc's
emulations, which wasm-mpicc enables by default (its porting layer): process
clocks (utilities/timer.c includes <sys/times.h> and calls clock() for the
drivers' "cpu clock time"), and signals (distributed_ls/pilut/ilu.h includes
<signal.h>; distributed_ls/Euclid/sig_dh.c installs SIGSEGV/SIGFPE/SIGBUS
handlers with signal(), never raised). With -wasm-strict those files do not
compile. No compat-library function (gethostname, getrlimit, ...), no getpid,
no mmap.

Tests: each run uses the driver's own generated problem (no input files) on
a 3D processor grid -P px py pz made from the rank count (1: 1 1 1, 2: 1 1 2,
4: 1 2 2, 8: 2 2 2, ...), as in the project's TEST_ij/TEST_struct jobs:

    ij-amg-pcg        ij -solver 1: BoomerAMG(HMIS, ext+i interpolation)-
                      preconditioned CG, 7-point Laplacian on a 60^3 global grid
    ij-amg            ij (solver 0): BoomerAMG as the solver, PMIS with fixed
                      random numbers, Jacobi relaxation, 40^3 (TEST_ij/default.jobs
                      options -pmis1 -Pmx 0 -rlx 0 -xisone)
    ij-amg-gmres      ij -solver 3 -rhsrand: AMG-GMRES, random right-hand side
                      (hypre's own generator), 40^3 (TEST_ij/solvers.jobs)
    ij-sysamg         ij -sysL 2 -nf 2: systems AMG for a 2-function problem,
                      20^3 (TEST_ij/solvers.jobs)
    ij-parasails-pcg  ij -solver 8: ParaSails sparse approximate inverse PCG, 30^3
    ij-euclid-pcg     ij -solver 43: Euclid parallel ILU PCG, 30^3
    ij-pilut-gmres    ij -solver 7: PILUT parallel ILUT GMRES, 30^3
    struct-smg        struct -solver 0: SMG, 30^3 cells per rank
    struct-pfmg       struct -solver 1: PFMG, 40^3 per rank
    struct-pfmg-pcg   struct -solver 11: PFMG-preconditioned CG, 40^3 per rank
    struct-sparsemsg  struct -solver 3: SparseMSG, 30^3 per rank

ij's grid is global (strong scaling), struct's is per rank (weak scaling).
A run passes when it exits 0 and the driver reports an iteration count and a
final relative residual norm at or below the solver's tolerance (ij 1e-8,
struct 1e-6). Summary: "<iterations> it, rel. residual <norm>"; native and
wasm must report the same iteration count and residuals equal to 2e-6
relative (the drivers print 7 significant digits; on x86-64 the texts have
been identical, as is the whole output but for the timings). Results differ
between rank counts (the AMG coarsening and the smoothers depend on the
partition), so each rank count is compared only with itself.

sstruct (test/sstruct.c, SStruct interface) reads its problem from
sstruct.in.default in its working directory: build() puts the file next to
the program and each run gets a copy (Test.files).
"""
import math
import re
import shutil
import time
from pathlib import Path

from common import JOBS, Test, run_checked

SOURCE = "hypre"
BUILD_SYSTEM = "cmake"
LANG = "C"
CHANGES = "none"

CMAKE_OPTS = [
    "-DCMAKE_BUILD_TYPE=Release",
    "-DHYPRE_BUILD_TESTS=ON",
    "-DHYPRE_ENABLE_SHARED=OFF",
    "-DHYPRE_WITH_MPI=ON",
    "-DHYPRE_WITH_OPENMP=OFF",
    "-DHYPRE_ENABLE_HYPRE_BLAS=ON",
    "-DHYPRE_ENABLE_HYPRE_LAPACK=ON",
]
RANKS = (1, 2, 4, 8, 16)
# (name, program, arguments without -P, tolerance the solver converges to)
CASES = [
    ("ij-amg-pcg", "ij", ["-solver", "1", "-n", "60", "60", "60"], 1e-8),
    ("ij-amg", "ij", ["-n", "40", "40", "40", "-pmis1", "-Pmx", "0", "-rlx", "0", "-xisone"], 1e-8),
    ("ij-amg-gmres", "ij", ["-solver", "3", "-rhsrand", "-n", "40", "40", "40"], 1e-8),
    ("ij-sysamg", "ij", ["-n", "20", "20", "20", "-sysL", "2", "-nf", "2"], 1e-8),
    ("ij-parasails-pcg", "ij", ["-solver", "8", "-n", "30", "30", "30"], 1e-8),
    ("ij-euclid-pcg", "ij", ["-solver", "43", "-n", "30", "30", "30"], 1e-8),
    ("ij-pilut-gmres", "ij", ["-solver", "7", "-n", "30", "30", "30"], 1e-8),
    ("struct-smg", "struct", ["-n", "30", "30", "30", "-solver", "0"], 1e-6),
    ("struct-pfmg", "struct", ["-n", "40", "40", "40", "-solver", "1"], 1e-6),
    ("struct-pfmg-pcg", "struct", ["-n", "40", "40", "40", "-solver", "11"], 1e-6),
    ("struct-sparsemsg", "struct", ["-n", "30", "30", "30", "-solver", "3"], 1e-6),
]
# sstruct.in.default: 3 parts, 2 variables; -r refines each box
SSTRUCT_INPUT = "sstruct.in.default"
SSTRUCT_CASES = [
    ("sstruct-syspfmg-pcg", "sstruct", ["-r", "3", "3", "3", "-solver", "11"], 1e-6),
    ("sstruct-amg-pcg", "sstruct", ["-r", "3", "3", "3", "-solver", "28"], 1e-6),
]


def proc_grid(n):
    """px <= py <= pz with px*py*pz == n, as even as the prime factors allow."""
    dims, m, primes, p = [1, 1, 1], n, [], 2
    while m > 1:
        while m % p == 0:
            primes.append(p)
            m //= p
        p += 1
    for p in sorted(primes, reverse=True):
        dims[dims.index(min(dims))] *= p
    return sorted(dims)


def programs():
    return ["ij", "struct", "sstruct"]


def build(src: Path, out: Path, tc, log):
    env = tc.env()
    hsrc = src / "src"
    bdir = hsrc / "cmbuild"  # hypre's documented build directory (in-source builds are refused)

    def step(what, cmd):
        t0 = time.monotonic()
        run_checked(cmd, log, cwd=bdir, env=env)
        log(f"{what}: {time.monotonic() - t0:.1f} s")

    bdir.mkdir(exist_ok=True)
    step("cmake", ["cmake", "-S", hsrc, "-B", bdir, *CMAKE_OPTS, *tc.cmake_args()])
    step("build HYPRE", ["cmake", "--build", bdir, "-j", JOBS, "--target", "HYPRE"])
    for prog in programs():
        step(f"build {prog}", ["cmake", "--build", bdir, "-j", JOBS, "--target", prog])
        built = bdir / "test" / tc.program("", prog).name  # ij or ij.wasm
        dest = tc.program(out, prog)
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(built, dest)
    shutil.copy2(hsrc / "test" / "TEST_sstruct" / SSTRUCT_INPUT, out / "bin" / SSTRUCT_INPUT)


_ITERS = re.compile(r"^\s*(?:\w+ )?Iterations = (\d+)\s*$", re.M)
_RESID = re.compile(r"^\s*Final (?:\w+ )?Relative Residual Norm = (\S+)\s*$", re.M)


def _parse(stdout):
    """(iterations, residual text) of the driver's last solve, or None."""
    its, res = _ITERS.findall(stdout), _RESID.findall(stdout)
    if not its or not res:
        return None
    return int(its[-1]), res[-1]


def _checker(tol):
    def result(stdout, stderr):
        got = _parse(stdout)
        if got is None:
            return False, ""
        its, res = got
        try:
            r = float(res)
        except ValueError:
            return False, f"{its} it, rel. residual {res}"
        return (math.isfinite(r) and r <= tol), f"{its} it, rel. residual {res}"
    return result


_SUMMARY = re.compile(r"^(\d+) it, rel\. residual (\S+)$")


def _same(native, wasm):
    """Same iteration count; residuals equal to the printed precision."""
    if native == wasm:
        return True
    n, w = _SUMMARY.match(native), _SUMMARY.match(wasm)
    if not n or not w or n.group(1) != w.group(1):
        return False
    try:
        rn, rw = float(n.group(2)), float(w.group(2))
    except ValueError:
        return False
    return abs(rn - rw) <= 2e-6 * max(abs(rn), abs(rw))


def _tests(cases, extra=None):
    tests = []
    for name, prog, args, tol in cases:
        for ranks in RANKS:
            kw = dict(extra or {})
            if prog == "sstruct":
                kw["files"] = [Path("bin") / SSTRUCT_INPUT]
            tests.append(Test(name=name, program=prog, args=[*args, "-P", *map(str, proc_grid(ranks))],
                              result=_checker(tol), ranks=(ranks,), timeout=300, same=_same, **kw))
    return tests


TESTS = _tests(CASES) + _tests(SSTRUCT_CASES)
