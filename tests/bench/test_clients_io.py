"""CI forms of the MPI-IO client suite and the I/O benchmark: ROMIO's own
tests (benchmarks/external/romio.py --quick) and the throughput benchmark
(benchmarks/io/run.py --quick), each on the host MPI under test. The full
runs and their figures are in benchmarks/external/README.md and
benchmarks/io/README.md."""
import csv
import subprocess
import sys
from pathlib import Path

from host_mpi import MPI

ROOT = Path(__file__).resolve().parents[2]
ROMIO = ROOT / "benchmarks" / "external" / "romio.py"
IO = ROOT / "benchmarks" / "io" / "run.py"


def test_romio_quick_passes_as_natively(tmp_path):
    """Every test of the quick subset passes natively and under the embedder
    (the run exits 1 if a test passes natively and not in wasm)."""
    p = subprocess.run([sys.executable, str(ROMIO), "--quick", "--mpi", MPI, "--out", str(tmp_path)],
                       capture_output=True, text=True, timeout=1500)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    rows = list(csv.DictReader(open(tmp_path / "results.csv")))
    assert len(rows) == 8, rows
    for r in rows:
        assert r["native_pass"] == "1" and r["wasm_pass"] == "1", r
    for r in rows:  # the logs hold the real runs: the embedder ran the module
        log = (tmp_path / "logs" / f"{r['test']}.wasm.txt").read_text()
        assert "embedder" in log.splitlines()[0] and ".wasm" in log.splitlines()[0]
        assert " No Errors" in log


def test_io_benchmark_quick_reports_both_builds(tmp_path):
    """The quick throughput run completes, checks every read, and reports a
    wasm/native ratio for every POSIX size and every MPI-IO configuration."""
    p = subprocess.run([sys.executable, str(IO), "--quick", "--mpi", MPI, "--out", str(tmp_path)],
                       capture_output=True, text=True, timeout=1500)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    rows = list(csv.DictReader(open(tmp_path / "io_summary.csv")))
    posix = {(r["op"], int(r["size"])) for r in rows if r["part"] == "posix"}
    sizes = {1, 16, 256, 4096, 65536, 1 << 20, 16 << 20}
    assert posix == {(op, s) for op in ("write", "read") for s in sizes}
    mpiio = {(r["op"], r["mode"], int(r["ranks"])) for r in rows if r["part"] == "mpiio"}
    assert mpiio >= {(op, mode, n) for op in ("write", "read") for mode in ("indep", "coll") for n in (1, 2)}
    for r in rows:
        assert float(r["native_MB_s"]) > 0 and float(r["wasm_MB_s"]) > 0, r
        ratio = float(r["wasm_over_native"])
        assert abs(ratio - float(r["wasm_MB_s"]) / float(r["native_MB_s"])) < 1e-6 * ratio
