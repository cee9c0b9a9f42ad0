"""A successful run prints only what the guest prints: harnesses (MPICH's
runtests, CTest, job scripts that diff output) count any extra line as a
failure. The compile notice goes to a terminal, or anywhere with -v."""
import os
import pty
import subprocess

from conftest import PROGRAMS, TIMEOUT

NOTICE = "embedder: compiling output.wasm with LLVM"


def run_to_files(cmd, tmp_path, name):
    out, err = tmp_path / f"{name}.out", tmp_path / f"{name}.err"
    with open(out, "w") as o, open(err, "w") as e:
        code = subprocess.run([str(c) for c in cmd], stdout=o, stderr=e, stdin=subprocess.DEVNULL,
                              timeout=TIMEOUT).returncode
    return code, out.read_text(), err.read_text()


def test_cold_run_redirected_to_files_leaves_only_the_guests_output(build, mpi, embedder, tmp_path):
    src = PROGRAMS / "output.c"
    cold = tmp_path / "cache"
    code, out, err = run_to_files(mpi.cmd(4, embedder, "--cache-dir", cold, build.wasm(src)), tmp_path, "wasm")
    assert code == 0, err
    assert list(cold.glob("*.bin")), "the run was not a cold compile into the cache"
    ncode, nout, nerr = run_to_files(mpi.cmd(4, build.native(src)), tmp_path, "native")
    assert ncode == 0, nerr
    assert out == nout and "rank 3 of 4: 9\n" in out
    assert err == nerr == "guest stderr: 4 ranks\n"


def test_verbose_shows_the_compile_notice_once(build, mpi, embedder, tmp_path):
    cmd = mpi.cmd(4, embedder, "-v", "--cache-dir", tmp_path, build.wasm(PROGRAMS / "output.c"))
    r = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=TIMEOUT)
    assert r.returncode == 0, r.stderr
    assert r.stderr.count(NOTICE) == 1, r.stderr


def test_a_terminal_sees_the_compile_notice(build, embedder, tmp_path):
    wasm = build.wasm(PROGRAMS / "output.c")
    leader, follower = pty.openpty()
    try:
        r = subprocess.run([str(embedder), "--cache-dir", str(tmp_path), str(wasm)], stdout=subprocess.PIPE,
                           stderr=follower, stdin=subprocess.DEVNULL, timeout=TIMEOUT)
        os.close(follower)
        follower = None
        seen = b""
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # the terminal's other end is closed: all read
                break
            if not chunk:
                break
            seen += chunk
    finally:
        os.close(leader)
        if follower is not None:
            os.close(follower)
    assert r.returncode == 0, seen
    text = seen.decode().replace("\r\n", "\n")
    assert NOTICE in text and "guest stderr: 1 ranks" in text, text
    assert b"rank 0 of 1: 0" in r.stdout
