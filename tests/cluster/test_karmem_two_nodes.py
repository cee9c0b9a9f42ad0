"""Karmem regions on two nodes (benchmarks/twonode/netns.py: two network
namespaces on this machine, started by one Open MPI mpirun through
benchmarks/twonode/node-exec, as tests/cluster/test_two_nodes.py does):
a region per node (MPI_Comm_split_type SHARED), MPI between the nodes.

- tests/cluster/programs/karmem_nodes.c: node sums of a partitioned region,
  reduced across the node leaders straight into a read-only region, and a
  counter passed round an owned region: the same results on 1 node x 4
  ranks and on 2 nodes x 2 ranks, equal to what this file computes.
- examples/karmem/particles.c (the N-body example, its header made from
  particles.km by karmem-gen): the same checksum on 1 x 4, 2 x 2 and 1 x 1.
- A region opened on MPI_COMM_WORLD across the two nodes is refused with
  MPI_ERR_COMM at every rank (the job going on), and under
  MPI_ERRORS_ARE_FATAL with a message that says why; on one node the same
  call succeeds.

Open MPI only: MPICH over UCX's TCP hangs in MPI_Finalize in about one
two-node run in three, natively too (test_two_nodes.py's
test_mpich_nodes_share_no_memory says why)."""
import re
import shutil
import sys
from pathlib import Path

import pytest

from twonode_harness import (  # noqa: F401  (fixtures are used by name)
    ROOT, cache, e2e, embedder, nodes, openmpi, openmpi_across, run, run_on_a,
)

PROGRAM = Path(__file__).resolve().parent / "programs" / "karmem_nodes.c"
PARTICLES = ROOT / "examples" / "karmem"
KARMEM_GEN = ROOT / "toolchain" / "bin" / "karmem-gen"
BTL = ["--mca", "btl", "self,vader,tcp"]
PARTICLE_ARGS = ["10", "1024"]  # steps, particles: a few seconds

CELLS = 4096
M64 = (1 << 64) - 1


# -- expected values (karmem_nodes.c's arithmetic) --------------------------------

def mix(x):
    x ^= x >> 33
    x = (x * 0xFF51AFD7ED558CCD) & M64
    x ^= x >> 33
    x = (x * 0xC4CEB9FE1A85EC53) & M64
    x ^= x >> 33
    return x


def expected_result(np):
    totals = [sum(mix(r * CELLS + i) for r in range(np)) & M64 for i in range(CELLS)]
    h = 0x9E3779B97F4A7C15
    for i, v in enumerate(totals):
        h = (mix(h ^ v) + i) & M64
    relay = sum((r + 1) ** 2 for r in range(np))
    return {r: f"totals={h:016x} relay={relay} epoch=1" for r in range(np)}


# -- fixtures -------------------------------------------------------------------

@pytest.fixture(scope="module")
def modules(tmp_path_factory, openmpi, embedder, cache):
    """karmem_nodes.wasm and particles.wasm (its header made by karmem-gen
    from the schema, beside a copy of the source), compiled into the cache
    here so that no run's ranks race to."""
    out = tmp_path_factory.mktemp("build-karmem")
    nodes_wasm = e2e.Builder(out, openmpi).wasm(PROGRAM)
    src = out / "particles"
    src.mkdir()
    for f in ("particles.c", "particles.km"):
        shutil.copy(PARTICLES / f, src / f)
    r = run([sys.executable, KARMEM_GEN, src / "particles.km", "-o", src / "particles.h"])
    assert r.returncode == 0, r.stderr
    particles_wasm = src / "particles.wasm"
    r = run([e2e.WASM_MPICC, "-std=c11", "-O2", "-o", particles_wasm, src / "particles.c", "-lm"], timeout=120)
    assert r.returncode == 0, r.stderr
    for module in (nodes_wasm, particles_wasm):
        r = run([embedder, "--cache-dir", cache, "compile", module], timeout=120)
        assert r.returncode == 0, r.stderr
    return {"nodes": nodes_wasm, "particles": particles_wasm}


# -- running --------------------------------------------------------------------

def one_node(openmpi, embedder, cache, module, *args, np=4):
    return run(openmpi.cmd(np, *BTL, embedder, "--cache-dir", cache, module, *args))


def two_nodes(nodes, openmpi, embedder, cache, module, *args):
    """2 + 2 ranks, node A first (mpirun fills A, then B)."""
    argv = [embedder, "--cache-dir", cache, module, *args]
    return run_on_a(nodes, openmpi_across(nodes, openmpi, 2, argv, *BTL, "--display-map"))


def ok(r, what):
    assert r.returncode == 0, f"{what} failed ({r.returncode}):\nstdout:\n{r.stdout}\nstderr:\n{r.stderr}"
    assert "panicked" not in r.stderr and "Segmentation fault" not in r.stderr, r.stderr
    return r.stdout


def two_procs_per_node(nodes, stdout):
    """--display-map: two ranks on each node."""
    for node in nodes.names:
        assert re.search(rf"Data for node: {re.escape(node)}\s+Num slots: \d+\s+Max slots: \d+\s+Num procs: 2",
                         stdout), stdout


def parse(stdout, np=4):
    """({rank: (node rank, node size, nodes, host)}, {rank: result}, {rank: first node size})"""
    where = {int(r): (int(nr), int(ns), int(n), host)
             for r, nr, ns, n, host in re.findall(r"^node (\d+) (\d+) (\d+) (\d+) (\S+)$", stdout, re.M)}
    results = {int(r): rest for r, rest in re.findall(r"^result (\d+) (.*)$", stdout, re.M)}
    bcast = {int(r): int(n) for r, n in re.findall(r"^bcast (\d+) first-node-size=(\d+)$", stdout, re.M)}
    for found in (where, results, bcast):
        assert sorted(found) == list(range(np)), stdout
    return where, results, bcast


# -- tests ----------------------------------------------------------------------

def test_regions_per_node_and_mpi_between_give_one_answer(nodes, openmpi, embedder, cache, modules):
    """The same numbers on 1 node x 4 ranks and on 2 nodes x 2 ranks, equal
    to the ones computed here; on two nodes each node's ranks form one node
    communicator of 2 (so each node had its own regions) and the leaders'
    MPI_Bcast carried node A's size to node B."""
    want = expected_result(4)

    where, results, bcast = parse(ok(one_node(openmpi, embedder, cache, modules["nodes"]), "one node"))
    assert {w[1:3] for w in where.values()} == {(4, 1)}, where
    assert sorted(w[0] for w in where.values()) == [0, 1, 2, 3]
    assert results == want
    assert set(bcast.values()) == {4}

    out = ok(two_nodes(nodes, openmpi, embedder, cache, modules["nodes"]), "two nodes")
    two_procs_per_node(nodes, out)
    where, results, bcast = parse(out)
    a, b = nodes.names
    assert where == {0: (0, 2, 2, a), 1: (1, 2, 2, a), 2: (0, 2, 2, b), 3: (1, 2, 2, b)}, where
    assert results == want
    assert set(bcast.values()) == {2}


def test_particles_example_same_checksum_on_one_and_two_nodes(nodes, openmpi, embedder, cache, modules):
    """examples/karmem/particles.c: one read-only region of all particles per
    node, the leaders exchanging their nodes' blocks each step: 1 x 4, 2 x 2
    and 1 x 1 end with the same checksum, bit for bit."""
    def checksum(stdout):
        found = re.findall(r"^checksum (\S+)$", stdout, re.M)
        assert len(found) == 1 and "disagree" not in stdout, stdout
        return found[0]

    args = PARTICLE_ARGS
    single = checksum(ok(one_node(openmpi, embedder, cache, modules["particles"], *args, np=1), "1 x 1"))
    four = checksum(ok(one_node(openmpi, embedder, cache, modules["particles"], *args), "1 x 4"))
    out = ok(two_nodes(nodes, openmpi, embedder, cache, modules["particles"], *args), "2 x 2")
    two_procs_per_node(nodes, out)
    assert checksum(out) == four == single
    assert float(four) < 0  # a bound system: a real energy, not a default


def test_region_across_two_nodes_is_refused(nodes, openmpi, embedder, cache, modules):
    """karmem_open on MPI_COMM_WORLD: on one node a region; across two nodes
    MPI_ERR_COMM at every rank, the handle untouched, the job going on
    (an MPI_Allreduce after it); under MPI_ERRORS_ARE_FATAL the job ends
    with the reason and the advice."""
    def spans(stdout):
        got = dict(re.findall(r"^span (\d+) (\S+ handle=\S+)$", stdout, re.M))
        after = re.findall(r"^span (\d+) after 4$", stdout, re.M)
        assert sorted(map(int, after)) == [0, 1, 2, 3], stdout
        return {int(r): v for r, v in got.items()}

    out = ok(one_node(openmpi, embedder, cache, modules["nodes"], "span"), "one node")
    assert spans(out) == {r: "MPI_SUCCESS handle=set" for r in range(4)}

    out = ok(two_nodes(nodes, openmpi, embedder, cache, modules["nodes"], "span"), "two nodes")
    assert spans(out) == {r: "MPI_ERR_COMM handle=unchanged" for r in range(4)}

    r = two_nodes(nodes, openmpi, embedder, cache, modules["nodes"], "span-fatal")
    assert r.returncode != 0, r.stdout + r.stderr
    assert "span " not in r.stdout, r.stdout
    reason = ("karmem_open: MPI_ERR_COMM: Karmem region 'spanning': the communicator's 4 ranks are not all on one "
              "node (this node has 2 of them); use MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)")
    assert reason in r.stderr, r.stderr
