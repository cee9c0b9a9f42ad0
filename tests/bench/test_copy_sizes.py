"""benchmarks/imb/copy_sizes.py: its ratios, and the Open MPI sizes it
compares against being the ones the embedder's replace."""
import math
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks" / "imb"))

import copy_sizes  # noqa: E402


def test_ratios_are_geometric_means_of_median_times_over_native():
    times = {
        ("native", "Sendrecv", 0): [1.0, 1.0, 9.0],  # median 1
        ("native", "Sendrecv", 8): [2.0],
        ("native", "Bcast", 0): [0.0],  # no ratio to a zero time
        ("wasm", "Sendrecv", 0): [2.0, 2.0, 0.1],  # median 2
        ("wasm", "Sendrecv", 8): [8.0],
        ("wasm", "Bcast", 0): [5.0],
        ("wasm", "Gather", 0): [5.0],  # no native time
    }
    r = copy_sizes.ratios(times)
    assert set(r) == {"wasm"} and set(r["wasm"]) == {"Sendrecv", "all"}
    assert math.isclose(r["wasm"]["Sendrecv"], math.sqrt(2 * 4))
    assert math.isclose(r["wasm"]["all"], math.sqrt(2 * 4))


def test_the_open_mpi_sizes_are_of_the_parameters_the_embedder_sets():
    # CONTAINED_TRANSPORTS is checked against the embedder's source
    # (test_runner.py); its shared-memory sizes are the ones replaced here
    sizes = {k for k in copy_sizes.CONTAINED_TRANSPORTS if k.startswith("OMPI_MCA_btl_vader_")}
    sizes.discard("OMPI_MCA_btl_vader_single_copy_mechanism")
    assert set(copy_sizes.OPEN_MPI_SIZES) == sizes
    assert all(copy_sizes.OPEN_MPI_SIZES[k] != copy_sizes.CONTAINED_TRANSPORTS[k] for k in sizes)
    kinds = copy_sizes.kinds(Path("embedder"), Path("cache"))
    assert kinds["native-contained"][0] == copy_sizes.CONTAINED_TRANSPORTS
    assert kinds["wasm-ompi"][0] == copy_sizes.OPEN_MPI_SIZES and kinds["wasm"][0] == {}
