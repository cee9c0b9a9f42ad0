#!/usr/bin/env python3
"""MPI-call fuzzer, driver side: builds the harness for the embedder's
provided functions, runs it for consecutive seeds and sorts each run's end:

- ok: the harness made all its calls and exited 0;
- guest: the job ended at guest level (a trap, a clean job abort with the
  embedder's message): allowed, reported;
- crash: a host signal (SIGSEGV, SIGBUS, SIGABRT...), a Rust panic, a host
  stack overflow; hang: the run outlived its timeout. Both fail; the run is
  then repeated with tracing to name the call it died in.

    python3 tests/fuzz/mpi_fuzz.py --calls 1000000 --per-run 20000 [--np 2] [--seed 1]
    python3 tests/fuzz/mpi_fuzz.py --narrow SEED --timeout 20   # what a failing seed needs
"""
import argparse
import importlib.util
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE.parent))
from shm_leftovers import listing, remove_new_leftovers  # noqa: E402 (tests/, also when run as a script)
# EMBEDDER_BIN: another embedder binary; EMBEDDER_TEST_MPI: the launcher (as for the e2e tests)
EMBEDDER = Path(os.environ.get("EMBEDDER_BIN", ROOT / "target" / "release" / "embedder")).resolve()
WASM_MPICC = ROOT / "toolchain" / "bin" / "wasm-mpicc"
LOW_ZONE = 4 << 20
MPI = os.environ.get("EMBEDDER_TEST_MPI", "openmpi")

SUMMARY = re.compile(r"mpi-fuzz: seed (\d+): (\d+) calls, (\d+) error returns")
# What only a host failure prints (a guest trap ends with the embedder's
# "guest trapped" message and exit code 134, which is not a signal).
# A C library assert() in the host (glibc's "Assertion `...' failed."; ROMIO's
# large-count file calls had them) aborts the process: under Hydra that is
# exit code 6, not a signal, so its message is what tells it apart.
HOST_CRASH = re.compile(r"panicked at|overflowed its stack|Segmentation fault|Bus error|SIGSEGV|SIGBUS|SIGABRT|SIGILL|SIGFPE"
                        r"|signal (?:4|6|7|8|11) |on signal|core dumped|free\(\)|double free|corrupted|malloc\(\)"
                        r"|Assertion `[^']*' failed")


def mpirun(np):
    """The launcher of EMBEDDER_TEST_MPI, found as the e2e tests find it
    (Debian's mpirun.X, or a wheel's launcher and library)."""
    spec = importlib.util.spec_from_file_location("e2e_harness", ROOT / "tests" / "e2e" / "conftest.py")
    e2e = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(e2e)
    return e2e.Mpi(MPI).cmd(np)


def build(out: Path) -> Path:
    """harness.wasm for exactly the functions this embedder provides."""
    inventory = subprocess.run([EMBEDDER, "inspect", "--provided"], capture_output=True, text=True, check=True).stdout
    # a line per function: name, family, how it is made, whether the host has it
    names = [line.split("\t")[0] for line in inventory.splitlines() if line.startswith("MPI_")]
    (out / "provided.txt").write_text("".join(n + "\n" for n in names))
    subprocess.run([sys.executable, HERE / "gen_harness.py", out / "provided.txt", out / "calls.c"], check=True)
    wasm = out / "harness.wasm"
    # data from 4 MiB up: MPI_BOTTOM (0) plus small displacements, and other
    # low addresses, reach only unused memory (see harness.c)
    subprocess.run([WASM_MPICC, "-O2", "-Wall", f"-I{HERE}", f"-Wl,--global-base={LOW_ZONE}", "-o", wasm,
                    HERE / "harness.c", out / "calls.c"],
                   check=True, capture_output=True, text=True)
    return wasm


@dataclass
class Outcome:
    seed: int
    kind: str  # ok | guest | crash | hang
    calls: int = 0
    errors: int = 0
    detail: str = ""
    seconds: float = 0.0
    last_call: str = ""


def classify(returncode, stdout, stderr, np=None):
    """(kind, detail) of a finished run: ok, guest or crash."""
    out = stdout + stderr
    if returncode < 0:
        return "crash", f"killed by {signal.Signals(-returncode).name}"
    crash = HOST_CRASH.search(out)
    if crash:
        return "crash", crash.group(0)
    if returncode == 0 and len(SUMMARY.findall(stdout)) == (np or 1):
        return "ok", ""
    return "guest", f"exit {returncode}"


def run(wasm, seed, calls, np=None, cache=None, timeout=300, trace=False, skip=()):
    # a fresh directory for the MPI-IO calls' files, the guest's /fuzz
    shm_before = listing()
    try:
        with tempfile.TemporaryDirectory(prefix="mpi-fuzz-files-") as files:
            return run_in(wasm, seed, calls, np, cache, timeout, trace, skip, files)
    finally:
        # what MPICH 5 leaves of a job that ended early or was killed
        remove_new_leftovers(shm_before)


def run_in(wasm, seed, calls, np, cache, timeout, trace, skip, files):
    cmd = [EMBEDDER, *(["--cache-dir", cache] if cache else []), "--mapdir", f"/fuzz:{files}", wasm, str(seed), str(calls),
           *(["trace"] if trace else []), *(f"skip={name}" for name in skip)]
    if np:
        cmd = mpirun(np) + [str(c) for c in cmd]
    start = time.monotonic()
    # own process group, so a hung job (mpirun and its ranks) can be ended whole
    p = subprocess.Popen([str(c) for c in cmd], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         errors="replace", start_new_session=True)
    try:
        p.stdout, p.stderr = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        stdout, stderr = p.communicate()
        out = stdout + stderr
        return Outcome(seed, "hang", detail=f"no end after {timeout} s\n{out[-2000:]}", seconds=timeout), out
    seconds = time.monotonic() - start
    out = p.stdout + p.stderr
    kind, detail = classify(p.returncode, p.stdout, p.stderr, np)
    o = Outcome(seed, kind, detail=detail, seconds=seconds)
    done = SUMMARY.findall(p.stdout)
    if done:
        o.calls = sum(int(c) for _, c, _ in done)
        o.errors = sum(int(e) for _, _, e in done)
    if kind != "ok":
        tail = [l for l in out.splitlines() if l.strip()][-12:]
        o.detail += "\n" + "\n".join("    " + l for l in tail)
    return o, out


def name_call(wasm, seed, calls, np, cache, timeout, skip=()):
    """Repeat a failed run with tracing: the last call started, with its
    arguments (a host crash is not always reproducible: then "?")."""
    o, out = run(wasm, seed, calls, np, cache, timeout, trace=True, skip=skip)
    if o.kind == "ok":
        return "? (not reproduced)"
    if SUMMARY.search(out):
        return "MPI_Finalize (after every call returned)"
    started = re.findall(r"^call (MPI_\w+\(.*\))$", out, re.M)
    return started[-1] if started else "?"


def fuzz(total, per_run, first_seed=1, np=None, timeout=300, log=print, stop_on_failure=False, skip=()):
    """Runs seeds from first_seed until `total` calls were made (or, with
    stop_on_failure, until the first host crash or hang)."""
    with tempfile.TemporaryDirectory(prefix="mpi-fuzz-") as tmp:
        tmp = Path(tmp)
        wasm = build(tmp)
        results, made, seed = [], 0, first_seed
        start = time.monotonic()
        # runs that end early (at guest level) count no calls: bound the runs
        while made < total and len(results) < 3 * (total // per_run + 1):
            n = min(per_run, total - made)
            o, _ = run(wasm, seed, n, np, tmp / "cache", timeout, skip=skip)
            if o.kind in ("crash", "hang"):
                o.last_call = name_call(wasm, seed, n, np, tmp / "cache", timeout, skip)
            made += o.calls // (np or 1)
            results.append(o)
            log(f"seed {seed}: {o.kind}, {o.calls} calls, {o.errors} error returns, {o.seconds:.1f} s"
                + (f"; last call {o.last_call}" if o.last_call else "") + (f"; {o.detail}" if o.kind != "ok" else ""))
            seed += 1
            if stop_on_failure and o.kind in ("crash", "hang"):
                break
        wall = time.monotonic() - start
    return results, wall


def last_started(out):
    """The last call a traced run started, with its arguments, or None."""
    started = re.findall(r"^call (MPI_\w+\(.*\))$", out, re.M)
    return started[-1] if started else None


def narrow(seed, calls, np=None, timeout=300, log=print):
    """Leaves out of a failing seed's draws every function it can do
    without (the harness's skip=: the other draws keep their arguments)
    while the run still ends the same way in the same call, arguments and
    all: what the failure needs. Returns (needed, skipped, trace of the narrowed run)."""
    with tempfile.TemporaryDirectory(prefix="mpi-fuzz-") as tmp:
        tmp = Path(tmp)
        wasm = build(tmp)
        o, out = run(wasm, seed, calls, np, tmp / "cache", timeout, trace=True)
        end = last_started(out)
        if o.kind not in ("crash", "hang") or end is None:
            raise SystemExit(f"seed {seed}: {o.kind}, nothing to narrow")
        ending = end.split("(")[0]
        log(f"seed {seed}: {o.kind} in {end}")

        def same(skip):
            o2, out2 = run(wasm, seed, calls, np, tmp / "cache", timeout, trace=True, skip=skip)
            return o2.kind == o.kind and last_started(out2) == end, out2

        # delta debugging over the functions the run called before its end
        left = sorted(set(re.findall(r"^call (MPI_\w+)\(", out, re.M)) - {ending})
        skipped, parts = [], 2
        while left:
            size = max(1, len(left) // parts)
            for i in range(0, len(left), size):
                chunk = left[i:i + size]
                if same(skipped + chunk)[0]:
                    skipped += chunk
                    left = [n for n in left if n not in chunk]
                    parts = max(parts - 1, 2)
                    log(f"  without {len(skipped)} functions: the same end; {len(left)} to try")
                    break
            else:
                if size == 1:
                    break
                parts = min(len(left), parts * 2)
        ok, trace = same(skipped)
        if not ok:
            log("  the narrowed run ended differently this time (a flaky end): keeping it anyway")
        return left + [ending], skipped, trace


def summary(results, wall, np=None):
    calls = sum(o.calls for o in results)
    errors = sum(o.errors for o in results)
    crashes = [o for o in results if o.kind in ("crash", "hang")]
    guest = [o for o in results if o.kind == "guest"]
    seeds = f"{results[0].seed}..{results[-1].seed}" if results else "-"
    return (f"mpi-fuzz: seeds {seeds}{f' on {np} ranks' if np else ''}: {calls} calls, {errors} error returns, "
            f"{len(guest)} runs ended at guest level, {len(crashes)} host crashes, {wall:.0f} s")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--calls", type=int, default=1_000_000, help="total calls")
    ap.add_argument("--per-run", type=int, default=20_000, help="calls per seed (one embedder run)")
    ap.add_argument("--seed", type=int, default=1, help="first seed")
    ap.add_argument("--np", type=int, default=None,
                    help="ranks (default: a singleton without a launcher on Debian's Open MPI; "
                         "1 under EMBEDDER_TEST_MPI's launcher for the other MPIs, whose library a singleton would not load)")
    ap.add_argument("--timeout", type=int, default=300, help="seconds per run before it counts as a hang")
    ap.add_argument("--skip", action="append", default=[], metavar="MPI_NAME",
                    help="never call this function (to measure past a known crash; the tests use none)")
    ap.add_argument("--narrow", type=int, metavar="SEED",
                    help="find the functions a crashing or hanging seed needs (--per-run calls; "
                         "pass a --timeout a little above the failing run's time); writes its trace to --trace-out")
    ap.add_argument("--trace-out", default="mpi-fuzz-narrowed.trace", help="where --narrow writes the narrowed run's trace")
    a = ap.parse_args()
    if a.np is None and MPI != "openmpi":
        a.np = 1
    if a.narrow is not None:
        needed, skipped, trace = narrow(a.narrow, a.per_run, a.np, a.timeout, log=lambda s: print(s, flush=True))
        Path(a.trace_out).write_text(trace)
        print(f"mpi-fuzz: seed {a.narrow} needs {', '.join(needed)} ({len(skipped)} functions left out); trace in {a.trace_out}")
        return
    results, wall = fuzz(a.calls, a.per_run, a.seed, a.np, a.timeout, log=lambda s: print(s, flush=True), skip=a.skip)
    print(summary(results, wall, a.np))
    sys.exit(1 if any(o.kind in ("crash", "hang") for o in results) else 0)


if __name__ == "__main__":
    main()
