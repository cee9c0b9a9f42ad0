"""Bad arguments to the topology family give MPI error classes, not crashes."""
import pytest

from conftest import PROGRAMS
from test_families import failed_expects


@pytest.mark.parametrize("np", [1, 2])
def test_bad_topology_arguments_return_error_classes(build, run_wasm, np):
    r = run_wasm(build.wasm(PROGRAMS / "topo_faults.c"), np=np, timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr
    lines = r.stdout.splitlines()
    assert len(lines) == 44 and all(line.endswith(" ok") for line in lines), r.stdout + r.stderr
    assert not failed_expects(r.stderr), r.stderr
    assert "panicked" not in r.stderr
    assert "Graph_neighbors wrote" not in r.stderr, r.stderr  # host bytes reached the guest


def test_bad_neighbor_buffer_is_fatal_by_default(build, run_wasm):
    r = run_wasm(build.wasm(PROGRAMS / "topo_faults.c"), "fatal", np=2, timeout=60)
    assert r.returncode != 0
    assert "MPI_Neighbor_alltoall: MPI_ERR_BUFFER" in r.stderr, r.stderr
    assert "unexpected return" not in r.stdout
    assert "panicked" not in r.stderr and "Segmentation fault" not in r.stderr
