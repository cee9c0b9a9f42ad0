"""Seeded, short runs of both fuzzers (docs/security.md); `make fuzz`
runs the long ones. A host crash, a hang or a backend mismatch fails."""
import re
import subprocess
import sys
from pathlib import Path

import pytest

import gen_harness
import mpi_fuzz

ROOT = Path(__file__).resolve().parents[2]
FUZZ_MODULES = ROOT / "target" / "release" / "fuzz-modules"


def failures(results):
    return "\n".join(f"seed {o.seed}: {o.kind} in {o.last_call}: {o.detail}" for o in results if o.kind in ("crash", "hang"))


@pytest.fixture(scope="module")
def embedder():
    if not mpi_fuzz.EMBEDDER.exists():
        pytest.fail(f"{mpi_fuzz.EMBEDDER} is missing: run `make build` first")


def test_call_table_covers_every_provided_function(embedder, tmp_path):
    mpi_fuzz.build(tmp_path)
    provided = set((tmp_path / "provided.txt").read_text().split())
    table = set(re.findall(r'^    "(MPI_\w+)",$', (tmp_path / "calls.c").read_text(), re.M))
    assert table == provided - set(gen_harness.EXCLUDED)
    assert len(table) > 200


def test_classify_tells_host_crashes_from_guest_endings():
    ok = "mpi-fuzz: seed 1: 10 calls, 3 error returns\n"
    assert mpi_fuzz.classify(0, ok, "")[0] == "ok"
    assert mpi_fuzz.classify(0, ok + ok, "", np=2)[0] == "ok"
    assert mpi_fuzz.classify(0, ok, "", np=2)[0] == "guest"  # a rank did not finish
    assert mpi_fuzz.classify(134, "", "embedder: guest trapped: out of bounds memory access\n")[0] == "guest"
    assert mpi_fuzz.classify(1, "", "embedder: MPI_Comm_free: MPI_ERR_COMM: invalid communicator\n")[0] == "guest"
    assert mpi_fuzz.classify(-11, ok, "")[0] == "crash"
    assert mpi_fuzz.classify(101, "", "thread 'main' panicked at embedder/src/x.rs:1:1:\n")[0] == "crash"
    assert mpi_fuzz.classify(134, "", "\nthread 'main' has overflowed its stack\n")[0] == "crash"
    assert mpi_fuzz.classify(1, "", "mpirun noticed that process rank 1 with PID 7 on node x exited on signal 11 (Segmentation fault).")[0] == "crash"
    assert mpi_fuzz.classify(134, "", "free(): invalid pointer\n")[0] == "crash"
    # a host library's assert() under Hydra: exit 6, only the message tells
    assert mpi_fuzz.classify(6, "", "embedder: mpi-io/read_sh.c:86: PMPI_File_read_shared_c: Assertion `count <= INT_MAX' failed.\n")[0] == "crash"
    # MPICH's own assertion ends the job through its abort: the job's end, reported
    assert mpi_fuzz.classify(1, "", "Assertion failed in file src/mpi/misc/utils.c at line 113: x > 0\nAbort(1) on node 0: Internal error\n")[0] == "guest"


def test_blocking_guards_hold_with_their_tables_overwritten(embedder, tmp_path):
    """MPI may overwrite any guest memory, the harness's tables included.
    Seed 32 (singleton, 20,000 calls) hung before: the compiler had proved
    g_norank's range check always true from its table's initial values and
    dropped it, and an overwritten table gave MPI_Recv rank 0."""
    wasm = mpi_fuzz.build(tmp_path)
    p = subprocess.run([mpi_fuzz.EMBEDDER, "--cache-dir", tmp_path / "cache", wasm, "selftest"],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0 and p.stdout == "selftest ok\n", p.stdout + p.stderr


def test_skip_leaves_out_any_number_of_functions(embedder, tmp_path):
    """skip= (what `mpi_fuzz.py --narrow` narrows with) takes every
    function: a list once held 256 names and ignored the rest. With all
    but two left out, only those two are called; with all, a clear error."""
    wasm = mpi_fuzz.build(tmp_path)
    names = sorted(set(re.findall(r'^    "(MPI_\w+)",$', (tmp_path / "calls.c").read_text(), re.M)))
    keep = ["MPI_Comm_rank", "MPI_Type_size"]
    assert len(names) > 300 and all(k in names for k in keep)
    np = None if mpi_fuzz.MPI == "openmpi" else 1
    o, out = mpi_fuzz.run(wasm, 7, 300, np=np, cache=tmp_path / "cache", timeout=60, trace=True,
                          skip=[n for n in names if n not in keep])
    assert o.kind == "ok", out[-3000:]
    called = re.findall(r"^call (MPI_\w+)\(", out, re.M)
    assert len(called) == 300 and set(called) == set(keep), sorted(set(called))
    cmd = [mpi_fuzz.EMBEDDER, "--cache-dir", tmp_path / "cache", wasm, "7", "10", *(f"skip={n}" for n in names)]
    p = subprocess.run([str(c) for c in (mpi_fuzz.mpirun(np) if np else []) + cmd], capture_output=True, text=True, timeout=60)
    assert p.returncode != 0 and "leave no function to call" in p.stderr, p.stdout + p.stderr


def test_mpi_calls_singleton(embedder):
    results, wall = mpi_fuzz.fuzz(100_000, 20_000, first_seed=1, timeout=60, stop_on_failure=True)
    print(mpi_fuzz.summary(results, wall))
    assert not failures(results), failures(results)
    assert sum(o.calls for o in results) >= 100_000


def test_mpi_calls_two_ranks(embedder):
    results, wall = mpi_fuzz.fuzz(60_000, 20_000, first_seed=1001, np=2, timeout=60, stop_on_failure=True)
    print(mpi_fuzz.summary(results, wall, 2))
    assert not failures(results), failures(results)
    assert sum(o.calls for o in results) >= 2 * 60_000


# Two-rank runs of 20,000 calls that crashed Open MPI before the fixes
# named (each crashed in every repeat): a communicator freed with a
# nonblocking collective pending on it (1042, 1053); a persistent receive
# started or cancelled twice (2067, 2098, 2122, 2131); MPI_Ireduce_scatter
# with MPI_IN_PLACE, whose input in recvbuf ran past the memory (2104).
# And 1024, in 1 of 10 runs idle and 13 of 20 with the other core busy: a
# request kept after the host freed it at an error return (its
# deterministic test: tests/e2e/test_error_completions.py).
CRASHED_BEFORE = [1024, 1042, 1053, 2067, 2098, 2104, 2122, 2131]


def test_two_rank_seeds_that_crashed_the_host(embedder, tmp_path):
    wasm = mpi_fuzz.build(tmp_path)
    results = [mpi_fuzz.run(wasm, seed, 20_000, np=2, cache=tmp_path / "cache", timeout=60)[0] for seed in CRASHED_BEFORE]
    assert not failures(results), failures(results)
    assert sum(o.kind == "ok" for o in results) >= len(CRASHED_BEFORE) - 2, [(o.seed, o.kind, o.detail) for o in results]


# One-rank runs that crashed the host: MPI_Test of a failed
# MPI_File_iwrite_shared's request, a SIGSEGV in Open MPI that the engine
# reported as a guest trap until host faults were told apart (73024);
# MPI-IO with 157 million elements on the same bytes, which never ended
# (71146). Both found on Open MPI 4.1.4.
ONE_RANK_CRASHED_BEFORE = [71146, 73024]


def test_one_rank_seeds_that_crashed_the_host(embedder, tmp_path):
    wasm = mpi_fuzz.build(tmp_path)
    results = [mpi_fuzz.run(wasm, seed, 20_000, cache=tmp_path / "cache", timeout=60)[0] for seed in ONE_RANK_CRASHED_BEFORE]
    assert not failures(results), failures(results)
    assert all(o.kind == "ok" for o in results), [(o.seed, o.kind, o.detail) for o in results]


# One-rank runs that crashed MPICH 5.0.2 (the MPI-5 ABI library; `make
# test-mpi-abi` runs them there, the other hosts' runs must not crash
# either): a session finalized with its buffer's flush pending, whose
# request a later detach waited on (79045, SIGSEGV in `MPI_Wait` in every
# run; its test: tests/e2e/test_sessions.py); MPI_Dims_create of 2^31 - 1
# over two free dimensions (80003, SIGFPE; test_topo_faults.py); a file
# closed with a collective read pending (80026, SIGSEGV in `MPI_Test`;
# test_mpiio_errors.py); MPI_Ialltoallw on the communicator of an
# MPI_Comm_idup not yet completed (95031, SIGSEGV in the embedder, which read
# this rank's count past an empty array; test_hostile_state.py).
MPICH5_CRASHED_BEFORE = [79045, 80003, 80026, 95031]


def test_mpich5_seeds_that_crashed_the_host(embedder, tmp_path):
    wasm = mpi_fuzz.build(tmp_path)
    np = None if mpi_fuzz.MPI == "openmpi" else 1
    results = [mpi_fuzz.run(wasm, seed, 20_000, np=np, cache=tmp_path / "cache", timeout=60)[0] for seed in MPICH5_CRASHED_BEFORE]
    assert not failures(results), failures(results)


# One-rank runs that crashed or hung Debian's MPICH 4.0.2 (`make test-mpich`
# runs them there; on the other hosts they must not crash either): ROMIO's
# memcpy from 2^63 bytes past a guest buffer, a datatype freed with a
# nonblocking collective write pending (93009, SIGSEGV; its test:
# tests/e2e/test_file_type_freed.py); MPI_Alltoall on one process with a
# wildcard receive pending, which never returned (93101;
# test_alltoall_alone.py).
MPICH_CRASHED_BEFORE = [93009, 93101]


def test_mpich_seeds_that_crashed_the_host(embedder, tmp_path):
    wasm = mpi_fuzz.build(tmp_path)
    np = None if mpi_fuzz.MPI == "openmpi" else 1
    results = [mpi_fuzz.run(wasm, seed, 20_000, np=np, cache=tmp_path / "cache", timeout=60)[0] for seed in MPICH_CRASHED_BEFORE]
    assert not failures(results), failures(results)
    assert all(o.kind == "ok" for o in results), [(o.seed, o.kind, o.detail) for o in results]


def fuzz_modules(*args, timeout=240):
    if not FUZZ_MODULES.exists():
        pytest.fail(f"{FUZZ_MODULES} is missing: run `make build` first")
    try:
        p = subprocess.run([FUZZ_MODULES, *args], capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as e:
        pytest.fail(f"fuzz-modules hung: {e.stdout}")
    print(p.stdout[-3000:])
    return p


def test_modules_agree_across_backends():
    """Without SIMD: LLVM, Cranelift and Singlepass."""
    p = fuzz_modules("--seed", "1", "--modules", "300", "--simd", "off")
    assert p.returncode == 0, p.stdout[-6000:] + p.stderr[-3000:]
    m = re.search(r"module-fuzz: seed 1: (\d+) modules .* 0 mismatches, 0 host panics", p.stdout)
    assert m and int(m.group(1)) == 300


def test_simd_modules_agree_on_llvm_and_cranelift():
    """LLVM missed out-of-bounds traps in SIMD code before the patched
    backend (patches/README.md)."""
    p = fuzz_modules("--seed", "1", "--modules", "150", "--simd", "only")
    assert re.search(r"module-fuzz: seed 1: 150 modules", p.stdout), p.stdout[-3000:] + p.stderr[-3000:]
    assert p.returncode == 0, p.stdout[-6000:] + p.stderr[-3000:]


def test_group_arguments_found_by_the_fuzzer(embedder, tmp_path):
    """Reproducers of the fuzzer's first finds (ranks outside a group, n*3
    overflowing, freeing MPI_GROUP_EMPTY): error classes, no host crash."""
    wasm = tmp_path / "group_args.wasm"
    subprocess.run([mpi_fuzz.WASM_MPICC, "-O2", "-o", wasm, Path(__file__).parent / "programs" / "group_args.c"], check=True)
    p = subprocess.run([mpi_fuzz.EMBEDDER, "--cache-dir", tmp_path / "cache", wasm], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr
    assert p.stdout.count(": ok\n") == 10 and "WRONG" not in p.stdout, p.stdout
    assert "translated: 0 MPI_PROC_NULL" in p.stdout and "empty size 0" in p.stdout and p.stdout.endswith("done\n")


def test_table_grow_by_4g_entries_fails_in_the_guest(embedder, tmp_path):
    """table.grow may fail (it returns -1): the guest goes on and exits 0."""
    wat = tmp_path / "grow.wat"
    wat.write_text('(module (table 0 funcref) (memory (export "memory") 1)\n'
                   '  (func (export "_start") ref.null func i32.const -1 table.grow 0 i32.const -1 i32.ne\n'
                   '    if unreachable end))\n')
    subprocess.run(["wat2wasm", wat, "-o", tmp_path / "grow.wasm"], check=True)
    for backend in ("llvm", "cranelift", "singlepass"):
        p = subprocess.run([mpi_fuzz.EMBEDDER, "--no-cache", "--backend", backend, tmp_path / "grow.wasm"],
                           capture_output=True, text=True, timeout=120)
        assert p.returncode == 0, f"{backend}: exit {p.returncode}\n{p.stderr[-2000:]}"
