"""benchmarks/imb/imb.c: built with the host mpicc of the MPI under test, run
natively under its mpirun with tiny sizes and -check; compiled with wasm-mpicc
and run under the embedder with -check too."""
import math
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from host_mpi import MPI, MPICC, MPIRUN, MPIRUN_FLAGS

ROOT = Path(__file__).resolve().parents[2]
IMB_DIR = ROOT / "benchmarks" / "imb"
IMB_SRC = IMB_DIR / "imb.c"
WASM_MPICC = ROOT / "toolchain" / "bin" / "wasm-mpicc"
TIMEOUT = 60

ALL = ["PingPong", "PingPing", "Sendrecv", "Exchange", "Allreduce", "Reduce",
       "Reduce_scatter", "Allgather", "Allgatherv", "Gather", "Gatherv", "Scatter",
       "Scatterv", "Alltoall", "Alltoallv", "Bcast", "Barrier"]
SINGLE = {"PingPong", "PingPing"}
MULTI = {"Sendrecv", "Exchange"}
REDUCTIONS = {"Allreduce", "Reduce", "Reduce_scatter"}
TINY = ["-msglog", "0:4", "-iter", "10", "-time", "1"]

needs_mpi = pytest.mark.skipif(not (MPICC and MPIRUN), reason=f"mpicc.{MPI}/mpirun.{MPI} missing")


def parse_imb(text):
    """Parse IMB-format output: one dict per table, {"benchmark", "processes",
    "columns", "rows"}; rows are dicts keyed by column name (ints for #bytes and
    #repetitions, floats otherwise)."""
    tables, cur = [], None
    for line in text.splitlines():
        m = re.match(r"#\s*Benchmarking\s+(\S+)", line)
        if m:
            cur = {"benchmark": m.group(1), "processes": None, "columns": None, "rows": []}
            tables.append(cur)
            continue
        if cur is None:
            continue
        m = re.match(r"#\s*#processes\s*=\s*(\d+)", line)
        if m:
            cur["processes"] = int(m.group(1))
        elif line.strip().startswith("#repetitions") or line.strip().startswith("#bytes"):
            cur["columns"] = line.split()
        elif cur["columns"] and line.strip() and not line.lstrip().startswith("#"):
            values = line.split()
            if len(values) != len(cur["columns"]):
                raise ValueError(f"row {line!r} does not match columns {cur['columns']}")
            cur["rows"].append({c: (int(v) if c.startswith("#") else float(v))
                                for c, v in zip(cur["columns"], values)})
    return tables


def expected_columns(name):
    if name in SINGLE:
        return ["#bytes", "#repetitions", "t[usec]", "Mbytes/sec"]
    if name in MULTI:
        return ["#bytes", "#repetitions", "t_min[usec]", "t_max[usec]", "t_avg[usec]", "Mbytes/sec"]
    if name == "Barrier":
        return ["#repetitions", "t_min[usec]", "t_max[usec]", "t_avg[usec]"]
    return ["#bytes", "#repetitions", "t_min[usec]", "t_max[usec]", "t_avg[usec]"]


def run(binary, np, *args, timeout=TIMEOUT):
    cmd = [MPIRUN, *MPIRUN_FLAGS, "-np", str(np), str(binary), *map(str, args)]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def imb(tmp_path_factory):
    if not (MPICC and MPIRUN):
        pytest.skip(f"mpicc.{MPI}/mpirun.{MPI} missing")
    out = tmp_path_factory.mktemp("imb") / "imb"
    subprocess.run([MPICC, "-std=c99", "-O2", "-Wall", "-o", str(out), str(IMB_SRC), "-lm"],
                   check=True, timeout=TIMEOUT)
    return out


@pytest.fixture(scope="module")
def outputs(imb):
    """Every benchmark, tiny sizes, with -check: on 2 ranks, and on 3 with -npmin 2."""
    res = {}
    for np, extra in ((2, []), (3, ["-npmin", "2"])):
        p = run(imb, np, *TINY, *extra, "-check")
        assert p.returncode == 0, f"np={np} exit {p.returncode}\n{p.stdout}\n{p.stderr}"
        res[np] = p.stdout
    return res


def check_tables(text):
    tables = parse_imb(text)
    seen = {t["benchmark"] for t in tables}
    assert seen == set(ALL), f"missing: {set(ALL) - seen}"
    for t in tables:
        name = t["benchmark"]
        assert f"# Benchmarking {name}" in text
        assert t["columns"] == expected_columns(name), (name, t["columns"])
        if name == "Barrier":
            assert len(t["rows"]) == 1
        else:
            sizes = [0, 4, 8, 16] if name in REDUCTIONS else [0, 1, 2, 4, 8, 16]
            assert [r["#bytes"] for r in t["rows"]] == sizes, name
        for r in t["rows"]:
            assert 1 <= r["#repetitions"] <= 10, (name, r)
            times = [v for c, v in r.items() if c.endswith("[usec]")]
            assert all(math.isfinite(v) and v >= 0 for v in times), (name, r)
            # printed to the nanosecond: an empty operation (0 bytes) may show 0.000
            if r.get("#bytes", 1) > 0:
                assert max(times) > 0, (name, r)
            if "t_min[usec]" in r:
                assert r["t_min[usec]"] <= r["t_avg[usec]"] <= r["t_max[usec]"], (name, r)
            if "Mbytes/sec" in r:
                assert math.isfinite(r["Mbytes/sec"]) and r["Mbytes/sec"] >= 0
                assert r["#bytes"] > 0 or r["Mbytes/sec"] == 0, (name, r)
    # times to the nanosecond, rates to 0.01 MB/s: every data row's fields
    rows = [l.split() for l in text.splitlines() if re.match(r"\s+\d+\s", l)]
    assert rows
    for fields in rows:
        if len(fields) == 4 and "." in fields[1]:  # Barrier: no #bytes column
            times = fields[1:]
        else:  # #bytes, #repetitions, then one time (PingPong, PingPing) or three
            times = fields[2:3] if len(fields) == 4 else fields[2:5]
        assert all(re.fullmatch(r"\d+\.\d{3}", f) for f in times), fields
    return tables


@needs_mpi
def test_two_ranks(outputs):
    text = outputs[2]
    assert text.startswith("#")
    assert "# IMB-style benchmark (this repository)" in text
    assert "# MPI version" in text
    tables = check_tables(text)
    assert all(t["processes"] == 2 for t in tables)
    assert len(tables) == len(ALL)
    assert "# Check: all results verified" in text
    # everything but table rows (and the indented column headers) is a '#' comment
    for line in text.splitlines():
        assert not line.strip() or line.lstrip().startswith("#") or re.fullmatch(r"[\d.\s]+", line), line


@needs_mpi
def test_three_ranks_npmin2(outputs):
    tables = check_tables(outputs[3])
    procs = {}
    for t in tables:
        procs.setdefault(t["benchmark"], []).append(t["processes"])
    for name in ALL:
        assert procs[name] == ([2] if name in SINGLE else [2, 3]), (name, procs[name])
    # the idle third rank is announced where only 2 run
    assert "# ( 1 additional process waiting in MPI_Barrier)" in outputs[3]


@needs_mpi
def test_npmin_equal_world(imb):
    p = run(imb, 3, *TINY, "-npmin", "3", "allreduce", "PINGPONG")
    assert p.returncode == 0, p.stderr
    got = [(t["benchmark"], t["processes"]) for t in parse_imb(p.stdout)]
    assert got == [("PingPong", 2), ("Allreduce", 3)]


@needs_mpi
def test_repetitions_follow_volume_and_iter(imb):
    # overall volume 1 MiB: 2^17 bytes -> 8 repetitions, 2^20 -> 1; -iter caps the rest
    p = run(imb, 2, "-msglog", "16:20", "-iter", "20,1", "-time", "5", "PingPong", "Bcast")
    assert p.returncode == 0, p.stderr
    for t in parse_imb(p.stdout):
        reps = {r["#bytes"]: r["#repetitions"] for r in t["rows"]}
        assert reps == {0: 20, 65536: 16, 131072: 8, 262144: 4, 524288: 2, 1048576: 1}, reps


@needs_mpi
def test_off_cache_and_root_shift(imb):
    p = run(imb, 3, *TINY, "-off_cache", "1", "-root_shift", "0", "-check",
            "PingPong", "Reduce", "Gatherv", "Scatterv", "Exchange")
    assert p.returncode == 0, p.stdout + p.stderr
    assert "-off_cache 1,64" in p.stdout
    assert len(parse_imb(p.stdout)) == 1 + 4 * 2


@needs_mpi
def test_check_failure_is_reported(imb):
    p = run(imb, 2, "-msglog", "4:4", "-iter", "5", "-check_inject", "Allreduce", "Bcast", "Alltoall")
    assert p.returncode != 0
    assert "CHECK FAILED: Allreduce" in p.stdout and "CHECK FAILED: Bcast" in p.stdout
    assert "check failed" in p.stderr


@needs_mpi
def test_unknown_benchmark(imb):
    p = run(imb, 2, "PingPong", "NoSuchBench")
    assert p.returncode != 0
    assert "unknown benchmark 'NoSuchBench'" in p.stderr
    assert "Benchmarking" not in p.stdout


@needs_mpi
def test_bad_option(imb):
    p = run(imb, 2, "-msglog", "5:2")
    assert p.returncode != 0
    assert "-msglog" in p.stderr


@needs_mpi
def test_help(imb):
    p = run(imb, 1, "-h")
    assert p.returncode == 0
    assert "-off_cache" in p.stdout and "PingPong" in p.stdout


@pytest.mark.skipif(not WASM_MPICC.exists(), reason="toolchain/bin/wasm-mpicc missing")
def test_wasm_compile(tmp_path):
    out = tmp_path / "imb.wasm"
    p = subprocess.run([str(WASM_MPICC), "-O3", "-o", str(out), str(IMB_SRC), "-lm"],
                       capture_output=True, text=True, timeout=TIMEOUT)
    if p.returncode != 0 and "no clang with wasm32 support" in p.stderr:
        pytest.skip(p.stderr)
    assert p.returncode == 0, p.stderr
    assert out.read_bytes()[:4] == b"\0asm"


@pytest.mark.skipif(not (shutil.which("make") and MPICC), reason=f"make or mpicc.{MPI} missing")
def test_makefile_native(tmp_path):
    subprocess.run(["make", "-s", "-f", str(IMB_DIR / "Makefile"), "imb", f"CC={MPICC}"],
                   cwd=tmp_path, check=True, timeout=TIMEOUT)
    assert (tmp_path / "imb").exists()
