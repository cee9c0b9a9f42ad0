"""The MPI families, each exercised by a self-checking C program built with
wasm-mpicc and with the host mpicc: same output, every check ok, on odd and
even rank counts. A rank's failed EXPECT (a `file.c:line:` line on stderr)
fails the test even if the job-wide verdict, computed with our own
MPI_Allreduce, missed it."""
import re

import pytest

from conftest import PROGRAMS

FAILED_EXPECT = re.compile(r"^\S+\.[ch]:\d+: ", re.M)


def failed_expects(stderr):
    return FAILED_EXPECT.findall(stderr)

FAMILIES = ["p2p", "coll", "comm", "topo", "datatype", "op", "attr", "errhandler", "mpi1"]


@pytest.mark.parametrize("np", [1, 2, 3, 4, 8])
@pytest.mark.parametrize("family", FAMILIES)
def test_family_matches_native(build, run_wasm, run_native, family, np):
    src = PROGRAMS / f"{family}.c"
    native = run_native(build.native(src), np=np, timeout=180)
    wasm = run_wasm(build.wasm(src), np=np, timeout=180)
    assert native.returncode == 0, native.stdout + native.stderr
    assert wasm.returncode == 0, wasm.stdout + wasm.stderr
    assert not failed_expects(native.stderr), native.stderr
    assert not failed_expects(wasm.stderr), wasm.stderr
    lines = wasm.stdout.splitlines()
    assert lines and all(line.endswith(" ok") for line in lines), wasm.stdout
    assert wasm.stdout == native.stdout
