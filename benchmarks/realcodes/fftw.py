"""FFTW 3.3.10's MPI interface (libfftw3_mpi) and its own MPI test program,
mpi/mpi-bench, verified as `make check` in mpi/ does.

Built (autotools, FFTW's own configure and Makefiles, sources unedited), the
same way for both flavours:

    ./configure --enable-mpi --disable-fortran --disable-shared --disable-doc
    make -C support; make -C kernel; ... (simd-support dft rdft reodft api)
    make libfftw3.la; make -C libbench2; make -C mpi mpi-bench

with CC=MPICC=the flavour's MPI compiler (native: mpicc.openmpi; wasm:
toolchain/bin/wasm-mpicc plus AR/RANLIB llvm-ar/llvm-ranlib and --host
from the Toolchain). Only what mpi-bench needs is built: no threads/OpenMP,
no tests/bench, tools/ or doc/. Double precision, no SIMD codelets (FFTW's
default: neither --enable-sse2 nor --enable-generic-simd128), FFTW's own
CFLAGS (gcc: -O3 -fomit-frame-pointer -mtune=native -malign-double
-fstrict-aliasing -fno-schedule-insns; clang: -O3 -fomit-frame-pointer
-mtune=native -fstrict-aliasing, -mtune ignored for wasm).

Build changes beyond the compiler: none to the sources or Makefiles. The
wasm configure gets the toolchain's cross-compiling arguments
(common.Toolchain.configure_args: --host=wasm32-wasi and
ac_cv_host=wasm32-unknown-wasi, which the tarball's 2018 config.sub needs:
it predates the wasi OS and rejects wasm32-wasi). FFTW needs no WASI
emulation library and no compat function. Without a cycle counter on wasm
(kernel/cycle.h has none for wasm32) configure says "FFTW will use ESTIMATE
mode": the default FFTW_MEASURE planning cannot time plans and picks them by
estimate, whereas native measures; results agree to rounding either way.

Tests: mpi-bench --verbose=1 --verify PROBLEM ... over a fixed list of
problems. For each problem mpi-bench (libbench2's verify) checks the
distributed transform against its own reference on random inputs
(linearity, impulse response and time/frequency shift tests, relative error
tolerance from the precision) and prints "PROBLEM err_l err_i err_s"; a
failed check prints "Found relative error ..." and exits 1. The problem
lists are what mpi/Makefile.am's check-local (CHECKOPTS = --verbose --random
--maxsize=10000 -c=10, as run per rank count by `make check`) makes
tests/check.pl generate, with Perl's rand seeded so the lists are fixed:

    perl -e 'srand(SEED); @ARGV=("--verbose","--random","--maxsize=10000",
             "-c=10","--mpi","printf %s\\n"); do "./tests/check.pl"'

seed 1 -> check-1 (44 problems), seed 3 -> check-3 (56 problems): complex,
real (r2c/c2r) and r2r (DCT/DST/DHT) transforms of rank 2-4, in and out of
place, forward and backward, with vector loops, including the MPI
transposed-in ("[") and transposed-out ("]") layouts. These run with mpi-bench's
default planner flags, as check.pl does (FFTW_MEASURE: natively plans are
timed, on wasm chosen by estimate, see above), so their times compare
different planning. A third test, large, verifies five larger problems
(48000-57600 points, within bigcheck's CHECKSIZE=60000: 3-d complex, 2-d
r2c/c2r transposed in/out, 2-d r2r) with -o estimate on both flavours:
the same planner mode, and compute- rather than startup-bound, so its time
ratio is the meaningful one. A run passes when it exits 0 and every listed
problem is reported verified with finite errors.
Summary: "<verified>/<listed> verified; max err <e>"; native and wasm must
agree on the count. The errors themselves differ in the last digits: the
twiddle factors come from the C library's cos/sin, and glibc's and
wasi-libc's differ in the last bit for some arguments (even with -o
estimate, where the plans are the same); with the default flags the plans
differ too.
"""
import math
import re
import shutil
import time
from pathlib import Path

from common import JOBS, Test, run_checked

SOURCE = "fftw3"
BUILD_SYSTEM = "autotools"
LANG = "C"
CHANGES = "none (the toolchain's cross-compiling configure arguments; ac_cv_host for FFTW's 2018 config.sub)"

CONFIGURE_OPTS = ["--enable-mpi", "--disable-fortran", "--disable-shared", "--disable-doc"]
# the convenience libraries of libfftw3.la, in the order of the top-level SUBDIRS
LIB_SUBDIRS = ["support", "kernel", "simd-support", "dft", "rdft", "reodft", "api"]


def build(src: Path, out: Path, tc, log):
    env = tc.env()

    def step(what, cmd):
        t0 = time.monotonic()
        run_checked(cmd, log, cwd=src, env=env)
        log(f"{what}: {time.monotonic() - t0:.1f} s")

    step("configure", ["./configure", *CONFIGURE_OPTS, *tc.configure_args()])
    for d in LIB_SUBDIRS:
        step(f"make -C {d}", ["make", f"-j{JOBS}", "-C", d])
    step("make libfftw3.la", ["make", f"-j{JOBS}", "libfftw3.la"])
    step("make -C libbench2", ["make", f"-j{JOBS}", "-C", "libbench2"])
    step("make -C mpi mpi-bench", ["make", f"-j{JOBS}", "-C", "mpi", "mpi-bench"])
    dest = tc.program(out, "mpi-bench")
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(src / "mpi" / "mpi-bench", dest)  # libtool links it in place (static, no wrapper script)


# check.pl --random ... --mpi, srand(1) and srand(3), and "large": see the docstring
PROBLEMS = {
    "check-1": """
okd12e10x6e01x8e11x9e00 ikd12e10x6e01x8e11x9e00 ok]4bx16bv18 ik]4bx16bv18 ofr]10x10x8x8
ifr]10x10x8x8 obc]10x10x8x8 ibc]10x10x8x8 ofc]10x10x8x8 ifc]10x10x8x8 okd]7e00x7e00v18
ikd]7e00x7e00v18 obr10x8v2 ibr10x8v2 ofr10x8v2 ifr10x8v2 obc10x8v2 ibc10x8v2 ofc10x8v2 ifc10x8v2
ofrd]36x30 ifrd]36x30 obcd]36x30 ibcd]36x30 ofcd]36x30 ifcd]36x30 okd[6e10x8o01x4e10x7e10
ikd[6e10x8o01x4e10x7e10 obrd[6x9x10 ibrd[6x9x10 obcd[6x9x10 ibcd[6x9x10 ofcd[6x9x10 ifcd[6x9x10
ok]8e00x4o00x7bx10o00 ik]8e00x4o00x7bx10o00 okd[3hx3o11x6o00x2h ikd[3hx3o11x6o00x2h ofrd]8x10v2
ifrd]8x10v2 obcd]8x10v2 ibcd]8x10v2 ofcd]8x10v2 ifcd]8x10v2
""".split(),
    "check-3": """
okd8o00x18o00x3o00 ikd8o00x18o00x3o00 obrd5x6x7 ibrd5x6x7 ofrd5x6x7 ifrd5x6x7 obcd5x6x7 ibcd5x6x7
ofcd5x6x7 ifcd5x6x7 ok12e11x7bv8 ik12e11x7bv8 ofr]8x8x13 ifr]8x8x13 obc]8x8x13 ibc]8x8x13
ofc]8x8x13 ifc]8x8x13 obr4x3x18 ibr4x3x18 ofr4x3x18 ifr4x3x18 obc4x3x18 ibc4x3x18 ofc4x3x18
ifc4x3x18 ok13o00x4o00v10 ik13o00x4o00v10 obrd3x8x8x9 ibrd3x8x8x9 ofrd3x8x8x9 ifrd3x8x8x9
obcd3x8x8x9 ibcd3x8x8x9 ofcd3x8x8x9 ifcd3x8x8x9 ok18e10x12e01v18 ik18e10x12e01v18 obrd[8x4x3x12
ibrd[8x4x3x12 obcd[8x4x3x12 ibcd[8x4x3x12 ofcd[8x4x3x12 ifcd[8x4x3x12 ok5e01x4e10x9e11x11e00
ik5e01x4e10x9e11x11e00 obr7x8x4v7 ibr7x8x4v7 ofr7x8x4v7 ifr7x8x4v7 obc7x8x4v7 ibc7x8x4v7 ofc7x8x4v7
ifc7x8x4v7 ok16o11x7bv9 ik16o11x7bv9
""".split(),
    "large": "ofc48x40x30 ibc]48x40x30 ofr]240x200 ibr[240x200 okd200e10x240o01".split(),
}
# mpi-bench options before the problems: check.pl's --verbose, and for "large" the same planner mode both ways
OPTIONS = {"check-1": ["--verbose=1"], "check-3": ["--verbose=1"], "large": ["--verbose=1", "-o", "estimate"]}

_VERIFIED = re.compile(r"^(\S+) (\S+) (\S+) (\S+)$")
_FAILURES = ("Found relative error", "assertion failed", "No can_do")


def _checker(problems):
    def result(stdout, stderr):
        errs = {}
        for line in stdout.splitlines():
            m = _VERIFIED.match(line.strip())
            if m and m.group(1) in problems:
                try:
                    errs[m.group(1)] = [float(x) for x in m.groups()[1:]]
                except ValueError:
                    pass
        good = [p for p in problems if p in errs and all(math.isfinite(e) for e in errs[p])]
        failed = any(f in stdout or f in stderr for f in _FAILURES)
        worst = max((max(errs[p]) for p in good), default=float("nan"))
        summary = f"{len(good)}/{len(problems)} verified; max err {worst:.1e}"
        return (len(good) == len(problems) and not failed), summary
    return result


def _same(native, wasm):
    """The verified counts must be equal; the errors differ in the last bits."""
    return native.split(";")[0] == wasm.split(";")[0]


TESTS = [
    Test(name=name, program="mpi-bench",
         args=OPTIONS[name] + [a for p in problems for a in ("--verify", p)],
         result=_checker(problems), ranks=(1, 2, 4), timeout=240, same=_same)
    for name, problems in PROBLEMS.items()
]
