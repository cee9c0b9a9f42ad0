#!/usr/bin/env python3
"""Projection of the HPCG-style wasm/native ratio to rank counts this 2-core
machine cannot run (the MPIWasm paper's 96 .. 6144), from what it can
measure: calls per iteration (calls.py), the bridge's added cost per call
(bridge.csv), the compute ratio at 1 rank (hpcg.csv, else kernels.csv) and
the native time per iteration at 1 rank (hpcg.csv), plus an assumed network.

    python3 benchmarks/model/project.py results/<timestamp>
    python3 benchmarks/model/project.py --t-iter-us 4000 --compute-ratio 0.9 \\
        --added-local-ns 41 --added-p2p-ns 51 --added-collective-ns 51 --latency-us 1.5

Model, per CG iteration of one rank (weak scaling: the same local grid on
every rank, so the compute is what one rank measures alone):

    T_native(P) = t1 + net(P)
    T_wasm(P)   = t1 / r1 - sum_k N_k(1) d_k + net(P) + sum_k N_k(P) d_k
    net(P)      = 0 at P = 1, else (H + A * ceil(log2 P)) * latency
    wasm/native GFLOP/s at P = T_native(P) / T_wasm(P)

t1: native time per iteration at 1 rank; r1: wasm/native GFLOP/s at 1 rank
(it contains the 1-rank calls' bridge cost, which the second term takes out,
so the model gives r1 back at P = 1); N_k(P): calls of kind k (local, p2p,
collective) per iteration of the busiest rank at P ranks; d_k: the added ns
per call of kind k; H, A: halo exchanges and Allreduces per iteration (each
exchange's messages are in flight together: one latency; an Allreduce is
ceil(log2 P) latencies, recursive doubling). Bandwidth, per-message CPU
overhead and noise are left out: they add the same time to both builds, so
leaving them out makes the projected ratio lower, not higher.
"""
import argparse
import csv
import math
import statistics
import sys
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import calls  # noqa: E402

PROJECT_RANKS = (1, 96, 768, 6144)
WEAK_SCALING_GRID = "32x32x32"  # benchmarks/run.py's default HPCG-style grid per rank
# InfiniBand EDR/HDR small-message MPI latency (half round trip), inter-node.
DEFAULT_LATENCY_US = 1.5
# MPIWasm (Chadha et al., PPoPP '23), HPCG on SuperMUC-NG: same as native up
# to 192 ranks, 14 % fewer GFLOP/s at 6144, blamed on 85-105 ns per call.
PAPER = {"ranks": 6144, "ratio": 0.86, "added_ns": (85.0, 105.0)}
# bridge.csv columns that stand for each kind of call (see calls.KIND), and
# how many calls one figure holds: a p2p call is a third of overhead.c's
# exchange (MPI_Irecv, MPI_Isend, MPI_Waitall: buffers, a communicator, and
# a request made and completed), the halo exchange's own calls; results
# without that column take the 1-double Allreduce, as before it existed.
BRIDGE_COLUMN = {"local": ("comm_rank_ns", 1), "p2p": ("exchange_self_ns", 3), "collective": ("allreduce_1double_ns", 1)}
BRIDGE_FALLBACK = {"p2p": ("allreduce_1double_ns", 1)}


@dataclass
class Inputs:
    t_iter_us: float                    # t1
    compute_ratio: float                # r1
    added_ns: dict                      # d_k by kind
    latency_us: float = DEFAULT_LATENCY_US
    sources: dict = field(default_factory=dict)  # input -> where it came from


def network_us(ranks, latency_us, halos=None, allreduces=None):
    """net(P): one latency per halo exchange, ceil(log2 P) per Allreduce, 0
    on one rank (no messages)."""
    if ranks <= 1:
        return 0.0
    halos = calls.halos_per_iteration() + 1 / calls.SET_ITERS if halos is None else halos
    allreduces = calls.DDOTS_PER_ITER + 1 / calls.SET_ITERS if allreduces is None else allreduces
    return (halos + allreduces * math.ceil(math.log2(ranks))) * latency_us


def bridge_us(calls_by_kind, added_ns):
    """sum_k N_k d_k, in µs."""
    return sum(n * added_ns.get(k, 0.0) for k, n in calls_by_kind.items()) / 1000.0


def project(inp, calls_1, calls_p, net_us):
    """One rank count: T_native, T_wasm (µs per iteration), the bridge's share
    and the ratio T_native / T_wasm."""
    t_native = inp.t_iter_us + net_us
    compute_wasm = inp.t_iter_us / inp.compute_ratio - bridge_us(calls_1, inp.added_ns)
    bridge = bridge_us(calls_p, inp.added_ns)
    t_wasm = compute_wasm + net_us + bridge
    return {"t_native_us": t_native, "t_wasm_us": t_wasm, "net_us": net_us, "bridge_us": bridge,
            "ratio": t_native / t_wasm}


def projection(inp, ranks_list=PROJECT_RANKS):
    """Rows per rank count: the call counts and project()'s numbers."""
    calls_1 = calls.at_scale(1)["busiest_by_kind"]
    rows = []
    for ranks in ranks_list:
        s = calls.at_scale(ranks)
        row = project(inp, calls_1, s["busiest_by_kind"], network_us(ranks, inp.latency_us))
        rows.append({"ranks": ranks, "grid": s["grid"], "neighbours": s["max_neighbours"],
                     "calls": s["busiest_total"], "calls_by_kind": s["busiest_by_kind"], **row})
    return rows


def calls_to_explain(ratio, t_native_us, added_ns):
    """Calls per iteration that would cost 1/ratio - 1 of T_native at
    added_ns each: what the paper's explanation needs."""
    return t_native_us * (1 / ratio - 1) * 1000.0 / added_ns


# ---------------------------------------------------------------------------
# Inputs from a benchmarks/run.py results directory


def read_csv(path):
    path = Path(path)
    if not path.exists() or path.stat().st_size == 0:
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def median(values):
    values = [float(v) for v in values if v not in ("", None)]
    return statistics.median(values) if values else float("nan")


def added_from_bridge(rows, ranks=None):
    """{kind: added ns} from bridge.csv (medians of wasm minus medians of
    native) at `ranks`, by default the smallest rank count: on 1 rank the
    difference is the bridge alone, while on more ranks of a shared 2-core
    machine it also holds waiting for a descheduled partner, which the
    model's network term stands for. Also returns that rank count."""
    if not rows:
        return None, None
    ranks = min(int(r["ranks"]) for r in rows) if ranks is None else ranks
    at = [r for r in rows if int(r["ranks"]) == ranks]
    if not at:
        raise ValueError(f"bridge.csv has no runs on {ranks} ranks")
    added = {}
    for kind, (col, calls_per_figure) in bridge_columns(at).items():
        added[kind] = (median(r[col] for r in at if r["build"] == "wasm")
                       - median(r[col] for r in at if r["build"] == "native")) / calls_per_figure
    return added, ranks


def bridge_columns(rows):
    """BRIDGE_COLUMN, with the fallback for a column these rows lack."""
    have = lambda col: any(r.get(col) not in ("", None) for r in rows)  # noqa: E731
    return {k: v if have(v[0]) else BRIDGE_FALLBACK.get(k, v) for k, v in BRIDGE_COLUMN.items()}


def hpcg_at_one_rank(rows):
    """(native µs per iteration, wasm/native GFLOP/s, local grid) from
    hpcg.csv's 1-rank runs, medians; None where missing."""
    one = [r for r in rows if r["ranks"] == "1" and r.get("validation") == "PASSED"]
    nat = [r for r in one if r["kind"] == "native"]
    was = [r for r in one if r["kind"] == "wasm"]
    if not nat:
        return None, None, None
    t_iter = median(float(r["time_s"]) / (int(r["sets"]) * calls.SET_ITERS) * 1e6 for r in nat)
    ratio = median(r["gflops"] for r in was) / median(r["gflops"] for r in nat) if was else None
    return t_iter, ratio, nat[0].get("local", "")


def kernels_ratio(rows, kernel="spmv"):
    """wasm/native of one kernel's median rate in kernels.csv (spmv: the
    HPCG-like one), or None."""
    n = [r["rate"] for r in rows if r["kernel"] == kernel and r["build"] == "native"]
    w = [r["rate"] for r in rows if r["kernel"] == kernel and r["build"] == "wasm"]
    return median(w) / median(n) if n and w else None


def inputs_from_results(results=None, t_iter_us=None, compute_ratio=None, added_ns=None,
                        latency_us=DEFAULT_LATENCY_US, bridge_ranks=None):
    """Inputs: each from the command line if given, else from the results
    directory; ValueError naming what is missing."""
    src = {}
    results = Path(results) if results else None
    hp = read_csv(results / "hpcg.csv") if results else []
    t_hp, r_hp, grid = hpcg_at_one_rank(hp)
    if t_iter_us is not None:
        src["t_iter_us"] = "command line"
    elif t_hp is not None:
        t_iter_us = t_hp
        src["t_iter_us"] = f"hpcg.csv: native, 1 rank, local grid {grid}, median of time / (sets x 50)"
        if grid != WEAK_SCALING_GRID:
            src["note"] = (f"t1 comes from a {grid} grid per rank, not the {WEAK_SCALING_GRID} of a default run "
                           "(e.g. --quick): fewer µs of compute per call, so the bridge weighs more")
    if compute_ratio is not None:
        src["compute_ratio"] = "command line"
    elif r_hp is not None:
        compute_ratio = r_hp
        src["compute_ratio"] = "hpcg.csv: wasm/native GFLOP/s at 1 rank (medians)"
    else:
        kr = kernels_ratio(read_csv(results / "kernels.csv")) if results else None
        if kr is not None:
            compute_ratio = kr
            src["compute_ratio"] = "kernels.csv: spmv wasm/native (medians)"
    added = dict(added_ns or {})
    bridge_rows = read_csv(results / "bridge.csv") if results else []
    from_bridge, bridge_ranks = added_from_bridge(bridge_rows, bridge_ranks) if results else (None, None)
    columns = bridge_columns(bridge_rows)
    for kind in calls.KINDS:
        if kind in added:
            src[f"added_{kind}_ns"] = "command line"
        elif from_bridge:
            added[kind] = from_bridge[kind]
            col, n = columns[kind]
            src[f"added_{kind}_ns"] = (f"bridge.csv: {col}{f' / {n}' if n > 1 else ''}, {bridge_ranks} rank(s), "
                                       "median wasm − median native")
    src["latency_us"] = "assumed (--latency-us): InfiniBand-class small-message latency"
    missing = [name for name, v in (("t_iter_us", t_iter_us), ("compute_ratio", compute_ratio)) if v is None]
    missing += [f"added_{k}_ns" for k in calls.KINDS if k not in added]
    if missing:
        raise ValueError("missing model inputs: " + ", ".join(missing)
                         + " (give a results directory with hpcg.csv and bridge.csv, or the options)")
    return Inputs(t_iter_us, compute_ratio, added, latency_us, src)


# ---------------------------------------------------------------------------
# Output


def md_table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return "\n".join(lines + ["| " + " | ".join(str(c) for c in row) + " |" for row in rows])


def inputs_table(inp):
    rows = [("t1, native time per iteration, 1 rank", f"{inp.t_iter_us:.1f} µs", inp.sources.get("t_iter_us", "")),
            ("r1, wasm/native GFLOP/s, 1 rank", f"{inp.compute_ratio:.3f}", inp.sources.get("compute_ratio", ""))]
    for kind in calls.KINDS:
        rows.append((f"d_{kind}, added per {kind} call", f"{inp.added_ns[kind]:.1f} ns",
                     inp.sources.get(f"added_{kind}_ns", "")))
    rows.append(("latency per message", f"{inp.latency_us:g} µs", inp.sources.get("latency_us", "")))
    return md_table(["input", "value", "source"], rows)


def by_kind_text(by_kind):
    return " / ".join(f"{by_kind[k]:.1f}" for k in calls.KINDS)


def projection_table(rows):
    return md_table(
        ["ranks", "grid", "max neighbours", "calls/iteration (local / p2p / collective)", "net µs",
         "bridge µs", "T_native µs", "T_wasm µs", "wasm/native"],
        [(r["ranks"], r["grid"], r["neighbours"],
          f"{r['calls']:.1f} ({by_kind_text(r['calls_by_kind'])})",
          f"{r['net_us']:.1f}", f"{r['bridge_us']:.2f}", f"{r['t_native_us']:.1f}", f"{r['t_wasm_us']:.1f}",
          f"**{r['ratio']:.3f}**") for r in rows])


def paper_rows(inp, rows):
    """Side by side with the paper at its 6144 ranks: our projection, ours
    with the paper's per-call cost and r1 = 1 (the paper saw native speed up
    to 192 ranks), and how many calls per iteration its explanation needs."""
    at = next((r for r in rows if r["ranks"] == PAPER["ranks"]), None)
    if at is None:
        return []
    lo, hi = PAPER["added_ns"]
    paper_cost = Inputs(inp.t_iter_us, 1.0, dict.fromkeys(calls.KINDS, hi), inp.latency_us)
    (with_paper,) = projection(paper_cost, [PAPER["ranks"]])
    need = calls_to_explain(PAPER["ratio"], at["t_native_us"], hi)
    return [
        ("MPIWasm paper, measured (SuperMUC-NG, Omni-Path)", f"{PAPER['ratio']:.2f}", "–"),
        ("this model, measured inputs", f"{at['ratio']:.3f}", f"{at['calls']:.0f} calls × d_k"),
        (f"this model, r1 = 1 and the paper's {hi:g} ns on every call", f"{with_paper['ratio']:.3f}",
         f"{at['calls']:.0f} calls × {hi:g} ns = {with_paper['bridge_us']:.1f} µs"),
        (f"calls per iteration that {lo:g}–{hi:g} ns would need for {PAPER['ratio']:.2f}", "–",
         f"{need:,.0f} – {calls_to_explain(PAPER['ratio'], at['t_native_us'], lo):,.0f} "
         f"(of T_native = {at['t_native_us']:.0f} µs)"),
    ]


FORMULA = """    T_native(P) = t1 + net(P)
    T_wasm(P)   = t1 / r1 − Σ_k N_k(1)·d_k + net(P) + Σ_k N_k(P)·d_k
    net(P)      = 0 at P = 1, else (H + A·⌈log2 P⌉) · latency
    wasm/native(P) = T_native(P) / T_wasm(P)"""


def markdown(inp, rows):
    """The report section's body (plots/plot.py puts a heading above it)."""
    h, a = calls.halos_per_iteration() + 1 / calls.SET_ITERS, calls.DDOTS_PER_ITER + 1 / calls.SET_ITERS
    L = ["Per CG iteration of one rank, weak scaling (the local grid of the 1-rank run on every rank):\n",
         FORMULA + "\n",
         f"N_k(P): MPI calls of kind k per iteration of the busiest rank (the most halo neighbours) at P ranks, "
         f"from `benchmarks/model/calls.py` (checked against the PMPI counter `mpi_count.c`); H = {h:.2f} halo "
         f"exchanges and A = {a:.2f} Allreduces per iteration (a set of 50 iterations plus its initial "
         "residual, divided by 50). Local calls are `MPI_Wtime`, p2p `MPI_Isend`/`MPI_Irecv`/`MPI_Waitall`, "
         "collective `MPI_Allreduce`. Left out: bandwidth, per-message CPU overhead, noise; they add the "
         "same time to both builds, so the projected ratio errs low.\n",
         inputs_table(inp) + "\n"]
    if inp.sources.get("note"):
        L.append(f"**Note:** {inp.sources['note']}.\n")
    L.append(projection_table(rows) + "\n")
    paper = paper_rows(inp, rows)
    if paper:
        L += [md_table(["at 6144 ranks", "wasm/native", "bridge cost per iteration"], paper) + "\n"]
    return "\n".join(L)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="\n\n".join(__doc__.split("\n\n")[1:]))
    ap.add_argument("results", nargs="?", type=Path, help="a benchmarks/run.py results directory")
    ap.add_argument("--t-iter-us", type=float, help="t1: native µs per CG iteration at 1 rank")
    ap.add_argument("--compute-ratio", type=float, help="r1: wasm/native GFLOP/s at 1 rank")
    for kind in calls.KINDS:
        ap.add_argument(f"--added-{kind}-ns", type=float, help=f"d_{kind}: ns the bridge adds per {kind} call")
    ap.add_argument("--latency-us", type=float, default=DEFAULT_LATENCY_US,
                    help=f"network latency per message (default {DEFAULT_LATENCY_US} µs, InfiniBand-class)")
    ap.add_argument("--bridge-ranks", type=int,
                    help="take the added ns from bridge.csv's runs on this many ranks (default: the fewest)")
    ap.add_argument("--ranks", default=",".join(map(str, PROJECT_RANKS)), help="rank counts to project")
    a = ap.parse_args(argv)
    added = {k: getattr(a, f"added_{k}_ns") for k in calls.KINDS if getattr(a, f"added_{k}_ns") is not None}
    try:
        inp = inputs_from_results(a.results, a.t_iter_us, a.compute_ratio, added, a.latency_us, a.bridge_ranks)
    except ValueError as e:
        ap.error(str(e))
    print(markdown(inp, projection(inp, [int(r) for r in a.ranks.split(",")])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
