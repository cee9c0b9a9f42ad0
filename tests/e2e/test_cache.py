"""The compile cache seen from the command line."""
import re

from conftest import EXAMPLES, PROGRAMS, run


def timing_outcomes(stderr):
    return re.findall(r"timings(?: rank \d+)?: load [\d.]+ s \(([^,]+),", stderr)


def test_cold_start_on_many_ranks_compiles_once(build, mpi, embedder, tmp_path):
    wasm = build.wasm(EXAMPLES / "ring.c")
    cmd = mpi.cmd(4, embedder, "-v", "--cache-dir", tmp_path, "--timings", wasm)
    r = run(cmd)
    assert r.returncode == 0, r.stderr
    outcomes = timing_outcomes(r.stderr)
    assert len(outcomes) == 4, r.stderr
    assert outcomes.count("compiled and cached") == 1, outcomes
    assert r.stderr.count("compiling ring.wasm with LLVM, cached for later runs") == 1
    again = run(cmd)
    assert timing_outcomes(again.stderr) == ["cache hit"] * 4


def test_corrupted_entry_is_rebuilt(build, embedder, tmp_path):
    wasm = build.wasm(PROGRAMS / "exit_code.c")
    base = [embedder, "--cache-dir", tmp_path]
    assert run([*base, "compile", wasm]).returncode == 0
    (entry,) = tmp_path.glob("*.bin")
    data = bytearray(entry.read_bytes())
    data[len(data) // 2] ^= 0xFF
    entry.write_bytes(bytes(data))
    r = run([*base, "--timings", wasm, "5"])
    assert r.returncode == 5, r.stderr
    assert "discarding cache entry" in r.stderr and "checksum mismatch" in r.stderr
    assert timing_outcomes(r.stderr) == ["compiled and cached"]
    entry.write_bytes(entry.read_bytes()[:100])  # truncated
    r = run([*base, "--timings", wasm, "5"])
    assert r.returncode == 5 and "truncated" in r.stderr
    assert timing_outcomes(run([*base, "--timings", wasm, "5"]).stderr) == ["cache hit"]


def test_compile_subcommand_fills_the_cache_per_backend(build, embedder, tmp_path):
    wasm = build.wasm(PROGRAMS / "exit_code.c")
    for backend in ["llvm", "cranelift", "singlepass"]:
        r = run([embedder, "--cache-dir", tmp_path, "--backend", backend, "compile", wasm])
        assert r.returncode == 0 and "compiled and cached" in r.stderr, r.stderr
    assert len(list(tmp_path.glob("*.bin"))) == 3
    r = run([embedder, "--cache-dir", tmp_path, "--backend", "cranelift", "--timings", wasm])
    assert timing_outcomes(r.stderr) == ["cache hit"]


def test_no_cache_writes_nothing(build, embedder, tmp_path):
    wasm = build.wasm(PROGRAMS / "exit_code.c")
    r = run([embedder, "--cache-dir", tmp_path / "c", "--no-cache", wasm])
    assert r.returncode == 0
    assert not (tmp_path / "c").exists()
