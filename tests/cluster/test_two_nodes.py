"""Two nodes on one machine: 2 + 2 ranks in two network namespaces joined by
a veth pair (benchmarks/twonode/netns.py), started by one mpirun through an
ssh stand-in (benchmarks/twonode/node-exec), so the host MPI sees two hosts,
talks TCP between them and shared memory within each.

The checks: the ranks see two hosts with two ranks each; the numbers equal
those of the same program on one node, natively and under the embedder;
Open MPI's per-peer transport choice (from its own verbose output) is tcp
exactly between the nodes and vader exactly within them, and without tcp
the two-node job cannot run; MPICH (launched by Hydra through the same
node-exec) cannot reach the other node through shared memory; and an
IMB-style PingPong between the nodes runs natively and in wasm (figures
only checked for being there; benchmarks/twonode/run.py measures them)."""
import re
import sys
from collections import Counter
from pathlib import Path

import pytest

from twonode_harness import (  # noqa: F401  (fixtures are used by name)
    ROOT, TIMEOUT, cache, e2e, embedder, mpich, mpich_across, netns, nodes, openmpi, openmpi_across, run, run_on_a,
)

sys.path.insert(0, str(ROOT / "benchmarks"))
from parse import parse_imb  # noqa: E402  benchmarks/parse.py

PROGRAM = Path(__file__).resolve().parent / "programs" / "twonode.c"
IMB_SRC = ROOT / "benchmarks" / "imb" / "imb.c"
# Both transports Open MPI could use on a node, and TCP; vader also between
# nodes would be wrong, and the runs below show it is never chosen there.
BTL = ["--mca", "btl", "self,vader,tcp"]
# Short: the figures are not the point here. Yielding ranks: two spinning
# ones hold off the veth's receive work until the next scheduler tick on a
# 2-core machine (4 ms a message; benchmarks/twonode/run.py's yield_opts).
PINGPONG = ["-msglog", "0:16", "-iter", "100", "-time", "0.2", "PingPong"]
YIELD = ["--mca", "mpi_yield_when_idle", "1"]

_HOST = re.compile(r"^host (\d+) (\d+) (\S+)$", re.M)
_RESULT = re.compile(r"^result (\d+) (.*)$", re.M)
_BML = re.compile(r"mca: bml: Using (\w+) btl for send to \[\[\d+,\d+\],(\d+)\] on node (\S+)")


# -- fixtures -------------------------------------------------------------------

@pytest.fixture(scope="module")
def builds(tmp_path_factory, openmpi, mpich, embedder, cache):
    """The programs: native per MPI, wasm once (one module serves both), the
    modules compiled into the cache here so that no run's ranks race to."""
    ompi = e2e.Builder(tmp_path_factory.mktemp("build-openmpi"), openmpi)
    mpch = e2e.Builder(tmp_path_factory.mktemp("build-mpich"), mpich)
    out = {
        "twonode": {"openmpi": ompi.native(PROGRAM), "mpich": mpch.native(PROGRAM), "wasm": ompi.wasm(PROGRAM)},
        "imb": {"openmpi": ompi.native(IMB_SRC, "-lm"), "wasm": ompi.wasm(IMB_SRC, "-lm")},
    }
    for module in (out["twonode"]["wasm"], out["imb"]["wasm"]):
        r = run([embedder, "--cache-dir", cache, "compile", module])
        assert r.returncode == 0, r.stderr
    return out


# -- running --------------------------------------------------------------------

def program(kind, builds, name, embedder, cache):
    """argv of one rank: program `name` built natively with MPI `kind`
    ("openmpi", "mpich"), or the module under the embedder ("wasm")."""
    if kind == "wasm":
        return [embedder, "--cache-dir", cache, builds[name]["wasm"]]
    return [builds[name][kind]]


def ok(r, what):
    assert r.returncode == 0, f"{what} failed ({r.returncode}):\nstdout:\n{r.stdout}\nstderr:\n{r.stderr}"
    return r.stdout


# -- what the runs printed -----------------------------------------------------

def hosts(stdout, np=4):
    found = {int(r): (int(n), name) for r, n, name in _HOST.findall(stdout)}
    assert sorted(found) == list(range(np)), f"host lines for ranks {sorted(found)}:\n{stdout}"
    assert {n for n, _ in found.values()} == {np}
    return {r: name for r, (_, name) in found.items()}


def results(stdout, np=4):
    found = {int(r): line for r, line in _RESULT.findall(stdout)}
    assert sorted(found) == list(range(np)), f"result lines for ranks {sorted(found)}:\n{stdout}"
    return found


def assert_two_nodes(nodes, where):
    """2 + 2 ranks, on the two nodes, by rank order (mpirun fills A first)."""
    assert Counter(where.values()) == {nodes.names[0]: 2, nodes.names[1]: 2}, where
    assert [where[r] for r in range(4)] == [nodes.names[0]] * 2 + [nodes.names[1]] * 2


def transports(outdir, np=4):
    """{rank: {peer: btl}} from each rank's own stderr file (mpirun
    --output-filename), where Open MPI's bml names the btl it uses per peer."""
    out = {}
    for rank in range(np):
        files = list(Path(outdir).glob(f"*/rank.{rank}/stderr"))
        assert len(files) == 1, f"rank {rank}: stderr files {files}"
        out[rank] = {int(peer): btl for btl, peer, _ in _BML.findall(files[0].read_text())}
    return out


@pytest.fixture(scope="module")
def one_node(builds, openmpi, embedder, cache):
    """The reference: 4 ranks on this machine, natively and in wasm, which
    must agree with each other before anything is compared with them."""
    native = ok(run(openmpi.cmd(4, *BTL, *program("openmpi", builds, "twonode", embedder, cache))), "one node, native")
    wasm = ok(run(openmpi.cmd(4, *BTL, *program("wasm", builds, "twonode", embedder, cache))), "one node, wasm")
    assert len(set(hosts(native).values())) == 1
    assert results(native) == results(wasm)
    return results(native)


# -- tests ----------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["openmpi", "wasm"], ids=["native", "wasm"])
def test_openmpi_two_nodes_match_one_node(nodes, openmpi, builds, embedder, cache, one_node, kind, tmp_path):
    argv = program(kind, builds, "twonode", embedder, cache)
    cmd = openmpi_across(nodes, openmpi, 2, argv, *BTL, "--mca", "btl_base_verbose", "100",
                         "--output-filename", tmp_path / "out")
    stdout = ok(run_on_a(nodes, cmd), f"two nodes, {kind}")
    where = hosts(stdout)
    assert_two_nodes(nodes, where)
    assert results(stdout) == one_node

    # Each rank's transport to each peer, as Open MPI chose it: a change that
    # put both nodes' ranks on one node, or that let vader (or anything but
    # tcp) carry bytes between the namespaces, fails here.
    chosen = transports(tmp_path / "out")
    for rank, peers in chosen.items():
        expected = {peer: "self" if peer == rank else "vader" if where[peer] == where[rank] else "tcp"
                    for peer in range(4)}
        assert peers == expected, f"rank {rank} on {where[rank]}: btl per peer {peers}, expected {expected}"


def test_openmpi_two_nodes_need_tcp(nodes, openmpi, builds, embedder, cache):
    """Without tcp the nodes cannot reach each other: shared memory is not a
    path between them, so the two-node runs above did talk TCP."""
    cmd = openmpi_across(nodes, openmpi, 2, program("openmpi", builds, "twonode", embedder, cache),
                         "--mca", "btl", "self,vader")
    r = run_on_a(nodes, cmd)
    assert r.returncode != 0, f"ran without tcp across two nodes:\n{r.stdout}"
    assert "unable to reach each other" in r.stdout + r.stderr, r.stdout + r.stderr


def test_mpich_nodes_share_no_memory(nodes, mpich, builds, embedder, cache):
    """MPICH's UCX limited to shared memory cannot reach the other node (it
    would across network namespaces alone: netns.UNSHARE), so the nodes are
    two machines to MPICH as well. (No MPICH result run here: Debian's MPICH
    4.0.2 over UCX 1.13's TCP hangs in MPI_Finalize in about one two-node
    run in three, natively, even for Init/Barrier/Finalize: each rank
    flushes its endpoints, which waits for the peer's acknowledgement,
    before the PMI barrier, and a peer already in that barrier no longer
    answers; MPICH 4.2 moved the barrier first.)"""
    cmd = mpich_across(nodes, mpich, 2, program("mpich", builds, "twonode", embedder, cache),
                       "-genv", "UCX_TLS", "self,sm")
    # Hydra sometimes tears the job down before any rank's error is printed
    # (exit 15, no output; seen once in CI): such a run still failed, but
    # says nothing of why, so it is tried again, up to three times.
    outputs = []
    for _ in range(3):
        r = run_on_a(nodes, cmd)
        assert r.returncode != 0, f"ran on shared memory alone across two nodes:\n{r.stdout}"
        outputs.append(f"exit {r.returncode}: {r.stdout}{r.stderr}")
        if r.stdout or r.stderr:
            break
    assert "unreachable" in outputs[-1], "\n".join(outputs)


@pytest.mark.parametrize("kind", ["openmpi", "wasm"], ids=["native", "wasm"])
def test_pingpong_between_nodes(nodes, openmpi, builds, embedder, cache, kind):
    argv = program(kind, builds, "imb", embedder, cache)
    cmd = openmpi_across(nodes, openmpi, 1, [*argv, *PINGPONG], *BTL, *YIELD, "--display-map")
    stdout = ok(run_on_a(nodes, cmd), f"PingPong, {kind}")
    # --display-map: one rank on each node
    for node in nodes.names:
        assert re.search(rf"Data for node: {re.escape(node)}\s+Num slots: \d+\s+Max slots: \d+\s+Num procs: 1",
                         stdout), stdout
    rows = parse_imb(stdout)
    assert [r["bytes"] for r in rows] == [0] + [2 ** k for k in range(17)], stdout
    assert all(r["benchmark"] == "PingPong" and r["processes"] == 2 for r in rows)
    assert all(r["t_avg"] > 0 and r["repetitions"] > 0 for r in rows), rows
    # Mbytes/sec has two decimals (0.00 for a byte in a few microseconds or
    # more): consistent with the time, and positive at the largest size.
    for r in rows:
        expected = r["bytes"] / r["t_avg"] / 1.048576
        assert abs(r["mbytes_per_sec"] - expected) <= 0.006 + 0.001 * expected, r
    assert rows[-1]["mbytes_per_sec"] > 0, rows[-1]
