"""POSIX file semantics through the embedder's WASI, line by line against
the same program built natively (programs/posix_io.c): several descriptors
on one file, truncating opens under another descriptor, fstat after changes
made elsewhere, O_APPEND from several ranks at once, large single calls."""
from conftest import PROGRAMS

NP = 4


def test_file_semantics_match_native(build, run_wasm, run_native, tmp_path):
    native_dir, wasm_dir = tmp_path / "native", tmp_path / "wasm"
    native_dir.mkdir(), wasm_dir.mkdir()
    n = run_native(build.native(PROGRAMS / "posix_io.c"), native_dir, np=NP)
    assert n.returncode == 0, n.stderr
    w = run_wasm(build.wasm(PROGRAMS / "posix_io.c"), "/io", np=NP, opts=["--mapdir", f"/io:{wasm_dir}"])
    assert w.returncode == 0, w.stderr
    assert w.stdout.splitlines() == n.stdout.splitlines()
    # what the native run shows is what POSIX says
    out = n.stdout
    assert "reopened with O_TRUNC: fstat 0, SEEK_END 0" in out
    assert "first reads on: 8 bytes ' world!!'" in out
    assert "append after another descriptor truncated: fstat 32" in out
    assert "one write() of 16 MiB: 16777216" in out
    assert f"log: {NP * 200} whole lines from {NP} ranks, 0 torn, every line of every rank: 1" in out
    assert "by all ranks at once that failed: 0" in out
    # and the host files agree
    assert (wasm_dir / "log.txt").stat().st_size == NP * 200 * 52
    assert (wasm_dir / "two.dat").read_bytes() == b"hello world!!"
    assert (wasm_dir / "append.dat").read_bytes() == b"xyz"
    for k in range(50):
        data = (wasm_dir / f"shared.{k}").read_bytes()
        assert [int.from_bytes(data[4 * r:4 * r + 4], "little") for r in range(NP)] == list(range(NP))
