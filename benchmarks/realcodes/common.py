"""What the real-code runs share: the two toolchains, builds cached outside
the clone, and runs of one program natively and under the embedder.

An application module (fftw.py, hypre.py, p4est.py) defines

    SOURCE        its key in benchmarks/external/fetch.py's SOURCES
    BUILD_SYSTEM  "autotools" or "cmake" (for the report)
    LANG          "C" or "C++"
    CHANGES       the build changes it needs beyond the compiler (report text)
    build(src, out, tc, log)
                  configure and build the freshly unpacked tree `src` with
                  Toolchain `tc`; put the programs the tests run in out/bin/
                  (tc.program(out, name) is the path each must have)
    TESTS         a list of Test

and nothing else: the driver (realcodes.py) fetches, builds both flavours
through build_cached(), runs every test natively and as wasm and compares.
"""
import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT / "benchmarks" / "external"))
sys.path.insert(0, str(ROOT / "benchmarks"))
from build import unpack  # noqa: E402
from fetch import SOURCES, fetch  # noqa: E402
from procs import first_line, run_logged  # noqa: E402

EMBEDDER = ROOT / "target" / "release" / "embedder"
TOOLCHAIN = ROOT / "toolchain"
CMAKE_TOOLCHAIN_FILE = TOOLCHAIN / "cmake" / "wasm32-wasi-mpi.cmake"
# Builds outlive the clone (CI clones afresh): keyed by the sources' hash,
# the application module and the toolchain, so a change to any rebuilds.
CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "mpi-wasm-embedder-realcodes"
MPIS = {  # name -> (mpicc, mpicxx, mpirun, mpirun options)
    "openmpi": ("mpicc.openmpi", "mpicxx.openmpi", "mpirun.openmpi", ["--allow-run-as-root", "--oversubscribe"]),
    "mpich": ("mpicc.mpich", "mpicxx.mpich", "mpirun.mpich", []),
}
JOBS = str(max(1, min(2, os.cpu_count() or 1)))


class SetupError(Exception):
    """Something the runs need is missing (a tool, the sources, a build)."""


@dataclass
class Test:
    """One run of a program. `result(stdout, stderr)` returns (ok, summary):
    ok when the program's own checks passed, summary what must be equal
    native and wasm (e.g. iteration count and residual; "" if nothing)."""
    name: str
    program: str
    args: list
    result: Callable
    ranks: tuple = (1, 2, 4)
    timeout: int = 300
    same: Callable = field(default=lambda native, wasm: native == wasm)
    # input files the program reads from its working directory, relative
    # to the build's out/ (build() puts them there); copied in before a run
    files: list = field(default_factory=list)


def _hash_files(paths):
    h = hashlib.sha256()
    for p in sorted(paths):
        h.update(str(p.relative_to(ROOT)).encode() + b"\0" + p.read_bytes())
    return h.hexdigest()


class Toolchain:
    """The compilers of one flavour: "native" (the host MPI's mpicc) or
    "wasm" (toolchain/bin/wasm-mpicc, run by the embedder over `mpi`)."""

    def __init__(self, flavour, mpi="openmpi"):
        self.flavour, self.mpi = flavour, mpi
        mpicc, mpicxx, self.mpirun, self.mpirun_opts = MPIS[mpi]
        for tool in (mpicc, self.mpirun):
            if not shutil.which(tool):
                raise SetupError(f"{tool} not found (needed for --mpi {mpi})")
        if flavour == "wasm":
            self.cc, self.cxx = str(TOOLCHAIN / "bin" / "wasm-mpicc"), str(TOOLCHAIN / "bin" / "wasm-mpicxx")
            # GNU ar cannot index wasm objects
            self.ar = shutil.which("llvm-ar-16") or "llvm-ar"
            self.ranlib = shutil.which("llvm-ranlib-16") or "llvm-ranlib"
        else:
            self.cc, self.cxx, self.ar, self.ranlib = mpicc, mpicxx, "ar", "ranlib"

    @property
    def name(self):
        return "wasm" if self.flavour == "wasm" else f"native-{self.mpi}"

    def env(self):
        """The environment for configure/cmake/make: the compilers as CC,
        CXX, MPICC, MPICXX, and an archiver that can index the objects."""
        return {**os.environ, "CC": self.cc, "CXX": self.cxx, "MPICC": self.cc, "MPICXX": self.cxx,
                "AR": self.ar, "RANLIB": self.ranlib}

    def configure_args(self):
        """What `./configure` needs beyond the compilers: wasm cross-compiles
        (toolchain/README.md, "Autotools"). --build with --host: configure
        then knows it cross-compiles even when a probe of another host
        compiler (a Fortran one) runs its test program. ac_cv_host:
        config.sub files older than 2019 reject the wasi OS; the canonical
        name is what a newer one answers."""
        if self.flavour != "wasm":
            return []
        build = first_line(["gcc", "-dumpmachine"])
        return [f"--build={build}", "--host=wasm32-wasi", "ac_cv_host=wasm32-unknown-wasi"]

    def cmake_args(self):
        if self.flavour == "wasm":
            return [f"-DCMAKE_TOOLCHAIN_FILE={CMAKE_TOOLCHAIN_FILE}",
                    f"-DCMAKE_AR={self.ar}", f"-DCMAKE_RANLIB={self.ranlib}"]
        return [f"-DCMAKE_C_COMPILER={self.cc}", f"-DCMAKE_CXX_COMPILER={self.cxx}",
                f"-DMPI_C_COMPILER={self.cc}", f"-DMPI_CXX_COMPILER={self.cxx}"]

    def program(self, out, name):
        """Where build() puts program `name`: out/bin/name, plus .wasm for wasm."""
        return Path(out) / "bin" / (name + (".wasm" if self.flavour == "wasm" else ""))

    def identity(self):
        """What the build depends on besides the sources: compiler versions,
        and for wasm every file of the toolchain and the guest header."""
        ident = {"cc": first_line([self.cc, "--version"]), "cxx": first_line([self.cxx, "--version"])}
        if self.flavour == "wasm":
            files = [p for p in TOOLCHAIN.rglob("*") if p.is_file() and "__pycache__" not in p.parts
                     and "lib" not in p.relative_to(TOOLCHAIN).parts[:1]]
            files += [p for p in (ROOT / "mpi-header").glob("*") if p.is_file()]
            ident["toolchain"] = _hash_files(files)
        return ident

    def run_cmd(self, out, test, ranks, cwd):
        prog = self.program(out, test.program)
        launch = [self.mpirun, *self.mpirun_opts, "-np", str(ranks)]
        if self.flavour == "wasm":
            return [*launch, str(EMBEDDER), "--mapdir", f"/:{cwd}", str(prog), *test.args]
        return [*launch, str(prog), *test.args]


def run_checked(cmd, log, cwd=None, env=None):
    """Run a build step; its output goes to the build log; failure raises."""
    log(f"$ {' '.join(map(str, cmd))}")
    p = subprocess.run([str(c) for c in cmd], cwd=cwd, env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, errors="replace")
    log(p.stdout, quiet=True)
    if p.returncode != 0:
        tail = "\n".join(p.stdout.splitlines()[-25:])
        raise SetupError(f"{cmd[0]} failed (exit {p.returncode}) in {cwd}:\n{tail}")
    return p.stdout


def build_cached(app, tc, log):
    """out/ of `app` built with `tc`, building it if no build with the same
    key exists: (out directory, seconds the build took, whether it was cached)."""
    src_info = SOURCES[app.SOURCE]
    identity = tc.identity()
    key = hashlib.sha256(json.dumps({
        "sha256": src_info["sha256"], "app": _hash_files([Path(app.__file__)]),
        "common": _hash_files([Path(__file__)]), "toolchain": identity,
    }, sort_keys=True).encode()).hexdigest()[:20]
    base = CACHE / app.SOURCE / tc.name
    out = base / key
    base.mkdir(parents=True, exist_ok=True)
    with open(base / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        stamp = out / "stamp.json"
        if stamp.exists():
            return out, json.loads(stamp.read_text())["seconds"], True
        for old in base.iterdir():  # another key's build: stale
            if old.is_dir():
                shutil.rmtree(old, ignore_errors=True)
        (out / "bin").mkdir(parents=True)
        build_log = open(out / "build.log", "w")

        def blog(text, quiet=False):
            build_log.write(text + "\n")
            build_log.flush()
            if not quiet:
                log(f"  [{app.SOURCE} {tc.name}] {text}")

        t0 = time.monotonic()
        unpack(fetch(app.SOURCE, log=log), out / "src")
        src = out / "src" / src_info["topdir"]
        try:
            app.build(src, out, tc, blog)
        except SetupError as e:
            build_log.write(f"\nFAILED: {e}\n")
            raise SetupError(f"{app.SOURCE} ({tc.name}) build failed; log: {out / 'build.log'}\n{e}") from e
        missing = [t.program for t in app.TESTS if not tc.program(out, t.program).is_file()]
        missing += [f for t in app.TESTS for f in t.files if not (out / f).is_file()]
        if missing:
            raise SetupError(f"{app.SOURCE} ({tc.name}): build made no {', '.join(sorted(set(missing)))}")
        seconds = round(time.monotonic() - t0, 1)
        shutil.rmtree(out / "src", ignore_errors=True)  # hundreds of MB; the log stays
        stamp.write_text(json.dumps({"seconds": seconds, "key": key, "toolchain": identity}, indent=1))
        return out, seconds, False


def warm(tc, out, programs, log_file):
    """Compile each wasm program once, so the ranks of its first run load it
    from the embedder's cache instead of all compiling it."""
    if tc.flavour != "wasm":
        return
    for name in sorted(set(programs)):
        rc, _, _, err = run_logged([EMBEDDER, "compile", tc.program(out, name)], ROOT, 1800, log_file,
                                      append=True)
        if rc != 0:
            raise SetupError(f"embedder compile {name} failed: {err.strip()[-300:]}")


def run_test(tc, out, test, ranks, workdir, log_file):
    """{"pass", "seconds", "summary", "why", "rc"} of one run in a fresh `workdir`."""
    workdir.mkdir(parents=True)
    for f in test.files:
        shutil.copy(Path(out) / f, workdir)
    rc, secs, stdout, stderr = run_logged(tc.run_cmd(out, test, ranks, workdir), workdir, test.timeout, log_file)
    ok, summary = test.result(stdout, stderr) if rc == 0 else (False, "")
    why = "" if ok else ("timeout" if rc is None else f"exit {rc}" if rc else "the program's check failed")
    return {"pass": bool(ok), "seconds": round(secs, 2), "summary": summary, "why": why, "rc": rc}
