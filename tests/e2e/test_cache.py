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


def test_compile_that_stores_nothing_fails(build, embedder, tmp_path):
    """`embedder compile` exists to fill the cache (a job's warm-up step):
    when the cache is unusable (others may write it) or the entry cannot be
    written, it says so and exits non-zero instead of passing silently."""
    wasm = build.wasm(PROGRAMS / "exit_code.c")
    shared = tmp_path / "shared"
    shared.mkdir(mode=0o777)
    shared.chmod(0o777)
    r = run([embedder, "--cache-dir", shared, "compile", wasm])
    assert r.returncode == 1, r.stderr
    assert "compiled, cache not used" in r.stderr and "nothing stored in the compile cache" in r.stderr, r.stderr
    # a usable cache whose entry cannot be written: a directory stands where the file goes
    own = tmp_path / "own"
    assert run([embedder, "--cache-dir", own, "compile", wasm]).returncode == 0
    (entry,) = own.glob("*.bin")
    entry.unlink()
    entry.mkdir()
    r = run([embedder, "--cache-dir", own, "compile", wasm])
    assert r.returncode == 1 and "compiled, not stored in the cache" in r.stderr, r.stderr
    assert "cannot store compiled module" in r.stderr, r.stderr


def test_no_cache_writes_nothing(build, embedder, tmp_path):
    wasm = build.wasm(PROGRAMS / "exit_code.c")
    r = run([embedder, "--cache-dir", tmp_path / "c", "--no-cache", wasm])
    assert r.returncode == 0
    assert not (tmp_path / "c").exists()


def test_strict_traps_code_is_cached_apart(build, embedder, tmp_path):
    """--strict-traps changes the machine code: it gets a cache entry of its
    own, never the plain one (nor the other way round)."""
    wasm = build.wasm(PROGRAMS / "exit_code.c")
    base = [embedder, "--cache-dir", tmp_path]
    assert run([*base, "compile", wasm]).returncode == 0
    assert len(list(tmp_path.glob("*.bin"))) == 1
    strict = run([*base, "--strict-traps", "-v", "--timings", wasm])
    assert "compiled and cached" in timing_outcomes(strict.stderr), strict.stderr
    assert len(list(tmp_path.glob("*.bin"))) == 2
    again = run([*base, "--strict-traps", "--timings", wasm])
    assert timing_outcomes(again.stderr) == ["cache hit"], again.stderr


def test_llvm_dump_writes_each_functions_ir_and_object(build, embedder, tmp_path):
    wasm = build.wasm(PROGRAMS / "exit_code.c")
    dump = tmp_path / "dump"
    r = run([embedder, "--no-cache", wasm], env={"EMBEDDER_LLVM_DUMP": str(dump)})
    assert r.returncode == 0, r.stderr
    objects, irs = sorted(dump.glob("local*.o")), sorted(dump.glob("local*.ll"))
    assert objects and len(objects) == len(irs), sorted(dump.iterdir())
    assert all(o.read_bytes()[:4] == b"\x7fELF" for o in objects)
    assert "define" in irs[0].read_text()


def test_llvm_dump_to_an_unusable_place_warns_and_runs(build, embedder, tmp_path):
    wasm = build.wasm(PROGRAMS / "exit_code.c")
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    r = run([embedder, "--no-cache", wasm], env={"EMBEDDER_LLVM_DUMP": str(blocker / "dump")})
    assert r.returncode == 0, r.stderr
    assert "EMBEDDER_LLVM_DUMP: cannot create" in r.stderr, r.stderr


def test_version_names_the_code_generator_sources(embedder):
    short = run([embedder, "-V"])
    assert re.fullmatch(r"embedder \d+\.\d+\.\d+\n", short.stdout)
    long = run([embedder, "--version"])
    assert long.stdout.startswith(short.stdout), long.stdout
    assert re.search(r"^code generator sources: [0-9a-f]{64}$", long.stdout, re.M), long.stdout
