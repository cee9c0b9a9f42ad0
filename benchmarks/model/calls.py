#!/usr/bin/env python3
"""MPI calls per HPCG-style CG iteration per rank: derived from the code of
benchmarks/hpcg (analytic) and measured with the PMPI counter mpi_count.c.

    python3 benchmarks/model/calls.py                       # analytic, 1 .. 6144 ranks
    python3 benchmarks/model/calls.py --measure 1,2,4,8,27  # and measured, native, oversubscribed

The analytic count follows the code (see README.md for the derivation):

- a CG iteration (cg.c) does one multigrid V-cycle (mg), one SpMV and three
  dot products; one set of 50 iterations also computes r = b - A x and
  ||r|| once before its first iteration;
- the V-cycle (kernels.c) does SYMGS, SpMV, (coarser level), SYMGS on each
  of the HPCG_LEVELS - 1 finer levels and one SYMGS on the coarsest: each
  SYMGS and SpMV is one halo exchange, 3 (L - 1) + 1 per V-cycle;
- a halo exchange (halo_exchange) is, for a rank with nnbr > 0 neighbours,
  nnbr MPI_Irecv + nnbr MPI_Isend + one MPI_Waitall + two MPI_Wtime (its
  timer), and no call at all with no neighbour (1 rank);
- a dot product (ddot) is one MPI_Allreduce of one double + two MPI_Wtime;
- nnbr is the number of ranks around this one in the 3-D process grid
  (procgrid_factor in geometry.c), 26 for an interior rank; every
  multigrid level has the same neighbours.
"""
import argparse
import itertools
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
HPCG_SRC = [ROOT / "benchmarks" / "hpcg" / f for f in ("hpcg.c", "geometry.c", "kernels.c", "cg.c")]
COUNTER_SRC = HERE / "mpi_count.c"

LEVELS = 4            # HPCG_LEVELS in hpcg.h
SET_ITERS = 50        # CG_SET_ITERS in hpcg.c
DDOTS_PER_ITER = 3    # r.z, p.Ap, r.r (cg.c)
TIMED_SEGMENT = 1     # mpi_count.c: segment 1 runs from the barrier before the timed sets to the one after
SCALE_RANKS = (96, 768, 6144)
# The rank counts the counter runs at by default: 8 is a 2x2x2 grid, the
# first with every kind of neighbour (face, edge, corner); 27 (3x3x3) the
# first with an interior rank, whose 26 neighbours every larger grid has.
MEASURE_RANKS = (1, 2, 4, 8, 27)
# The smallest problem with 4 multigrid levels (8 -> 4 -> 2 -> 1), one set.
MEASURE_ARGS = "--nx 8 --ny 8 --nz 8 --iters 1"

# What an added nanosecond per call is charged as (project.py): calls with
# no buffer or handle to translate, point-to-point calls with a buffer, a
# datatype, a communicator and a request, and collectives.
KIND = {"MPI_Wtime": "local", "MPI_Comm_rank": "local", "MPI_Comm_size": "local",
        "MPI_Isend": "p2p", "MPI_Irecv": "p2p", "MPI_Send": "p2p", "MPI_Recv": "p2p", "MPI_Wait": "p2p",
        "MPI_Waitall": "p2p", "MPI_Sendrecv": "p2p",
        "MPI_Allreduce": "collective", "MPI_Reduce": "collective", "MPI_Bcast": "collective",
        "MPI_Barrier": "collective"}
KINDS = ("local", "p2p", "collective")

LINE = re.compile(r"^mpi_count rank=(\d+) segment=(\d+) function=(\S+) calls=(\d+)$", re.M)
SUMMARY = re.compile(r"^mpi_count ranks=(\d+) segments=(\d+)$", re.M)


# ---------------------------------------------------------------------------
# Analytic


def procgrid_factor(size):
    """(npx, npy, npz) exactly as geometry.c's procgrid_factor: npx <= npy <=
    npz with the smallest sum, ties towards the smallest npz."""
    best, best_sum = (1, 1, size), -1
    a = 1
    while a * a * a <= size:
        if size % a == 0:
            b = a
            while a * b * b <= size:
                if (size // a) % b == 0:
                    c = size // a // b
                    if best_sum < 0 or a + b + c < best_sum or (a + b + c == best_sum and c < best[2]):
                        best_sum, best = a + b + c, (a, b, c)
                b += 1
        a += 1
    return best


def neighbours(grid, rank):
    """Neighbours of `rank` (rank = ipx + npx (ipy + npy ipz)) in the grid,
    without periodic wrap: the product over dimensions of the positions
    within one step, minus the rank itself."""
    npx, npy, npz = grid
    pos = (rank % npx, (rank // npx) % npy, rank // (npx * npy))
    n = 1
    for p, np_ in zip(pos, grid):
        n *= 1 + (p > 0) + (p < np_ - 1)
    return n - 1


def halos_per_iteration(levels=LEVELS):
    """Halo exchanges per CG iteration: the V-cycle's 3 per finer level and
    1 on the coarsest, plus the SpMV of p."""
    return 3 * (levels - 1) + 1 + 1


def per_halo(nnbr):
    """Calls of one halo exchange of a rank with nnbr neighbours."""
    if nnbr == 0:
        return Counter()
    return Counter({"MPI_Irecv": nnbr, "MPI_Isend": nnbr, "MPI_Waitall": 1, "MPI_Wtime": 2})


def per_ddot():
    return Counter({"MPI_Allreduce": 1, "MPI_Wtime": 2})


def scaled(counter, k):
    return Counter({f: n * k for f, n in counter.items()})


def per_iteration(nnbr, levels=LEVELS):
    """Calls of one CG iteration (cg.c's loop body) of one rank."""
    return scaled(per_halo(nnbr), halos_per_iteration(levels)) + scaled(per_ddot(), DDOTS_PER_ITER)


def per_set(nnbr, levels=LEVELS, iters=SET_ITERS):
    """Calls of one cg() call of `iters` iterations: the iterations plus the
    initial residual (one SpMV = one halo exchange, and one ddot)."""
    return scaled(per_iteration(nnbr, levels), iters) + per_halo(nnbr) + per_ddot()


def timed_segment(nnbr, sets, levels=LEVELS):
    """What mpi_count.c counts in the timed segment of hpcg.c: `sets` CG
    sets, the MPI_Wtime that starts the clock and the barrier that opens the
    segment."""
    return scaled(per_set(nnbr, levels), sets) + Counter({"MPI_Wtime": 1, "MPI_Barrier": 1})


def amortised_per_iteration(nnbr, levels=LEVELS):
    """Calls per iteration as the benchmark's timed phase sees them: a set
    divided by its 50 iterations (a float; what time per iteration, time /
    (sets x 50), is compared with)."""
    return {f: n / SET_ITERS for f, n in per_set(nnbr, levels).items()}


def by_kind(calls):
    out = dict.fromkeys(KINDS, 0.0)
    for f, n in calls.items():
        out[KIND.get(f, "p2p")] += n
    return out


def at_scale(ranks, levels=LEVELS):
    """Calls per iteration (amortised over a set) at `ranks` ranks: the
    busiest rank's (the most neighbours: the one the others wait for at each
    Allreduce) and the mean over ranks, by function and by kind."""
    grid = procgrid_factor(ranks)
    # every rank's neighbour count, from the positions per dimension (the
    # grid is a product, so count the combinations instead of 6144 ranks)
    per_dim = [Counter(1 + (p > 0) + (p < n - 1) for p in range(n)) for n in grid]
    hist = Counter()
    for combo in itertools.product(*(c.items() for c in per_dim)):
        prod, mult = 1, 1
        for a, m in combo:
            prod, mult = prod * a, mult * m
        hist[prod - 1] += mult
    nmax = max(hist)
    mean = Counter()
    for nnbr, m in hist.items():
        for f, n in amortised_per_iteration(nnbr, levels).items():
            mean[f] += n * m / ranks
    busiest = amortised_per_iteration(nmax, levels)
    return {"ranks": ranks, "grid": "x".join(map(str, grid)), "max_neighbours": nmax,
            "mean_neighbours": sum(k * m for k, m in hist.items()) / ranks,
            "busiest": busiest, "mean": dict(mean), "busiest_by_kind": by_kind(busiest),
            "busiest_total": sum(busiest.values()), "mean_total": sum(mean.values())}


# ---------------------------------------------------------------------------
# Measured


def parse_counts(text):
    """mpi_count.c's lines -> {(rank, segment): Counter(function -> calls)}
    and the number of ranks; ValueError without its summary line."""
    m = SUMMARY.search(text)
    if not m:
        raise ValueError("no 'mpi_count ranks=' line (was mpi_count.so preloaded?)")
    out = {}
    for rank, seg, fn, n in LINE.findall(text):
        out.setdefault((int(rank), int(seg)), Counter())[fn] = int(n)
    return out, int(m.group(1))


def compare(text, sets):
    """Rows (rank, function, measured, analytic) of the timed segment of one
    counted run, for every function either side has, and the number of
    ranks."""
    counts, ranks = parse_counts(text)
    grid = procgrid_factor(ranks)
    rows = []
    for rank in range(ranks):
        measured = counts.get((rank, TIMED_SEGMENT), Counter())
        nnbr = neighbours(grid, rank)
        analytic = timed_segment(nnbr, sets)
        for fn in sorted(set(measured) | set(analytic), key=lambda f: list(KIND).index(f) if f in KIND else 99):
            rows.append({"ranks": ranks, "rank": rank, "neighbours": nnbr, "function": fn,
                         "kind": KIND.get(fn, "p2p"), "sets": sets, "measured": measured.get(fn, 0),
                         "analytic": analytic.get(fn, 0)})
    return rows, ranks


def build_counter(out, mpicc):
    """mpi_count.so and a native hpcg in `out` (paths)."""
    so, exe = Path(out) / "mpi_count.so", Path(out) / "hpcg"
    subprocess.run([mpicc, "-O2", "-shared", "-fPIC", "-o", so, COUNTER_SRC], check=True)
    subprocess.run([mpicc, "-std=c99", "-O3", "-o", exe, *HPCG_SRC, "-lm"], check=True)
    return so, exe


def counted_command(mpirun_cmd, so, exe, args=MEASURE_ARGS):
    """The counted run: `env` puts LD_PRELOAD on the ranks only, not on
    mpirun (which has no libmpi to resolve PMPI_* against), with any MPI's
    launcher."""
    return [*mpirun_cmd, "env", f"LD_PRELOAD={Path(so).resolve()}", str(exe), *shlex.split(args)]


def sets_of(text):
    m = re.search(r"^HPCG-style result: .*\bsets=(\d+)", text, re.M)
    if not m:
        raise ValueError("no HPCG-style result line")
    return int(m.group(1))


def measure(ranks_list, mpicc, mpirun, args=MEASURE_ARGS):
    """Build, run at each rank count, compare: rows as compare()."""
    opts = ["--allow-run-as-root", "--oversubscribe"] if "openmpi" in Path(mpirun).name else []
    rows = []
    with tempfile.TemporaryDirectory(prefix="mpi-count-") as tmp:
        so, exe = build_counter(tmp, mpicc)
        for ranks in ranks_list:
            cmd = counted_command([mpirun, *opts, "-np", str(ranks)], so, exe, args)
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
            if p.returncode != 0:
                raise RuntimeError(f"{shlex.join(cmd)}: exit {p.returncode}\n{p.stderr[-2000:]}")
            rows += compare(p.stdout, sets_of(p.stdout))[0]
    return rows


def measured_per_iteration(rows):
    """Per rank count, from compare()'s rows (or calls.csv's, as strings):
    the busiest rank (most neighbours), its measured and analytic calls per
    iteration by function (the timed segment without the clock start and the
    barrier, / (sets x 50)), and whether every rank's every count matched."""
    out = {}
    for ranks in sorted({int(r["ranks"]) for r in rows}):
        at = [r for r in rows if int(r["ranks"]) == ranks]
        busiest = max(at, key=lambda r: (int(r["neighbours"]), -int(r["rank"])))
        mine = [r for r in at if r["rank"] == busiest["rank"]]
        per = {"measured": Counter(), "analytic": Counter()}
        for r in mine:
            once = 1 if r["function"] in ("MPI_Wtime", "MPI_Barrier") else 0
            for side in per:
                n = (int(r[side]) - once) / (int(r["sets"]) * SET_ITERS)
                if n:
                    per[side][r["function"]] = n
        out[ranks] = {"rank": int(busiest["rank"]), "neighbours": int(busiest["neighbours"]),
                      "grid": "x".join(map(str, procgrid_factor(ranks))), **per,
                      "exact": all(int(r["measured"]) == int(r["analytic"]) for r in at)}
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--measure", help="rank counts to measure at (e.g. 1,2,4,8,27); default: analytic only")
    ap.add_argument("--ranks", default="1,2,4,8,27,96,768,6144", help="rank counts of the analytic table")
    ap.add_argument("--mpicc", default=shutil.which("mpicc.openmpi") or "mpicc")
    ap.add_argument("--mpirun", default=shutil.which("mpirun.openmpi") or "mpirun")
    a = ap.parse_args(argv)
    print("| ranks | grid | max neighbours | calls/iteration, busiest rank (local / p2p / collective) | mean rank |")
    print("|---|---|---|---|---|")
    for ranks in (int(r) for r in a.ranks.split(",")):
        s = at_scale(ranks)
        k = s["busiest_by_kind"]
        print(f"| {ranks} | {s['grid']} | {s['max_neighbours']} | {s['busiest_total']:.2f} "
              f"({k['local']:.2f} / {k['p2p']:.2f} / {k['collective']:.2f}) | {s['mean_total']:.2f} |")
    if not a.measure:
        return 0
    rows = measure([int(r) for r in a.measure.split(",")], a.mpicc, a.mpirun)
    bad = [r for r in rows if r["measured"] != r["analytic"]]
    for ranks, m in measured_per_iteration(rows).items():
        print(f"measured at {ranks} ranks: {sum(m['measured'].values()):.2f} calls per iteration (busiest rank, "
              f"{m['neighbours']} neighbours); analytic {at_scale(ranks)['busiest_total']:.2f}; "
              f"every count of every rank equal: {m['exact']}")
    for r in bad:
        print(f"MISMATCH {r}", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
