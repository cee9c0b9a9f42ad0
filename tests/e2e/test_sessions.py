"""MPI-4.0 sessions (tests/e2e/programs/sessions.c): native vs wasm where the
host library has sessions; elsewhere (Open MPI 4.1) the first session call
ends the job with a message naming it. MPI_Info_create_env is the
embedder's own and works on every host."""
import pytest

from conftest import MPI, PROGRAMS, run

SRC = PROGRAMS / "sessions.c"
COMPARED = ["sessions-only", "mixed", "errhandler", "bad-input"]
# (host, scenario) -> why the native program fails there (the wasm one
# must still pass: the embedder checks what the host does not)
NATIVE_FAILS = {
    ("mpich", "errhandler"): "MPICH 4.0.2 aborts on an unknown pset name whatever the session's error handler",
    ("mpich", "bad-input"): "MPICH 4.0.2 crashes on a pset index out of range",
    ("mpich-abi", "errhandler"): "MPICH 5.0.2's ABI library does not check a negative count",
}
# (host, scenario, np) -> a host bug both builds hit (the same message)
BOTH_FAIL = {
    ("mpich", "sessions-only", 1): "Assertion failed in file src/mpi/comm/comm_impl.c at line 792: is_self_group(group_ptr)",
}
SESSION_FUNCTIONS = """MPI_Session_init MPI_Session_finalize MPI_Session_get_info MPI_Session_get_num_psets
MPI_Session_get_nth_pset MPI_Session_get_pset_info MPI_Group_from_session_pset MPI_Comm_create_from_group
MPI_Intercomm_create_from_groups MPI_Session_create_errhandler MPI_Session_set_errhandler
MPI_Session_get_errhandler MPI_Session_call_errhandler MPI_Info_create_env MPI_Get_hw_resource_info
MPI_Session_attach_buffer MPI_Session_attach_buffer_c MPI_Session_detach_buffer MPI_Session_detach_buffer_c
MPI_Session_flush_buffer MPI_Session_iflush_buffer""".split()


@pytest.fixture(scope="module")
def provided(mpi, embedder):
    """inspect --provided under the launcher: name -> its row."""
    r = run(mpi.cmd(1, embedder, "inspect", "--provided"))
    assert r.returncode == 0, r.stderr
    return {row[0]: row for row in (line.split("\t") for line in r.stdout.splitlines()) if row[0].startswith("MPI_")}


@pytest.fixture(scope="module")
def sessions(provided):
    return provided["MPI_Session_init"][-1] == "host: yes"


def test_the_session_functions_are_provided(provided):
    for name in SESSION_FUNCTIONS:
        assert name in provided, name
        assert provided[name][1:3] == ["session", "hand-written"], provided[name]
    assert provided["MPI_Info_create_env"][-1] == "host: not needed"


@pytest.mark.parametrize("np", [1, 3])
@pytest.mark.parametrize("scenario", COMPARED)
def test_sessions_native_vs_wasm(build, run_wasm, run_native, sessions, scenario, np):
    wasm = run_wasm(build.wasm(SRC), scenario, np=np)
    if not sessions:
        assert wasm.returncode != 0, wasm.stdout
        assert "does not provide MPI_Session_init" in wasm.stderr, wasm.stderr
        return
    native = run_native(build.native(SRC), scenario, np=np)
    if (MPI, scenario, np) in BOTH_FAIL:
        # MPICH 4.0.2 at one process: a communicator from mpi://SELF's group
        for r in (wasm, native):
            assert r.returncode != 0 and BOTH_FAIL[MPI, scenario, np] in r.stderr, r.stderr
        return
    assert wasm.returncode == 0, wasm.stdout + wasm.stderr
    assert wasm.stdout.splitlines()[-1] == f"{scenario} ok", wasm.stdout
    if (MPI, scenario) in NATIVE_FAILS:
        assert native.returncode != 0, f"{NATIVE_FAILS[MPI, scenario]}: no longer so?\n{native.stdout}"
        return
    assert native.returncode == 0, native.stdout + native.stderr
    assert wasm.stdout == native.stdout


def test_an_error_under_the_default_handler_ends_a_sessions_only_job(build, run_wasm, sessions):
    wasm = run_wasm(build.wasm(SRC), "fatal", np=3)
    assert wasm.returncode != 0 and "survived" not in wasm.stdout, wasm.stdout
    if sessions:
        assert 'MPI_Group_from_session_pset: MPI_ERR_ARG: the session has no process set "mpi://no-such-pset"' in wasm.stderr, wasm.stderr
    else:
        assert "does not provide MPI_Session_init" in wasm.stderr, wasm.stderr


def test_mpi_init_after_the_last_session_is_refused_not_a_host_crash(build, run_wasm, sessions):
    wasm = run_wasm(build.wasm(SRC), "init-after-sessions", np=2)
    assert wasm.returncode != 0 and "survived" not in wasm.stdout, wasm.stdout
    assert "Segmentation fault" not in wasm.stderr and "signal 11" not in wasm.stderr, wasm.stderr
    if sessions:
        assert "sessions finalized" in wasm.stdout
        assert "MPI_Init: MPI_ERR_OTHER: MPI_Init after the last session was finalized is not supported" in wasm.stderr, wasm.stderr
    else:
        assert "does not provide MPI_Session_init" in wasm.stderr, wasm.stderr


def test_a_trap_ends_a_sessions_only_job(build, run_wasm, sessions):
    wasm = run_wasm(build.wasm(SRC), "trap", np=3, timeout=60)
    assert wasm.returncode != 0, wasm.stdout
    if not sessions:
        assert "does not provide MPI_Session_init" in wasm.stderr, wasm.stderr
        return
    assert "rank 1: guest trapped" in wasm.stderr, wasm.stderr
    assert "passed the barrier" not in wasm.stdout


@pytest.mark.parametrize("np", [1, 3])
def test_info_create_env_is_the_embedders_own(build, run_wasm, sessions, np):
    # with the world model on every host; also in a session where the host has them
    wasm = run_wasm(build.wasm(SRC), "info-env-world", np=np)
    assert wasm.returncode == 0 and wasm.stdout == "info-env-world ok\n", wasm.stdout + wasm.stderr
    if sessions:
        wasm = run_wasm(build.wasm(SRC), "info-env", "two", "words", np=np)
        assert wasm.returncode == 0 and wasm.stdout == "info-env ok\n", wasm.stdout + wasm.stderr


BUFFER_FUNCTIONS = ["MPI_Session_init", "MPI_Session_attach_buffer"]


@pytest.mark.parametrize("np", [1, 3])
def test_session_buffers(build, run_wasm, run_native, provided, np):
    """MPI-4.1: only MPICH 5's ABI library has them here."""
    wasm = run_wasm(build.wasm(SRC), "buffer", np=np)
    missing = [f for f in BUFFER_FUNCTIONS if provided[f][-1] != "host: yes"]
    if missing:
        assert wasm.returncode != 0, wasm.stdout
        assert f"does not provide {missing[0]}" in wasm.stderr, wasm.stderr
        return
    native = run_native(build.native(SRC), "buffer", np=np)
    assert native.returncode == 0, native.stdout + native.stderr
    assert wasm.returncode == 0, wasm.stdout + wasm.stderr
    assert wasm.stdout == native.stdout == "buffer ok\n"


# glibc fills freed memory, so that a read of it goes wrong at once
FREED_FILLED = {"MALLOC_PERTURB_": "165"}


def test_a_session_finalized_with_a_flush_pending(build, run_wasm, run_native, provided):
    """A session's buffer flush left pending at its MPI_Session_finalize
    (erroneous): MPICH 5 frees the flush's state there and reads it at the
    next session's detach (SIGSEGV, natively too: fuzz seed 79045). The
    embedder completes a session's flushes before finalizing it, so the
    guest's later wait completes at once."""
    wasm = run_wasm(build.wasm(SRC), "buffer-finalized", np=1, env=FREED_FILLED)
    missing = [f for f in BUFFER_FUNCTIONS if provided[f][-1] != "host: yes"]
    if missing:
        assert wasm.returncode != 0 and f"does not provide {missing[0]}" in wasm.stderr, wasm.stderr
        return
    assert wasm.returncode == 0, wasm.stdout + wasm.stderr
    assert wasm.stdout == "buffer-finalized ok\n"
    native = run_native(build.native(SRC), "buffer-finalized", np=1, env=FREED_FILLED)
    assert native.returncode != 0, f"MPICH 5.0.2 reads a finalized session's flush: no longer so?\n{native.stdout}"
