"""Uncommitted datatypes and oversized type constructors get error classes
instead of reaching the host MPI (which crashed on both)."""
from conftest import PROGRAMS

CASES = ["send uncommitted", "mrecv uncommitted", "pack_external_size uncommitted", "pack uncommitted",
         "bcast uncommitted", "mrecv committed", "pack_external_size committed", "hindexed_block too many blocks"]


def test_uncommitted_types_and_huge_constructors_are_refused(build, run_wasm):
    r = run_wasm(build.wasm(PROGRAMS / "uncommitted.c"), np=2, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    for case in CASES:
        assert r.stdout.count(f"{case} ok") == 2, f"{case}:\n{r.stdout}\n{r.stderr}"
    assert "FAILED" not in r.stdout
