"""How the guest ends, its arguments, environment and files."""
import os
import time

import pytest

from conftest import PROGRAMS, run


def test_guest_exit_code_becomes_the_process_exit_code(build, run_wasm, run_native):
    wasm = build.wasm(PROGRAMS / "exit_code.c")
    assert run_wasm(wasm, "3").returncode == 3
    assert run_wasm(wasm, "0").returncode == 0
    assert run_native(build.native(PROGRAMS / "exit_code.c"), "3").returncode != 0
    # under mpirun a non-zero exit fails the job
    assert run_wasm(wasm, "3", np=2).returncode != 0
    assert run_wasm(wasm, "0", np=2).returncode == 0


def test_arguments_reach_the_guest_unchanged(build, run_wasm, run_native):
    args = ["--in", "/data/x", "-v", "--", "-d", "compile", "two words", ""]
    wasm = run_wasm(build.wasm(PROGRAMS / "args_env.c"), *args)
    native = run_native(build.native(PROGRAMS / "args_env.c"), *args)
    assert wasm.returncode == 0, wasm.stderr
    assert wasm.stdout == native.stdout
    assert "argv[3]=-v" in wasm.stdout and "argc=9" in wasm.stdout


def test_environment_is_explicit(build, run_wasm):
    wasm = build.wasm(PROGRAMS / "args_env.c")
    names = "ARGS_ENV_NAMES,FOO,SLURM_TEST_JOB,SLURM_TEST_OTHER,SECRET_HOST_VAR"
    r = run_wasm(
        wasm,
        opts=["--env", f"ARGS_ENV_NAMES={names}", "--env", "FOO=bar=baz", "--env-inherit", "SLURM_TEST_*"],
        env={"SLURM_TEST_JOB": "42", "SLURM_TEST_OTHER": "x", "SECRET_HOST_VAR": "leak"},
    )
    assert r.returncode == 0, r.stderr
    assert "FOO=bar=baz" in r.stdout
    assert "SLURM_TEST_JOB=42" in r.stdout and "SLURM_TEST_OTHER=x" in r.stdout
    assert "SECRET_HOST_VAR=(unset)" in r.stdout, "host variables are not passed unless asked for"


@pytest.fixture
def data_dir(tmp_path):
    d = tmp_path / "data"
    d.mkdir()
    (d / "x").write_text("hello from the host")
    (tmp_path / "secret").write_text("outside the preopen")
    return d


def test_preopened_directory_is_visible_by_its_basename(build, run_wasm, data_dir):
    wasm = build.wasm(PROGRAMS / "files.c")
    r = run_wasm(wasm, "read", "/data/x", opts=["-d", data_dir])
    assert r.returncode == 0, r.stderr + r.stdout
    assert "read 19 bytes: hello from the host" in r.stdout
    w = run_wasm(wasm, "write", "/data/out.txt", "written by the guest", opts=["--dir", data_dir])
    assert w.returncode == 0, w.stderr + w.stdout
    assert (data_dir / "out.txt").read_text() == "written by the guest"
    m = run_wasm(wasm, "read", "/input/x", opts=["--mapdir", f"/input:{data_dir}"])
    assert "hello from the host" in m.stdout


@pytest.mark.parametrize(
    "path",
    ["/etc/passwd", "/data/../secret", "/data/../../etc/passwd", "../secret", "PLACEHOLDER_HOST_PATH"],
)
def test_files_outside_the_preopens_cannot_be_read(build, run_wasm, data_dir, path):
    if path == "PLACEHOLDER_HOST_PATH":
        path = str(data_dir.parent / "secret")  # the host's absolute path means nothing in the guest
    r = run_wasm(build.wasm(PROGRAMS / "files.c"), "read", path, opts=["-d", data_dir])
    assert r.returncode == 1, r.stdout + r.stderr
    assert "cannot open" in r.stdout
    assert "outside the preopen" not in r.stdout and "root:" not in r.stdout


def test_preopen_errors_are_clear(build, run_wasm, tmp_path):
    wasm = build.wasm(PROGRAMS / "files.c")
    r = run_wasm(wasm, "read", "/x", opts=["-d", tmp_path / "nope"])
    assert r.returncode != 0 and "cannot preopen" in r.stderr
    (tmp_path / "file").write_text("")
    r = run_wasm(wasm, "read", "/x", opts=["-d", tmp_path / "file"])
    assert r.returncode != 0 and "not a directory" in r.stderr


def test_malformed_modules_fail_on_every_rank_without_hanging(run_wasm, tmp_path, build, mpi, embedder, cache_dir):
    garbage = tmp_path / "garbage.wasm"
    garbage.write_bytes(b"definitely not wasm")
    truncated = tmp_path / "truncated.wasm"
    truncated.write_bytes(build.wasm(PROGRAMS / "exit_code.c").read_bytes()[:1000])
    for module, message in [(garbage, "not a WebAssembly module"), (truncated, "not a valid module")]:
        start = time.monotonic()
        r = run_wasm(module, np=2, timeout=60)
        assert r.returncode != 0 and message in r.stderr, r.stderr
        # each rank rejects the module itself: a wrapper reports every rank's exit
        # status (the launcher would end the other rank once one fails)
        each = run(mpi.cmd(2, "sh", "-c", '"$0" "$@"; echo "rank exited with $?" >&2', embedder, "--cache-dir",
                           cache_dir, module), timeout=60)
        assert each.stderr.count(message) == 2 and each.stderr.count("rank exited with 1") == 2, each.stderr
        assert time.monotonic() - start < 60
        single = run_wasm(module)
        assert single.returncode == 1 and message in single.stderr and "panicked" not in single.stderr


def test_missing_non_mpi_import_is_named(build, run_wasm, tmp_path):
    wasm = build.wasm(PROGRAMS / "missing_import.c")
    r = run_wasm(wasm)
    assert r.returncode != 0
    assert "env.host_thing" in r.stderr and "does not provide" in r.stderr


def test_missing_module_file(run_wasm, tmp_path):
    r = run_wasm(tmp_path / "absent.wasm")
    assert r.returncode == 1 and "cannot read" in r.stderr
