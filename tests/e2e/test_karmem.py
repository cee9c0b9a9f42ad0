"""Karmem node-shared regions (mpi-header/karmem.h) and MPI shared windows
mapped into guest memory, from inside real guests:

- tests/e2e/programs/karmem_regions.c (wasm only): the three policies and
  every header field, against values computed here; thousands of mallocs
  never land in a region (mapped first, heap grown first, closed and
  reopened); a store a policy forbids ends the job promptly with the
  embedder's message naming the region, the policy and the address; bad
  arguments give error classes; a rank killed while regions are mapped
  leaves no process, no memfd and nothing in /dev/shm behind; `embedder
  inspect` lists the karmem imports as provided.
- tests/e2e/programs/shared_window.c: MPI_Win_allocate_shared parts written
  through each rank's own pointer and read through MPI_Win_shared_query's,
  natively and in wasm with the same output, on the MPIs where the embedder
  makes windows; on Debian's Open MPI 4.1, where it refuses them, the
  refusal (MPI_ERR_UNSUPPORTED_OPERATION, the job going on under
  MPI_ERRORS_RETURN, the reason under MPI_ERRORS_ARE_FATAL).

Runs on every EMBEDDER_TEST_MPI: 4 ranks on the Open MPIs, 2 on the MPICHs
(which busy-poll: 4 ranks on a 2-core machine crawl)."""
import os
import re
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest

from conftest import MPI, PROGRAMS, run

NP = 4 if MPI.startswith("openmpi") else 2
TIMEOUT = 60
# a job whose rank faulted must be over within this (it takes about a second)
PROMPT = 20
HOST_CRASH = ("panicked", "Segmentation fault", "overflowed its stack", "core dumped", "signal 11", "Bus error")
KARMEM = PROGRAMS / "karmem_regions.c"
WINDOW = PROGRAMS / "shared_window.c"
PAGE = 4096
U32, U64 = (1 << 32) - 1, (1 << 64) - 1
SHM = Path("/dev/shm")
# the launcher rank each MPI's launcher puts in the process's environment
RANK_VARS = (b"OMPI_COMM_WORLD_RANK", b"PMI_RANK")


def round_up(n, to):
    return -(-n // to) * to


def no_crash(r):
    out = r.stdout + r.stderr
    assert not any(c in out for c in HOST_CRASH), out


def ok(r, what):
    assert r.returncode == 0, f"{what} failed ({r.returncode}):\nstdout:\n{r.stdout}\nstderr:\n{r.stderr}"
    no_crash(r)
    return r.stdout


def by_rank(stdout, np=NP):
    """{rank: {what: {key: value}}} from lines "RANK WHAT key=value ..."."""
    out = {r: {} for r in range(np)}
    for line in stdout.splitlines():
        rank, what, *pairs = line.split()
        out[int(rank)].setdefault(what, {}).update(p.split("=", 1) for p in pairs)
    return out


# ------------------------------------------------------------------ processes

def processes(needle, ranks_only=False):
    """Live processes (not zombies) whose command line contains `needle`
    (ranks_only: embedder processes only, not the launcher), as
    {pid: environment}."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
            if needle not in cmdline or (ranks_only and not cmdline.split(b"\0")[0].endswith(b"embedder")):
                continue
            state = (entry / "stat").read_bytes().rsplit(b")", 1)[1].split()[0]
            if state in (b"Z", b"X"):
                continue
            found[int(entry.name)] = (entry / "environ").read_bytes().split(b"\0")
        except OSError:  # it ended while we looked
            continue
    return found


def memfd_holders(needle="memfd:wasm-mpi"):
    """{(pid, fd link)} of every process holding a memfd whose name contains
    `needle` (segments are memfds named wasm-mpi:NAME: shared_memory.rs)."""
    held = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            for fd in (entry / "fd").iterdir():
                try:
                    link = os.readlink(fd)
                except OSError:
                    continue
                if needle in link:
                    held.add((int(entry.name), link))
        except OSError:
            continue
    return held


def settle(probe, seconds=10.0):
    """probe() until it is empty or `seconds` passed; its last value."""
    deadline = time.monotonic() + seconds
    while (left := probe()) and time.monotonic() < deadline:
        time.sleep(0.1)
    return left


def shm_entries():
    return set(os.listdir(SHM)) if SHM.is_dir() else set()


# ------------------------------------------------------------------ policies

def expected_policies(n):
    stride = round_up(5000, PAGE)
    part_sum = sum((r * 100003 + i * 7) & U32 for r in range(n) for i in range(5000 // 4))
    relay = [(k * k + 17 * k + 3 + k) & U32 for k in range(n)]  # rank k appends when the count is k
    fan1 = [(i * 3 + 1) & U32 for i in range(3000 // 4)]
    fan2 = [(v * 2 + 5) & U32 for v in fan1]

    def header(name, policy, size, stride, epoch, owner=0):
        return {"name": name, "policy": str(policy), "magic": "ok", "version": "1", "data_offset": str(PAGE),
                "data_at_offset": "yes", "size": str(size), "stride": str(stride), "ranks": str(n),
                "epoch": str(epoch), "owner": str(owner)}

    want = {
        "partitioned": {"sum": str(part_sum), "total": str(stride * n), "slice": "5000", "zero": "yes",
                        "strided": "yes", "epoch0": "0", "closed": "yes"},
        "partitioned-header": header("parts", 3, 5000, stride, 1),
        "owned": {"initial": "0", "owners": ",".join(str((k + 1) % n) for k in range(n)),
                  "counts": ",".join(str(k + 1) for k in range(n)), "count": str(n), "sum": str(sum(relay)),
                  "epoch0": "0", "size": "4096"},
        "owned-header": header("relay", 2, 4096, 0, 1),
        "readonly": {"sum1": str(sum(fan1)), "epoch1": "1", "sum2": str(sum(fan2)), "size": "3000"},
        "readonly-header": header("fanout", 1, 3000, 0, 2),
    }
    return {r: want for r in range(n)}


def test_policies_and_headers(build, run_wasm):
    """PARTITIONED: each rank writes its slice, all read all; OWNED: the
    owner appends, ownership goes round every rank; READ_ONLY: rank 0
    writes, publish, all read, acquire, epoch 2, publish, all read; and the
    header of each (magic, version, policy, epoch = publishes, ranks, name,
    owner after the passes, data offset, sizes)."""
    r = run_wasm(build.wasm(KARMEM), "policies", np=NP, timeout=TIMEOUT)
    got = by_rank(ok(r, "policies"))
    assert got == expected_policies(NP), r.stdout


# ------------------------------------------------------------------ malloc

def expected_mallocs(rank, seed):
    """karmem_regions.c's heavy_malloc: how many blocks and how many over
    64 KiB (its LCG, replayed)."""
    state = (seed + rank * 77) & U32

    def rnd():
        nonlocal state
        state = (state * 1103515245 + 12345) & U32
        return state >> 8

    big = 0
    for i in range(3000):
        n = 65537 + rnd() % 300000 if rnd() % 10 == 0 else 1 + rnd() % 4096
        big += n > 65536
        if i % 3 == 2:
            rnd()
    return {"mallocs": "3000", "big": str(big), "overlaps": "0", "intact": "yes"}


def test_heavy_malloc_never_lands_in_a_region(build, run_wasm):
    """Thousands of mallocs (a tenth over 64 KiB, each filled, a third freed
    again) after a region is mapped, after the heap grew by 40 MiB before
    the region, and after close + reopen (the closed region's pages taken
    again, not the allocator's): none meets a region's header page or data,
    the data written before them is what every rank reads after them, and
    the heap blocks from before the mapping kept their bytes."""
    r = run_wasm(build.wasm(KARMEM), "malloc", np=NP, timeout=TIMEOUT)
    out = ok(r, "malloc")
    rows = {}
    for line in out.splitlines():
        rank, word, scenario, *pairs = line.split()
        assert word == "malloc", line
        rows[(int(rank), scenario)] = dict(p.split("=", 1) for p in pairs)
    want = {}
    for rank in range(NP):
        base = expected_mallocs(rank, 12345)
        want[(rank, "mapped")] = base
        want[(rank, "grown")] = {**base, "early-overlaps": "0", "early-intact": "yes"}
        want[(rank, "reopened")] = {**base, "reused": "yes", "zero": "yes", "name": "heap-c2"}
    assert rows == want, out + r.stderr


# ------------------------------------------------------------------ forbidden stores

# case -> (region, policy as the message names it)
FORBIDDEN = {
    "readonly-reader": ("fan-forbid", "read-only after publish"),
    "readonly-writer": ("fan-forbid", "read-only after publish"),
    # a memset of 1 KiB: the engine's memory.fill stores, in host code
    "readonly-bulk": ("bulk-forbid", "read-only after publish"),
    "partitioned": ("part-forbid", "partitioned"),
    "owned": ("owned-forbid", "owned"),
    "header": ("header-forbid", "partitioned"),
}


@pytest.mark.parametrize("case", FORBIDDEN)
def test_forbidden_store_traps_and_ends_the_job(build, run_wasm, tmp_path, case):
    """A reader's store after publish, the writer's after publish without
    acquire, a store into a neighbour's slice, a non-owner's store, a store
    to the header page, a memset the engine carries out in host code
    (memory.fill): the storing rank traps with the embedder's message
    (region, policy, the very guest address stored to) and the job ends
    promptly, the ranks waiting for it in a barrier included; no process of
    the job outlives the launcher."""
    module = tmp_path / f"karmem_forbid_{case}.wasm"  # its path names this job's processes
    module.write_bytes(build.wasm(KARMEM).read_bytes())
    start = time.monotonic()
    r = run_wasm(module, "forbid", case, np=NP, timeout=PROMPT + 10)
    elapsed = time.monotonic() - start
    out = r.stdout + r.stderr
    assert r.returncode != 0, out
    assert elapsed < PROMPT, f"the job took {elapsed:.1f}s to end\n{out}"
    assert "not reached" not in r.stdout, out
    no_crash(r)
    stores = re.findall(r"^(\d+) store (0x[0-9a-f]+)$", r.stdout, re.M)
    assert len(stores) == 1, out
    rank, address = stores[0]
    assert rank == ("0" if case == "readonly-writer" else "1"), out
    region, policy = FORBIDDEN[case]
    message = (f"embedder: rank {rank}: a store to Karmem region '{region}' (policy {policy}) "
               f"that this rank may not write now, at guest address ")
    stored = re.findall(re.escape(message) + r"(0x[0-9a-f]+)\n", r.stderr)
    assert len(stored) == 1, f"expected {message!r} in\n{r.stderr}"
    # the block's first store: the host's memset may begin anywhere in it
    span = 1024 if case == "readonly-bulk" else 1
    assert 0 <= int(stored[0], 16) - int(address, 16) < span, out
    assert "guest trapped" in r.stderr, r.stderr
    strays = settle(lambda: processes(str(module).encode()), 5)
    assert not strays, f"processes left running after the job: {sorted(strays)}"


# ------------------------------------------------------------------ bad arguments

ARGS = {
    "data on an invalid region": "MPI_ERR_ARG",
    "data on KARMEM_REGION_NULL": "MPI_ERR_ARG",
    "slice on an invalid region": "MPI_ERR_ARG",
    "header on an invalid region": "NULL",
    "publish on an invalid region": "MPI_ERR_ARG",
    "acquire on an invalid region": "MPI_ERR_ARG",
    "pass on an invalid region": "MPI_ERR_ARG",
    "close on an invalid region": "MPI_ERR_ARG",
    "open with policy 0": "MPI_ERR_ARG",
    "open with policy 7": "MPI_ERR_ARG",
    "region after the refused opens": "unchanged",
    "open with a 64-byte name": "MPI_ERR_ARG",
    "open with a 63-byte name": "MPI_SUCCESS",
    "63-byte name kept": "yes",
    "slice on an owned region": "MPI_ERR_ARG",
    "pass to rank -1": "MPI_ERR_RANK",
    "pass to rank size": "MPI_ERR_RANK",
    "pass to the last rank": "MPI_SUCCESS",
    "owner after the bad passes": str(NP - 1),
    "close the owned region": "MPI_SUCCESS",
    "handle after close": "KARMEM_REGION_NULL",
    "data after close": "MPI_ERR_ARG",
    "open on MPI_COMM_NULL": "MPI_ERR_COMM",
    "open with a name past the memory": "MPI_ERR_BUFFER",
    "open with the region past the memory": "MPI_ERR_BUFFER",
    "open larger than the guest memory": "MPI_ERR_NO_MEM",
    "open with sizes that differ between ranks": "MPI_ERR_ARG",
    "open with policies that differ between ranks": "MPI_ERR_ARG",
    "open with names that differ between ranks": "MPI_ERR_ARG",
    "open read-only": "MPI_SUCCESS",
    "slice on a read-only region": "MPI_ERR_ARG",
    "pass on a read-only region": "MPI_ERR_ARG",
    "data with the size past the memory": "MPI_ERR_BUFFER",
    "open partitioned": "MPI_SUCCESS",
    "slice of rank -1": "MPI_ERR_RANK",
    "slice of rank size": "MPI_ERR_RANK",
    "slice with the base past the memory": "MPI_ERR_BUFFER",
    "valid region after the errors sum": str(NP * (NP + 1) // 2),
    "done": None,
}


def test_bad_arguments_give_error_classes(build, run_wasm):
    """Invalid handles, unknown policies, a name one byte too long, slices
    of unpartitioned regions, ranks out of range, pointers past the memory,
    a region larger than the guest memory: error classes under
    MPI_ERRORS_RETURN at every rank, nothing changed, and the job goes on
    (a region opened afterwards works)."""
    r = run_wasm(build.wasm(KARMEM), "args", np=NP, timeout=TIMEOUT)
    out = ok(r, "args")
    got = {rank: {} for rank in range(NP)}
    for line in out.splitlines():
        rank, rest = line.split(" ", 1)
        case, _, value = rest.rpartition(" ") if rest != "done" else ("done", None, None)
        got[int(rank)][case] = value
    for rank in range(NP):
        assert list(got[rank]) == list(ARGS), f"rank {rank}:\n{out}"
        assert got[rank] == ARGS, f"rank {rank}:\n{out}"


# ------------------------------------------------------------------ a killed rank

class Job:
    """A launcher in the background, its output read line by line."""

    def __init__(self, cmd):
        self.lines, self.errors, self.seen = [], [], threading.Condition()
        self.proc = subprocess.Popen([str(c) for c in cmd], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        threading.Thread(target=self._read, args=(self.proc.stdout, self.lines), daemon=True).start()
        threading.Thread(target=self._read, args=(self.proc.stderr, self.errors), daemon=True).start()

    def _read(self, stream, into):
        for line in stream:
            with self.seen:
                into.append(line.rstrip("\n"))
                self.seen.notify_all()

    def wait_for_lines(self, prefix, count, timeout):
        with self.seen:
            return self.seen.wait_for(
                lambda: sum(l.startswith(prefix) for l in self.lines) >= count or self.proc.poll() is not None,
                timeout) and sum(l.startswith(prefix) for l in self.lines) >= count

    def wait(self, timeout):
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            pytest.fail(f"the launcher did not end within {timeout}s after the kill\n{self.output()}")

    def output(self):
        time.sleep(0.1)
        return "\n".join(self.lines) + "\n--- stderr ---\n" + "\n".join(self.errors)


@pytest.mark.parametrize("victim", [0, 1], ids=["creator", "opener"])
def test_killed_rank_leaves_nothing_behind(build, mpi, embedder, cache_dir, tmp_path, victim):
    """Regions open (a partitioned and a read-only one), every rank blocked
    in a receive: SIGKILL to one embedder process (the rank that created the
    segments, or one that opened them through /proc) ends the job, and then
    no process of it runs, no process holds a wasm-mpi memfd it did not hold
    before, and /dev/shm has no new entry."""
    tag = f"kill{os.getpid()}v{victim}"
    module = tmp_path / f"karmem_{tag}.wasm"
    module.write_bytes(build.wasm(KARMEM).read_bytes())
    needle = str(module).encode()
    shm_before = shm_entries()
    held_before = memfd_holders()
    job = Job(mpi.cmd(NP, embedder, "--cache-dir", cache_dir, module, "hold", tag))
    try:
        assert job.wait_for_lines("mapped ", NP, TIMEOUT), f"the ranks never mapped their regions\n{job.output()}"
        # while it runs: every rank holds both segments (so the scan below can see them)
        ours = {pid for pid, _ in memfd_holders(f"memfd:wasm-mpi:{tag}-")}
        running = processes(needle, ranks_only=True)
        assert ours == set(running) and len(ours) == NP, f"memfd holders {ours}, ranks {sorted(running)}"
        want = {var + b"=" + str(victim).encode() for var in RANK_VARS}
        pid = next((p for p, env in running.items() if want & set(env)), None)
        assert pid, f"no process for rank {victim} among {sorted(running)}"
        time.sleep(0.2)  # the others are in their receive by now
        os.kill(pid, signal.SIGKILL)
        rc = job.wait(PROMPT)
    finally:
        if job.proc.poll() is None:
            job.proc.kill()
            job.proc.wait()
    out = job.output()
    assert rc != 0, out
    assert "not reached" not in out, out
    strays = settle(lambda: processes(needle))
    assert not strays, f"processes left running after the launcher: {sorted(strays)}\n{out}"
    assert not settle(lambda: memfd_holders(f"memfd:wasm-mpi:{tag}-")), "the job's segments are still held"
    new_holders = settle(lambda: memfd_holders() - held_before)
    assert not new_holders, f"wasm-mpi memfds held after the job: {sorted(new_holders)}"

    def left_in_shm():
        left = shm_entries() - shm_before
        if mpi.flavor == "mpich-abi":
            # MPICH 5.0.2 (PyPI's wheel) leaves its own node segment behind
            # when a job is torn down, natively too (test_fault_timing.py)
            for name in [n for n in left if n.startswith("mpich_shm_")]:
                try:
                    os.unlink(SHM / name)
                except FileNotFoundError:
                    pass
                left.discard(name)
        return left

    left = settle(left_in_shm)
    assert not left, f"left in {SHM}: {sorted(left)}"


# ------------------------------------------------------------------ inspect

KARMEM_FUNCTIONS = ["open", "data", "slice", "header", "publish", "acquire", "pass", "close"]


def test_inspect_lists_the_karmem_imports_as_provided(build, embedder):
    r = run([embedder, "inspect", build.wasm(KARMEM)])
    assert r.returncode == 0, r.stderr
    rows = dict(line.split("\t") for line in r.stdout.splitlines())
    karmem = {k: v for k, v in rows.items() if k.startswith("karmem.")}
    assert sorted(karmem) == sorted(f"karmem.{f}" for f in KARMEM_FUNCTIONS), r.stdout
    assert all(v.startswith("provided") for v in karmem.values()), karmem
    unsupported = sorted(k for k, v in rows.items() if not (v.startswith("provided") or v == "WASI"))
    assert not unsupported, unsupported


# ------------------------------------------------------------------ shared windows

# the embedder refuses windows on Debian's Open MPI 4.1 (host_mpi::windows_unavailable)
WINDOWS = MPI != "openmpi"
K = 3001


def expected_window(n):
    lines = []
    for r in range(n):
        part_sum = sum(r * 1000003 + k * 7 - 5 for k in range(K))
        lines.append(f"rank {r} part={K * 8} disp=8 sum={part_sum} contents=ok agree=yes contiguous=yes")
    return "\n".join(lines + ["malloc overlaps=0 intact=yes", "win_free MPI_WIN_NULL"]) + "\n"


def test_shared_window_native(build, run_native):
    """The program's own numbers, natively (every host MPI makes shared
    windows), so that the wasm runs below are compared with a real answer."""
    native = run_native(build.native(WINDOW), np=NP, timeout=TIMEOUT)
    assert ok(native, "native") == expected_window(NP)


if WINDOWS:
    def test_shared_window_matches_native(build, run_wasm, run_native):
        """Every rank writes its part through its own pointer, MPI_Win_sync
        + barrier, all read all through MPI_Win_shared_query's pointers; the
        parts are contiguous; thousands of mallocs afterwards never land in
        any part as a rank sees it and change none of it."""
        native = run_native(build.native(WINDOW), np=NP, timeout=TIMEOUT)
        wasm = run_wasm(build.wasm(WINDOW), np=NP, timeout=TIMEOUT)
        assert ok(wasm, "wasm") == ok(native, "native") == expected_window(NP)

    def test_shared_window_fatal_errors_mode_runs_too(build, run_wasm):
        """Under MPI_ERRORS_ARE_FATAL the same (no error to be fatal)."""
        wasm = run_wasm(build.wasm(WINDOW), "fatal", np=NP, timeout=TIMEOUT)
        assert ok(wasm, "wasm, fatal") == expected_window(NP)
else:
    def test_shared_window_refused_on_open_mpi_4(build, run_wasm):
        """Debian's Open MPI 4.1: MPI_Win_allocate_shared gives
        MPI_ERR_UNSUPPORTED_OPERATION at every rank (the program checks they
        agree) under MPI_ERRORS_RETURN,
        and the job goes on (a collective after it, a clean exit)."""
        wasm = run_wasm(build.wasm(WINDOW), np=NP, timeout=TIMEOUT)
        out = ok(wasm, "wasm")
        assert out == f"win_allocate_shared MPI_ERR_UNSUPPORTED_OPERATION\nallreduce after the refusal {NP * (NP + 1) // 2}\n"

    def test_shared_window_refusal_is_explained(build, run_wasm):
        """Under MPI_ERRORS_ARE_FATAL the job ends with the reason."""
        wasm = run_wasm(build.wasm(WINDOW), "fatal", np=NP, timeout=TIMEOUT)
        assert wasm.returncode != 0, wasm.stdout + wasm.stderr
        no_crash(wasm)
        assert "MPI_Win_allocate_shared: MPI_ERR_UNSUPPORTED_OPERATION: Open MPI 4's one-sided communication" \
            in wasm.stderr, wasm.stderr
        assert "rank " not in wasm.stdout, wasm.stdout
