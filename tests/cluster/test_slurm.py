"""The job scripts (jobscripts/) and the embedder under a real Slurm:
Debian's slurmctld and two slurmd ("node1", "node2", each with a host name
of its own; tests/cluster/slurm.py) plus munge, started for this module and
torn down after it, whatever happens.

Each script is submitted with `sbatch --wait` (its exit code is the job's)
and its output checked; then salloc + srun, scancel of a running wasm job,
and what of Slurm's environment reaches the guest."""
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from slurm import NODES, SlurmCluster, SlurmError  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
EMBEDDER = Path(os.environ.get("EMBEDDER_BIN") or ROOT / "target" / "release" / "embedder").resolve()
WASM_MPICC = ROOT / "toolchain" / "bin" / "wasm-mpicc"
JOBSCRIPTS = ROOT / "jobscripts"
PROGRAM = Path(__file__).resolve().parent / "programs" / "cluster_check.c"
TIMEOUT = 180
# the native build and the PMI plugin of each host MPI under srun
MPIS = {"openmpi": ("mpicc.openmpi", "pmix", "mpirun.openmpi"), "mpich": ("mpicc.mpich", "pmi2", "mpirun.mpich")}


@pytest.fixture(scope="module")
def slurm(tmp_path_factory):
    if os.geteuid() != 0:
        pytest.skip("needs root: slurmd starts job steps as their users")
    if not EMBEDDER.exists():
        pytest.fail(f"{EMBEDDER} is missing: run `make build` first")
    # a short path: munge's socket must fit in a sockaddr_un
    root = tmp_path_factory.mktemp("slurm", numbered=True)
    with SlurmCluster(root) as cluster:
        yield cluster


@pytest.fixture(scope="module")
def builds(tmp_path_factory):
    out = tmp_path_factory.mktemp("cluster-builds")
    built = {"wasm": out / "cluster_check.wasm"}
    cmds = [[WASM_MPICC, "-O2", "-o", built["wasm"], PROGRAM]]
    for mpi, (mpicc, _, _) in MPIS.items():
        built[mpi] = out / f"cluster_check.{mpi}"
        cmds.append([mpicc, "-O2", "-o", built[mpi], PROGRAM])
    for cmd in cmds:
        r = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=TIMEOUT)
        assert r.returncode == 0, f"{cmd}: {r.stderr}"
    return built


def sbatch(slurm, script, workdir, *opts, timeout=TIMEOUT, **knobs):
    """Submits a job script with --wait; returns (exit code, output, job id).
    Knobs reach the script through sbatch's environment, as a user's would."""
    workdir.mkdir(parents=True, exist_ok=True)
    env = {"EMBEDDER_HOME": str(ROOT), "EMBEDDER": str(EMBEDDER), **{k: str(v) for k, v in knobs.items()}}
    try:
        r = slurm.run(["sbatch", "--wait", "--parsable", "-o", workdir / "job-%j.out", *opts, JOBSCRIPTS / script],
                      check=False, timeout=timeout, env=env, cwd=workdir)
    except subprocess.TimeoutExpired as e:
        pytest.fail(f"{script} did not end in {timeout} s: {e.stdout}\n{slurm.logs()}")
    match = re.match(r"(\d+)", r.stdout.strip())
    assert match, f"sbatch printed no job id: {r.stdout!r} {r.stderr!r}"
    job = match.group(1)
    out = workdir / f"job-{job}.out"
    return r.returncode, out.read_text() if out.exists() else "", job


def expected_lines(size, per_node):
    """cluster_check's lines, computed here: rank r on node1 or node2."""
    sum_sq = sum((r + 1) ** 2 for r in range(size))
    lines = []
    for r in range(size):
        left = ((r - 1) % size + 1) ** 2
        host = NODES[r // per_node]
        lines.append(f"rank {r} of {size} on {host}: node ranks {per_node}, sum {sum_sq}, from left {left}, "
                     f"SLURM_PROCID unset")
    return lines


def rank_lines(output):
    return sorted(line for line in output.splitlines() if line.startswith("rank "))


# -- run-app.sbatch --------------------------------------------------------------

@pytest.mark.parametrize("mpi", list(MPIS))
def test_run_app_srun(slurm, builds, tmp_path, mpi):
    """srun --mpi=pmix (Open MPI) / pmi2 (MPICH), 2 nodes x 2 ranks, the
    same embedder binary: each rank on its node, results as computed."""
    _, plugin, _ = MPIS[mpi]
    rc, out, _ = sbatch(slurm, "run-app.sbatch", tmp_path, "-N", "2", "--ntasks-per-node=2",
                        APP=builds["wasm"], SRUN_MPI=plugin, CACHE_DIR=tmp_path / "cache")
    assert rc == 0, out
    assert rank_lines(out) == expected_lines(4, 2), out
    assert "ok" in out.splitlines()


@pytest.mark.parametrize("mpi", list(MPIS))
def test_run_app_mpirun_in_allocation(slurm, builds, tmp_path, mpi):
    """LAUNCH=mpirun: the MPI's own launcher finds the allocation and starts
    its daemons with srun."""
    _, _, mpirun = MPIS[mpi]
    rc, out, _ = sbatch(slurm, "run-app.sbatch", tmp_path, "-N", "2", "--ntasks-per-node=2",
                        APP=builds["wasm"], LAUNCH="mpirun", MPIRUN=mpirun,
                        MPIRUN_ARGS="--allow-run-as-root" if mpi == "openmpi" else "",
                        CACHE_DIR=tmp_path / "cache")
    assert rc == 0, out
    assert rank_lines(out) == expected_lines(4, 2), out


def test_warm_up_step_means_no_rank_compiles(slurm, builds, tmp_path):
    """The warm-up step compiles once per node into the (empty) cache; every
    rank then loads it. Without the step the ranks compile themselves, which
    the same check sees."""
    cache = tmp_path / "cache"
    rc, out, _ = sbatch(slurm, "run-app.sbatch", tmp_path / "warm", "-N", "2", "--ntasks-per-node=2",
                        APP=builds["wasm"], CACHE_DIR=cache, RUN_OPTS="--timings")
    assert rc == 0, out
    warm_up = [line for line in out.splitlines() if line.startswith(str(builds["wasm"]) + ":")]
    assert len(warm_up) == 2 and any("compiled and cached" in line for line in warm_up), out
    loads = re.findall(r"timings rank \d+: load [\d.]+ s \(([^,]+),", out)
    assert loads == ["cache hit"] * 4, out

    rc, out, _ = sbatch(slurm, "run-app.sbatch", tmp_path / "cold", "-N", "2", "--ntasks-per-node=2",
                        APP=builds["wasm"], CACHE_DIR=tmp_path / "cold-cache", RUN_OPTS="--timings", WARM_CACHE=0)
    assert rc == 0, out
    loads = re.findall(r"timings rank \d+: load [\d.]+ s \(([^,]+),", out)
    assert len(loads) == 4 and "cache hit" not in loads, out


def test_trap_on_one_rank_fails_the_job_promptly(slurm, builds, tmp_path):
    t0 = time.monotonic()
    rc, out, _ = sbatch(slurm, "run-app.sbatch", tmp_path, "-N", "2", "--ntasks-per-node=2",
                        APP=builds["wasm"], APP_ARGS="trap", CACHE_DIR=tmp_path / "cache", timeout=120)
    took = time.monotonic() - t0
    assert rc != 0, out
    assert "rank 1: guest trapped: out of bounds memory access" in out, out
    assert took < 90, f"the job took {took:.0f} s to end after a trap"


def test_slurm_environment_reaches_the_guest_only_when_asked(slurm, builds, tmp_path):
    rc, out, _ = sbatch(slurm, "run-app.sbatch", tmp_path / "inherit", "-N", "2", "--ntasks-per-node=2",
                        APP=builds["wasm"], CACHE_DIR=tmp_path / "cache", RUN_OPTS="--env-inherit SLURM_*")
    assert rc == 0, out
    procids = {int(m.group(1)): m.group(2) for m in re.finditer(r"^rank (\d+) of .*SLURM_PROCID (\S+)$", out, re.M)}
    assert procids == {r: str(r) for r in range(4)}, out
    # without it: the default run's lines say "unset" (test_run_app_srun checks them exactly)
    rc, out, _ = sbatch(slurm, "run-app.sbatch", tmp_path / "default", "-N", "1", "--ntasks-per-node=2",
                        APP=builds["wasm"], CACHE_DIR=tmp_path / "cache")
    assert rc == 0, out
    assert rank_lines(out) == expected_lines(2, 2), out


# -- native-vs-wasm.sbatch -------------------------------------------------------

@pytest.mark.parametrize("mpi", list(MPIS))
def test_native_vs_wasm_pairs(slurm, builds, tmp_path, mpi):
    _, plugin, _ = MPIS[mpi]
    rc, out, _ = sbatch(slurm, "native-vs-wasm.sbatch", tmp_path, "-N", "2", "--ntasks-per-node=2",
                        NATIVE=builds[mpi], WASM=builds["wasm"], REPS=2, SRUN_MPI=plugin,
                        RUN_OPTS="--env-inherit SLURM_*", CACHE_DIR=tmp_path / "cache", OUT_DIR=tmp_path / "pairs")
    assert rc == 0, out
    rows = re.findall(r"^(\d+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)$", out, re.M)
    assert [r[0] for r in rows] == ["1", "2"], out
    for _, native, wasm, ratio in rows:
        assert float(native) > 0 and float(wasm) > 0
        assert abs(float(ratio) - float(wasm) / float(native)) < 0.01
    assert re.search(r"median wall-time ratio wasm/native over 2 pairs: [\d.]+", out), out
    # the outputs were compared, and are what the program computes
    wasm = rank_lines((tmp_path / "pairs" / "wasm-1.out").read_text())
    assert [re.sub(r"SLURM_PROCID \d+$", "SLURM_PROCID unset", line) for line in wasm] == expected_lines(4, 2)


def test_native_vs_wasm_catches_different_outputs(slurm, builds, tmp_path):
    """COMPARE=1 notices when the builds disagree: without --env-inherit the
    guest does not see the SLURM_PROCID the native ranks print."""
    rc, out, _ = sbatch(slurm, "native-vs-wasm.sbatch", tmp_path, "-N", "1", "--ntasks-per-node=2",
                        NATIVE=builds["openmpi"], WASM=builds["wasm"], REPS=1,
                        CACHE_DIR=tmp_path / "cache", OUT_DIR=tmp_path / "pairs")
    assert rc != 0, out
    assert "pair 1: the outputs differ" in out, out
    diff = (tmp_path / "pairs" / "diff-1.txt").read_text()
    assert "SLURM_PROCID 0" in diff and "SLURM_PROCID unset" in diff, diff


# -- sweeps ------------------------------------------------------------------------

@pytest.mark.parametrize("program", ["imb", "hpcg"])
def test_scaling_sweep_lands_where_plot_reads(slurm, tmp_path, program):
    results = tmp_path / "results"
    rc, out, _ = sbatch(slurm, f"{program}-sweep.sbatch", tmp_path, "-N", "2", "--ntasks-per-node=1",
                        NODES_LIST="1 2", RANKS_PER_NODE_LIST="1", REPS=1, BENCH_ARGS="--quick",
                        MPICC="mpicc.openmpi", RESULTS_DIR=results, CACHE_DIR=tmp_path / "cache",
                        timeout=600)
    assert rc == 0, out
    runs = list((results / "rpn1").iterdir())
    assert len(runs) == 1, runs
    run = runs[0]
    table = (run / f"{program}.csv").read_text().splitlines()
    header = table[0].split(",")
    rows = [dict(zip(header, line.split(","))) for line in table[1:]]
    assert {(r["kind"], r["ranks"]) for r in rows} == {(k, n) for k in ("native", "wasm") for n in ("1", "2")}, table
    # the ranks ran on as many nodes as the layout says (srun -N ceil(n/1))
    cmds = (run / "runs.csv").read_text()
    assert "-n 2 -N 2 --ntasks-per-node=1" in cmds and "-n 1 -N 1 --ntasks-per-node=1" in cmds, cmds
    assert (run / "report.md").exists(), out
    assert list((run / "plots").glob("*.png")), out


# -- interactive use ---------------------------------------------------------------

def test_salloc_and_srun(slurm, builds, tmp_path):
    r = slurm.run(["salloc", "-N", "2", "--ntasks-per-node=2", "srun", "--mpi=pmix", EMBEDDER,
                   "--cache-dir", tmp_path / "cache", builds["wasm"]], check=False, timeout=TIMEOUT)
    assert r.returncode == 0, r.stdout + r.stderr
    assert rank_lines(r.stdout) == expected_lines(4, 2), r.stdout + r.stderr


def shm_files():
    return set(os.listdir("/dev/shm")) if os.path.isdir("/dev/shm") else set()


def test_scancel_ends_every_rank(slurm, builds, tmp_path):
    """scancel of a running wasm job: every rank's process ends, and the
    MPI's shared-memory segments in /dev/shm go with them."""
    shm_before = shm_files()
    r = slurm.run(["sbatch", "--parsable", "-N", "2", "--ntasks-per-node=2", "-o", tmp_path / "spin-%j.out",
                   JOBSCRIPTS / "run-app.sbatch"], cwd=tmp_path,
                  env={"EMBEDDER_HOME": str(ROOT), "EMBEDDER": str(EMBEDDER), "APP": str(builds["wasm"]),
                       "APP_ARGS": "spin", "CACHE_DIR": str(tmp_path / "cache")})
    job = r.stdout.strip().split(";")[0]
    out = tmp_path / f"spin-{job}.out"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:  # all four ranks running
        if out.exists() and out.read_text().count("spinning") == 4:
            break
        time.sleep(0.5)
    else:
        pytest.fail(f"the ranks did not start: {out.read_text() if out.exists() else ''}\n{slurm.logs()}")
    ranks = [p for p in slurm.job_processes(job) if "embedder" in Path(f"/proc/{p}/exe").resolve().name]
    assert len(ranks) >= 4, ranks
    slurm.run(["scancel", job])
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and slurm.job_processes(job):
        time.sleep(0.5)
    left = slurm.job_processes(job)
    assert not left, f"processes of job {job} still alive 60 s after scancel: {left}"
    deadline = time.monotonic() + 30  # COMPLETING until the nodes report back
    while "JobState=COMPLETING" in (state := slurm.run(["scontrol", "show", "job", job]).stdout):
        if time.monotonic() > deadline:
            break
        time.sleep(0.5)
    assert "JobState=CANCELLED" in state, state
    # The segments a killed rank leaves are unlinked by the step's PMIx server
    # (Open MPI registers them for cleanup), which may finish after the ranks
    # are gone: give it until the step's teardown is surely over.
    deadline = time.monotonic() + 30
    while (left_shm := shm_files() - shm_before) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert not left_shm, f"left in /dev/shm 30 s after the job ended: {left_shm}"


# -- bad input ------------------------------------------------------------------

def test_scripts_refuse_to_run_outside_a_job(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("SLURM_")}
    env.update(EMBEDDER_HOME=str(ROOT), SLURM_SUBMIT_DIR=str(tmp_path), NATIVE="/bin/true", WASM="/dev/null")
    for script in ("run-app.sbatch", "native-vs-wasm.sbatch", "imb-sweep.sbatch"):
        r = subprocess.run(["bash", JOBSCRIPTS / script], capture_output=True, text=True, timeout=30, env=env,
                           cwd=tmp_path)
        assert r.returncode == 2, (script, r.stdout, r.stderr)
        assert "not inside a Slurm job: submit with sbatch" in r.stderr, r.stderr


def test_bad_knobs_fail_the_job_with_a_message(slurm, builds, tmp_path):
    rc, out, _ = sbatch(slurm, "run-app.sbatch", tmp_path / "launch", "-N", "1", "--ntasks-per-node=1",
                        APP=builds["wasm"], LAUNCH="ssh", CACHE_DIR=tmp_path / "cache")
    assert rc != 0 and "LAUNCH is srun or mpirun, not 'ssh'" in out, out
    rc, out, _ = sbatch(slurm, "run-app.sbatch", tmp_path / "app", "-N", "1", "--ntasks-per-node=1",
                        APP=tmp_path / "missing.wasm", CACHE_DIR=tmp_path / "cache")
    assert rc != 0 and f"cannot read {tmp_path / 'missing.wasm'}" in out, out
    assert "rank " not in out  # the warm-up step failed the job before any rank started
    rc, out, _ = sbatch(slurm, "native-vs-wasm.sbatch", tmp_path / "pairs", "-N", "1", "--ntasks-per-node=1",
                        WASM=builds["wasm"], CACHE_DIR=tmp_path / "cache")
    assert rc != 0 and "set NATIVE to the natively built program" in out, out
    rc, out, _ = sbatch(slurm, "run-app.sbatch", tmp_path / "emb", "-N", "1", "--ntasks-per-node=1",
                        APP=builds["wasm"], EMBEDDER=tmp_path / "no-embedder")
    assert rc == 2 and "no embedder at" in out, out


def test_sweep_larger_than_the_allocation_fails(slurm, tmp_path):
    """A layout the allocation cannot hold (3 nodes of 2) fails the job
    rather than producing a table with a hole."""
    rc, out, _ = sbatch(slurm, "imb-sweep.sbatch", tmp_path, "-N", "2", "--ntasks-per-node=1",
                        NODES_LIST="3", RANKS_PER_NODE_LIST="1", REPS=1, BENCH_ARGS="--quick", PLOT=0,
                        MPICC="mpicc.openmpi", RESULTS_DIR=tmp_path / "results", CACHE_DIR=tmp_path / "cache",
                        timeout=300)
    assert rc != 0, out
    assert "EXIT" in out, out
