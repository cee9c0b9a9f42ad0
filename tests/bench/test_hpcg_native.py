"""HPCG-style benchmark (benchmarks/hpcg): native build and runs on 1, 2 and 4
ranks with a tiny problem, rank-count independence of the unpreconditioned
CG, and a wasm32-wasi build with toolchain/bin/wasm-mpicc (not run: the
embedder does not provide every MPI function it imports yet)."""
import os
import re
import subprocess
from pathlib import Path

import pytest

from host_mpi import MPI, MPICC, MPIRUN, MPIRUN_FLAGS

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "benchmarks" / "hpcg"
SOURCES = ["hpcg.c", "geometry.c", "kernels.c", "cg.c"]
WASM_MPICC = ROOT / "toolchain" / "bin" / "wasm-mpicc"
TIMEOUT = 120
TINY = ["--nx", "16", "--ny", "16", "--nz", "16", "--iters", "1"]

# The MPI subset the benchmark may use (what the embedder will provide).
ALLOWED_MPI = {
    "MPI_Init", "MPI_Finalize", "MPI_Comm_rank", "MPI_Comm_size", "MPI_Send",
    "MPI_Recv", "MPI_Irecv", "MPI_Isend", "MPI_Wait", "MPI_Waitall",
    "MPI_Sendrecv", "MPI_Allreduce", "MPI_Bcast", "MPI_Barrier", "MPI_Wtime",
    "MPI_Abort",
}

SUMMARY = re.compile(
    r"^HPCG-style result: GFLOP/s=(?P<gflops>[0-9.]+) GB/s=(?P<gbs>[0-9.]+) "
    r"ranks=(?P<ranks>\d+) local=(?P<local>\d+x\d+x\d+) time=(?P<time>[0-9.]+) "
    r"sets=(?P<sets>\d+) validation=(?P<validation>PASSED|FAILED)"
    r"(?: procgrid=(?P<procgrid>\d+x\d+x\d+))?(?: global=(?P<glob>\d+x\d+x\d+))?",
    re.M)
UNPREC = re.compile(r"^CG unpreconditioned: iters=(\d+) reduction=(\S+) iters_to_1e-6=(\S+)", re.M)
CHECK_NAMES = {"spmv_symmetry", "mg_symmetry", "cg_convergence", "residual_reproducibility"}

pytestmark = pytest.mark.skipif(not (MPICC and MPIRUN), reason=f"mpicc.{MPI}/mpirun.{MPI} not installed")


@pytest.fixture(scope="module")
def hpcg(tmp_path_factory):
    out = tmp_path_factory.mktemp("hpcg") / "hpcg"
    subprocess.run([MPICC, "-std=c99", "-O3", "-Wall", "-o", str(out), *SOURCES, "-lm"],
                   cwd=SRC, check=True, timeout=TIMEOUT)
    return out


_runs = {}


def run(binary, np, args):
    """Run once per (np, args) in this module; returns the parsed output."""
    key = (np, tuple(args))
    if key not in _runs:
        p = subprocess.run([MPIRUN, *MPIRUN_FLAGS, "-np", str(np),
                            str(binary), *args],
                           capture_output=True, text=True, timeout=TIMEOUT)
        out = p.stdout
        assert p.returncode == 0, f"np={np} {args}: exit {p.returncode}\n{out}\n{p.stderr}"
        m = SUMMARY.search(out)
        assert m, f"no summary line:\n{out}"
        u = UNPREC.search(out)
        assert u, f"no unpreconditioned CG line:\n{out}"
        _runs[key] = {"out": out, "summary": m.groupdict(),
                      "unprec_iters": int(u.group(1)), "unprec_reduction": float(u.group(2)),
                      "unprec_iters_to_tol": u.group(3)}
    return _runs[key]


@pytest.mark.parametrize("np", [1, 2, 4])
def test_tiny_run_passes(hpcg, np):
    r = run(hpcg, np, TINY)
    checks = re.findall(r"^CHECK (\S+) .* (PASSED|FAILED)$", r["out"], re.M)
    assert {name for name, _ in checks} == CHECK_NAMES, r["out"]
    assert all(status == "PASSED" for _, status in checks), r["out"]
    s = r["summary"]
    assert s["validation"] == "PASSED"
    assert int(s["ranks"]) == np
    assert s["local"] == "16x16x16"
    assert int(s["sets"]) == 1
    assert float(s["gflops"]) > 0 and float(s["gbs"]) > 0 and float(s["time"]) > 0


# The process grid puts the largest factor on z (np=2: 1x1x2, np=4: 1x2x2),
# and global rows are numbered the same way for every decomposition, so one
# rank with the whole global grid and several ranks splitting it do the same
# unpreconditioned CG (only the order of the dot-product sums differs).  The
# preconditioned CG differs by design: SYMGS is local to each rank (block
# Jacobi between ranks), as in HPCG.
@pytest.mark.parametrize("np,procgrid,whole", [
    (2, "1x1x2", ["--nx", "16", "--ny", "16", "--nz", "32"]),
    (4, "1x2x2", ["--nx", "16", "--ny", "32", "--nz", "32"]),
])
def test_unpreconditioned_cg_independent_of_ranks(hpcg, np, procgrid, whole):
    split = run(hpcg, np, TINY)
    one = run(hpcg, 1, whole + ["--iters", "1"])
    assert split["summary"]["procgrid"] == procgrid
    assert split["summary"]["glob"] == one["summary"]["glob"]
    assert split["unprec_iters"] == one["unprec_iters"] == 50
    assert split["unprec_iters_to_tol"] == one["unprec_iters_to_tol"]
    a, b = split["unprec_reduction"], one["unprec_reduction"]
    assert a < 1e-6
    assert abs(a - b) <= 1e-5 * abs(b), (a, b)


def test_bad_arguments_fail(hpcg):
    for args in (["--nx", "12"], ["--bogus", "1"]):
        p = subprocess.run([MPIRUN, *MPIRUN_FLAGS, "-np", "1",
                            str(hpcg), *args], capture_output=True, text=True, timeout=TIMEOUT)
        assert p.returncode != 0, args


KERNEL_TIMES = re.compile(r"^kernel seconds in the timed sets \(rank 0\): SpMV ([0-9.]+) SymGS ([0-9.]+)$", re.M)


def test_kernel_times_only_when_asked(hpcg):
    """HPCG_KERNEL_TIMES adds the SpMV/SymGS line, within the benchmark's
    time; without it no timer runs and the line is absent."""
    args = ["--nx", "16", "--ny", "16", "--nz", "16", "--iters", "3"]
    env = {**os.environ, "HPCG_KERNEL_TIMES": "1"}
    timed = subprocess.run([MPIRUN, *MPIRUN_FLAGS, "-np", "1", str(hpcg), *args],
                           capture_output=True, text=True, timeout=TIMEOUT, env=env)
    assert timed.returncode == 0, timed.stdout + timed.stderr
    m = KERNEL_TIMES.search(timed.stdout)
    assert m, timed.stdout
    spmv, symgs = float(m.group(1)), float(m.group(2))
    total = float(SUMMARY.search(timed.stdout).group("time"))
    assert 0 < spmv and 0 < symgs and spmv + symgs <= total, (spmv, symgs, total)
    env.pop("HPCG_KERNEL_TIMES")
    plain = subprocess.run([MPIRUN, *MPIRUN_FLAGS, "-np", "1", str(hpcg), *args],
                           capture_output=True, text=True, timeout=TIMEOUT, env=env)
    assert plain.returncode == 0 and SUMMARY.search(plain.stdout), plain.stdout + plain.stderr
    assert not KERNEL_TIMES.search(plain.stdout), plain.stdout


def _wasm_imports(data):
    """(module, name) of every function import of a wasm binary."""
    def leb(i):
        result = shift = 0
        while True:
            byte = data[i]
            i += 1
            result |= (byte & 0x7F) << shift
            shift += 7
            if byte < 0x80:
                return result, i
    assert data[:8] == b"\0asm\x01\0\0\0"
    i, imports = 8, []
    while i < len(data):
        section, i = data[i], i + 1
        size, i = leb(i)
        if section == 2:
            j = i
            count, j = leb(j)
            for _ in range(count):
                n, j = leb(j)
                module = data[j:j + n].decode()
                j += n
                n, j = leb(j)
                name = data[j:j + n].decode()
                j += n
                kind, j = data[j], j + 1
                assert kind == 0, f"non-function import {module}.{name}"
                _, j = leb(j)
                imports.append((module, name))
        i += size
    return imports


def test_wasm_build(tmp_path):
    if not WASM_MPICC.exists():
        pytest.skip("toolchain/bin/wasm-mpicc missing")
    if subprocess.run([str(WASM_MPICC), "--version"], capture_output=True).returncode != 0:
        pytest.skip("no clang for wasm32-wasi")
    out = tmp_path / "hpcg.wasm"
    p = subprocess.run([str(WASM_MPICC), "-std=c99", "-O3", "-o", str(out), *SOURCES, "-lm"],
                       cwd=SRC, capture_output=True, text=True, timeout=TIMEOUT)
    if p.returncode != 0 and "wasm32" in p.stderr and "not found" in p.stderr:
        pytest.skip(f"wasm toolchain incomplete: {p.stderr.strip()}")
    assert p.returncode == 0, p.stderr
    mpi = {name for module, name in _wasm_imports(out.read_bytes()) if module == "env"}
    assert mpi and mpi <= ALLOWED_MPI, sorted(mpi - ALLOWED_MPI)
