"""What the two-node tests share: the namespaces (benchmarks/twonode/netns.py),
tests/e2e/conftest.py's harness loaded by path (a conftest's contents are
visible only to the tests below its own directory), the fixtures, and
running commands on this machine or on node A with a timeout that fails the
test instead of hanging it. Test modules import the fixtures by name."""
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks" / "twonode"))
import netns  # noqa: E402  benchmarks/twonode/netns.py

_spec = importlib.util.spec_from_file_location("e2e_harness", ROOT / "tests" / "e2e" / "conftest.py")
e2e = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(e2e)

TIMEOUT = 60  # a run takes seconds; a hang fails within the ~2 minutes budgeted


@pytest.fixture(scope="module")
def nodes():
    try:
        with netns.TwoNodes() as two:
            yield two
    except netns.NamespacesUnavailable as e:
        pytest.skip(str(e))


@pytest.fixture(scope="module")
def openmpi():
    return e2e.Mpi("openmpi")


@pytest.fixture(scope="module")
def mpich():
    return e2e.Mpi("mpich")


@pytest.fixture(scope="module")
def embedder():
    if not e2e.EMBEDDER.exists():
        pytest.fail(f"{e2e.EMBEDDER} is missing: run `make build` first")
    return e2e.EMBEDDER


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return tmp_path_factory.mktemp("cache")


def run(cmd, timeout=TIMEOUT):
    """A command on this machine (one node: the root namespaces)."""
    try:
        return subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as e:
        pytest.fail(f"timed out after {timeout}s: {' '.join(map(str, cmd))}\nstdout: {e.stdout}\nstderr: {e.stderr}")


def run_on_a(nodes, cmd, timeout=TIMEOUT):
    """A launcher on node A; on a timeout everything in both nodes is killed."""
    try:
        return nodes.run(nodes.names[0], [str(c) for c in cmd], timeout=timeout)
    except subprocess.TimeoutExpired as e:
        pytest.fail(f"timed out after {timeout}s: {' '.join(map(str, cmd))}\nstdout: {e.stdout}\nstderr: {e.stderr}")


def openmpi_across(nodes, mpi, per_node, argv, *opts):
    a, b = nodes.names
    return [mpi.mpirun, *mpi.flags, "--mca", "plm_rsh_agent", netns.NODE_EXEC, *opts,
            "-H", f"{a}:{per_node},{b}:{per_node}", "-np", 2 * per_node, *argv]


def mpich_across(nodes, mpi, per_node, argv, *opts):
    a, b = nodes.names
    return [mpi.mpirun, "-launcher", "ssh", "-launcher-exec", netns.NODE_EXEC, *opts,
            "-hosts", f"{a}:{per_node},{b}:{per_node}", "-np", 2 * per_node, *argv]
