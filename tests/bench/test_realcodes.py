"""benchmarks/realcodes: a real application built unmodified with its own
build system, natively and through the toolchain, its own tests run both
ways at 1, 2 and 4 ranks (--quick: the smallest application)."""
import csv
import json
import subprocess
import sys
from pathlib import Path

from host_mpi import MPI

ROOT = Path(__file__).resolve().parents[2]
REALCODES = ROOT / "benchmarks" / "realcodes" / "realcodes.py"


def test_quick_application_passes_as_natively(tmp_path):
    p = subprocess.run([sys.executable, str(REALCODES), "--quick", "--mpi", MPI, "--out", str(tmp_path)],
                       capture_output=True, text=True, timeout=2400)
    assert p.returncode == 0, p.stdout[-4000:] + p.stderr[-4000:]
    rows = list(csv.DictReader(open(tmp_path / "results.csv")))
    assert {int(r["ranks"]) for r in rows} == {1, 2, 4}
    assert len({r["test"] for r in rows}) >= 3, rows
    for r in rows:
        assert r["native_pass"] == "1" and r["wasm_pass"] == "1", r
    for r in rows:  # the logs hold the real runs: the embedder ran a module
        log = tmp_path / "logs" / f"{r['app']}.{r['test']}.np{r['ranks']}.wasm.txt"
        first = log.read_text().splitlines()[0]
        assert "embedder" in first and ".wasm" in first, first
        assert "/embedder" not in (tmp_path / "logs" / log.name.replace(".wasm.", ".native.")).read_text().splitlines()[0]
    meta = json.loads((tmp_path / "meta.json").read_text())
    assert all(b["native"] > 0 and b["wasm"] > 0 for b in meta["builds"].values())
    assert "| application |" in (tmp_path / "results.md").read_text()


def test_bad_arguments_are_refused(tmp_path):
    for args in (["--apps", "nosuchapp"], ["--ranks", "0"], ["--ranks", "two"]):
        p = subprocess.run([sys.executable, str(REALCODES), *args, "--out", str(tmp_path)],
                           capture_output=True, text=True, timeout=60)
        assert p.returncode == 2 and "error" in p.stderr, (args, p.stderr)
