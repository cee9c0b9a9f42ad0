"""MPI_INFO_ENV describes the guest's process as the guest sees it: its own
argv and the job's size, never a host path (Open MPI's own has the host's
working directory and session directory)."""
import os

import pytest

from conftest import PROGRAMS, ROOT, run


def env_of(r):
    assert r.returncode == 0, r.stderr
    return dict(line.split("=", 1) for line in r.stdout.splitlines())


@pytest.mark.parametrize("np", [1, 3])
def test_info_env_is_the_guests(build, run_wasm, embedder, np, tmp_path):
    wasm = build.wasm(PROGRAMS / "info_env.c")
    r = run_wasm(wasm, "alpha", "beta", np=np, cwd=tmp_path)
    env = env_of(r)
    assert env["command"] == wasm.name
    assert env["argv"] == "alpha beta"
    assert env["maxprocs"] == str(np) and env["soft"] == str(np)
    assert env["thread_level"] == "MPI_THREAD_SINGLE"
    host_paths = [str(tmp_path), str(ROOT), str(embedder), os.path.realpath("/tmp")]
    leaked = [(k, v) for k, v in env.items() for p in host_paths if p in v]
    assert not leaked, leaked
    assert "wdir" not in env


def test_info_env_in_a_sessions_only_program(build, run_wasm, mpi, embedder):
    wasm = build.wasm(PROGRAMS / "info_env.c")
    r = run_wasm(wasm, "session", np=2)
    provided = run(mpi.cmd(1, embedder, "inspect", "--provided")).stdout
    if "MPI_Session_init\tsession\thand-written\thost: yes" not in provided:
        # Open MPI 4.1: no sessions
        assert r.returncode != 0 and "does not provide MPI_Session_init" in r.stderr, r.stderr
        return
    env = env_of(r)
    assert env["command"] == wasm.name and env["argv"] == "session" and env["maxprocs"] == "2"
