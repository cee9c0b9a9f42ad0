"""benchmarks/karmem: the driver's --quick run (fan-out at 1 and 2 ranks,
1 and 16 MiB, MPI_Bcast vs a READ_ONLY region; SoA vs AoS natively and in
wasm) produces every row with positive figures, and one region copy on the
node takes less memory than a private copy per rank.

Only memory is asserted between modes: times on a shared 2-core machine
are too noisy to order. Memory is compared on the job's anonymous + shmem
Pss (node_data_pss_mib), not the total: the total also holds the file pages
of the embedder's code, whose share moves with every other process running
it at the time."""
import csv
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RUN = ROOT / "benchmarks" / "karmem" / "run.py"
RANKS, SIZES, MODES = (1, 2), (1, 16), ("bcast", "region")


def test_quick_run_tables_and_node_memory(tmp_path):
    p = subprocess.run([sys.executable, str(RUN), "--quick", "--out", str(tmp_path)],
                       capture_output=True, text=True, timeout=240)
    assert p.returncode == 0, p.stdout[-4000:] + p.stderr[-4000:]

    rows = list(csv.DictReader(open(tmp_path / "fanout.csv")))
    by = {(int(r["ranks"]), int(r["mib"]), r["mode"]): r for r in rows}
    assert len(rows) == len(by) == len(RANKS) * len(SIZES) * len(MODES)
    assert set(by) == {(n, d, m) for n in RANKS for d in SIZES for m in MODES}
    for (n, d, m), r in by.items():
        for f in ("steps", "median_us", "min_us", "node_pss_mib", "node_data_pss_mib", "node_rss_mib"):
            assert float(r[f]) > 0, (f, r)
        assert int(r["bytes"]) == d << 20
        assert len(r["rank_pss_mib"].split()) == n, r
        # the printed table has the row
        assert f"| {n} | {d} | {m} | " in p.stdout, (n, d, m)
        # every rank held what it read: at least D on the node
        assert float(r["node_data_pss_mib"]) >= d, r
    for n in RANKS:
        for d in SIZES:  # the same data read: the same exact sums
            assert by[n, d, "bcast"]["checksum"] == by[n, d, "region"]["checksum"]

    # Two ranks, 16 MiB: two private copies against one shared one. The
    # difference is one copy (16 MiB); half of it leaves room for noise.
    n, d = max(RANKS), max(SIZES)
    bcast = float(by[n, d, "bcast"]["node_data_pss_mib"])
    region = float(by[n, d, "region"]["node_data_pss_mib"])
    assert region < bcast, (region, bcast)
    assert bcast - region > 0.5 * d * (n - 1), (region, bcast)

    soa = list(csv.DictReader(open(tmp_path / "soa_aos.csv")))
    keys = {(r["build"], r["opt"], r["particles"], r["kernel"], r["layout"]) for r in soa}
    assert len(keys) == len(soa) == 2 * 2 * 2 * 2 * 2  # build, opt, particles, kernel, layout
    assert all(float(r["ns_per_particle"]) > 0 and int(r["reps"]) > 0 for r in soa)
    for particles in {r["particles"] for r in soa}:
        for kernel in ("drift", "kinetic"):  # same operations, same order: same result everywhere
            assert len({r["checksum"] for r in soa if r["particles"] == particles and r["kernel"] == kernel}) == 1
    assert "| particles | kernel | opt |" in p.stdout
    assert (tmp_path / "summary.md").read_text().count("\n| ") >= len(rows) + 2


def test_bad_arguments_are_refused(tmp_path):
    for args in (["--ranks", "0"], ["--sizes", "x"], ["--skip", "nothing"]):
        p = subprocess.run([sys.executable, str(RUN), *args, "--out", str(tmp_path)],
                           capture_output=True, text=True, timeout=60)
        assert p.returncode == 2 and "error" in p.stderr, (args, p.stderr)
