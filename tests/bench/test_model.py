"""benchmarks/model: the analytic MPI call count of the HPCG-style benchmark
(calls.py) against the PMPI counter (mpi_count.c) on real native runs, and
the projection's arithmetic (project.py) against numbers worked out by hand."""
import csv
import math
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from host_mpi import MPICC, MPIRUN, MPIRUN_FLAGS

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks" / "model"))

import calls  # noqa: E402
import project  # noqa: E402


# --------------------------------------------------------------------------
# analytic counts


@pytest.mark.parametrize("ranks, grid", [(1, (1, 1, 1)), (2, (1, 1, 2)), (4, (1, 2, 2)), (8, (2, 2, 2)),
                                         (96, (4, 4, 6)), (768, (8, 8, 12)), (6144, (16, 16, 24)),
                                         (7, (1, 1, 7))])
def test_procgrid_factor_is_geometry_c(ranks, grid):
    # the grids benchmarks/hpcg/README.md and its runs print (1x1x2, 1x2x2, ...)
    assert calls.procgrid_factor(ranks) == grid


def test_neighbours_in_a_3x3x3_grid():
    grid = (3, 3, 3)
    assert calls.neighbours(grid, 13) == 26  # the centre
    assert calls.neighbours(grid, 0) == 7    # a corner: 2x2x2 - 1
    assert calls.neighbours(grid, 1) == 11   # an edge middle: 3x2x2 - 1
    assert calls.neighbours(grid, 4) == 17   # a face centre: 3x3x2 - 1
    assert calls.neighbours((1, 1, 1), 0) == 0


def test_interior_rank_by_hand():
    # 11 halo exchanges (3 x 3 finer levels + 1 coarsest + 1 SpMV), 3 dot products
    it = calls.per_iteration(26)
    assert it == Counter({"MPI_Irecv": 286, "MPI_Isend": 286, "MPI_Waitall": 11, "MPI_Allreduce": 3,
                          "MPI_Wtime": 2 * 11 + 2 * 3})
    # a set: 50 iterations + the initial residual's halo exchange and ddot
    assert sum(calls.per_set(26).values()) == 50 * 614 + (26 + 26 + 1 + 2) + (1 + 2)
    s = calls.at_scale(6144)
    assert s["max_neighbours"] == 26 and s["grid"] == "16x16x24"
    assert math.isclose(s["busiest_total"], 30758 / 50)
    assert s["busiest_by_kind"] == pytest.approx({"local": 28.08, "p2p": 584.06, "collective": 3.02})
    assert s["mean_total"] < s["busiest_total"]  # boundary ranks have fewer neighbours


def test_one_rank_has_no_halo_calls():
    assert calls.per_iteration(0) == Counter({"MPI_Allreduce": 3, "MPI_Wtime": 6})


# --------------------------------------------------------------------------
# analytic vs measured (PMPI counter, native hpcg)


@pytest.fixture(scope="module")
def counter(tmp_path_factory):
    return calls.build_counter(tmp_path_factory.mktemp("count"), MPICC)


def counted(counter, ranks):
    so, exe = counter
    cmd = calls.counted_command([MPIRUN, *MPIRUN_FLAGS, "-np", str(ranks)], so, exe)
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
    return p.stdout


@pytest.mark.parametrize("ranks", [1, 2, 4])
def test_analytic_count_is_the_measured_count(counter, ranks):
    out = counted(counter, ranks)
    rows, n = calls.compare(out, calls.sets_of(out))
    assert n == ranks
    assert {r["rank"] for r in rows} == set(range(ranks))
    assert [r for r in rows if r["measured"] != r["analytic"]] == []
    by_rank = {}
    for r in rows:
        by_rank.setdefault(r["rank"], Counter())[r["function"]] = r["measured"]
    # the counter saw real traffic: 151 Allreduces per set on every rank, and
    # halo messages exactly when there is a neighbour
    assert all(c["MPI_Allreduce"] == 151 for c in by_rank.values())
    assert all((c["MPI_Isend"] > 0) == (ranks > 1) for c in by_rank.values())
    (m,) = calls.measured_per_iteration(rows).values()
    assert m["exact"]
    assert math.isclose(sum(m["measured"].values()), calls.at_scale(ranks)["busiest_total"])


def test_compare_reports_a_count_the_model_does_not_predict(counter):
    out = counted(counter, 2)
    tampered = out.replace("function=MPI_Allreduce calls=151", "function=MPI_Allreduce calls=152", 1)
    assert tampered != out
    rows, _ = calls.compare(tampered, calls.sets_of(tampered))
    bad = [r for r in rows if r["measured"] != r["analytic"]]
    assert [(r["function"], r["measured"], r["analytic"]) for r in bad] == [("MPI_Allreduce", 152, 151)]
    with pytest.raises(ValueError):
        calls.parse_counts("no counter output\n")


# --------------------------------------------------------------------------
# projection arithmetic


def test_network_term_by_hand():
    assert project.network_us(1, 2.0) == 0.0
    # 6144 ranks: ceil(log2 6144) = 13; (11.02 halos + 3.02 Allreduces x 13) x 1.5 µs
    assert math.isclose(project.network_us(6144, 1.5), (11.02 + 3.02 * 13) * 1.5)
    assert math.isclose(project.network_us(2, 1.0, halos=10, allreduces=2), 12.0)


def test_projection_by_hand():
    inp = project.Inputs(t_iter_us=1000.0, compute_ratio=0.8,
                         added_ns={"local": 40.0, "p2p": 50.0, "collective": 60.0}, latency_us=2.0)
    one = {"local": 6, "p2p": 0, "collective": 3}
    many = {"local": 28, "p2p": 584, "collective": 3}
    r = project.project(inp, one, many, net_us=10.0)
    # bridge at 1 rank: (6x40 + 3x60) ns = 0.42 µs, taken out of t1/r1 = 1250 µs
    # bridge at P: (28x40 + 584x50 + 3x60) ns = 30.5 µs
    assert math.isclose(r["bridge_us"], 30.5)
    assert math.isclose(r["t_native_us"], 1010.0)
    assert math.isclose(r["t_wasm_us"], 1250.0 - 0.42 + 10.0 + 30.5)
    assert math.isclose(r["ratio"], 1010.0 / 1290.08)
    # at one rank the model gives the measured ratio back
    assert math.isclose(project.project(inp, one, one, 0.0)["ratio"], 0.8)
    (p1,) = project.projection(inp, [1])
    assert math.isclose(p1["ratio"], 0.8)


def test_calls_to_explain_by_hand():
    # 0.8 of native = 25 % more time: 250 µs of 1000 at 100 ns a call
    assert math.isclose(project.calls_to_explain(0.8, 1000.0, 100.0), 2500.0)


def write_csv(path, rows):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


def test_inputs_from_a_results_directory(tmp_path):
    write_csv(tmp_path / "hpcg.csv", [
        {"ranks": 1, "kind": k, "gflops": g, "time_s": t, "sets": 50, "local": "32x32x32", "validation": "PASSED"}
        for k, g, t in (("native", 3.0, 10.0), ("native", 3.2, 12.0), ("native", 2.8, 11.0),
                        ("wasm", 2.7, 1.0), ("wasm", 2.4, 1.0), ("wasm", 2.55, 1.0))]
        + [{"ranks": 2, "kind": "native", "gflops": 9.0, "time_s": 1.0, "sets": 1, "local": "32x32x32",
            "validation": "PASSED"}])
    write_csv(tmp_path / "bridge.csv", [
        {"ranks": n, "rep": rep, "build": b, "comm_rank_ns": c, "allreduce_1double_ns": a}
        for n, rep, b, c, a in ((1, 1, "native", 1, 10), (1, 1, "wasm", 100, 900),
                                (2, 1, "native", 3, 250), (2, 1, "wasm", 44, 300),
                                (2, 2, "native", 5, 260), (2, 2, "wasm", 44, 330))])
    inp = project.inputs_from_results(tmp_path)
    assert math.isclose(inp.t_iter_us, 11.0 / (50 * 50) * 1e6)  # median time / (sets x 50)
    assert math.isclose(inp.compute_ratio, 2.55 / 3.0)
    # by default the fewest ranks (1: the bridge alone, no partner to wait for)
    assert inp.added_ns == pytest.approx({"local": 99.0, "p2p": 890.0, "collective": 890.0})
    assert "1 rank(s)" in inp.sources["added_local_ns"]
    # on 2 ranks: medians 44 - 4 and 315 - 255
    two = project.inputs_from_results(tmp_path, bridge_ranks=2)
    assert two.added_ns == pytest.approx({"local": 40.0, "p2p": 60.0, "collective": 60.0})
    assert "note" not in inp.sources
    over = project.inputs_from_results(tmp_path, compute_ratio=1.0, added_ns={"p2p": 7.0})
    assert over.compute_ratio == 1.0 and over.added_ns["p2p"] == 7.0 and over.added_ns["local"] == 99.0
    with pytest.raises(ValueError, match="added_local_ns"):
        project.inputs_from_results(tmp_path / "nothing", t_iter_us=1.0, compute_ratio=1.0)


def test_p2p_calls_cost_a_third_of_the_exchange_when_it_was_measured(tmp_path):
    write_csv(tmp_path / "hpcg.csv", [
        {"ranks": 1, "kind": k, "gflops": g, "time_s": 10.0, "sets": 50, "local": "32x32x32", "validation": "PASSED"}
        for k, g in (("native", 3.0), ("wasm", 3.0))])
    write_csv(tmp_path / "bridge.csv", [
        {"ranks": 1, "rep": 1, "build": b, "comm_rank_ns": c, "allreduce_1double_ns": a, "exchange_self_ns": x}
        for b, c, a, x in (("native", 3, 17, 96), ("wasm", 11, 32, 216))])
    inp = project.inputs_from_results(tmp_path)
    assert inp.added_ns == pytest.approx({"local": 8.0, "p2p": 40.0, "collective": 15.0})
    assert "exchange_self_ns / 3" in inp.sources["added_p2p_ns"]
    assert "allreduce_1double_ns" in inp.sources["added_collective_ns"]
