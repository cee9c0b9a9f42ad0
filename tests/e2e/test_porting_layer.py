"""The toolchain's porting layer at run time (toolchain/README.md, "The
porting layer"): what gethostname, uname, sysconf, sched_getaffinity,
signals, process clocks, mmap and large mallocs answer in a wasm module,
line by line against the same program built natively; and a C++ MPI
program with templates, the STL and std::vector buffers."""
import re
import shutil
import subprocess

import pytest

from conftest import MPI, PROGRAMS, ROOT, TIMEOUT
from test_hostile import check_no_host_crash

WASM_MPICXX = ROOT / "toolchain" / "bin" / "wasm-mpicxx"
NP = 2


def same_lines(native, wasm):
    """The lines both builds must print alike, sorted (ranks interleave)."""
    keep = lambda out: sorted(x for x in out.splitlines() if x.startswith("rank "))  # noqa: E731
    return keep(native), keep(wasm)


def test_host_facts_match_native(build, run_wasm, run_native):
    src = PROGRAMS / "porting_layer.c"
    n = run_native(build.native(src), np=NP)
    assert n.returncode == 0, n.stderr
    w = run_wasm(build.wasm(src), np=NP)
    assert w.returncode == 0, w.stderr
    native, wasm = same_lines(n.stdout, w.stdout)
    assert len(native) == 7 * NP
    assert wasm == native
    # and what the native run shows is right
    host = subprocess.run(["hostname"], capture_output=True, text=True).stdout.strip()
    assert f"gethostname 0 {host}, = processor name 1, uname nodename {host}, short buffer refused 1" in n.stdout
    assert "raise ran handler 1, clock ok 1, getrusage 0, getpid positive 1" in w.stdout
    assert "anonymous mmap zeroed 1" in w.stdout and "4 MiB exchanged intact 1" in w.stdout
    assert "large calloc zeroed 1" in w.stdout
    # facts of the sandbox
    stack = 8 * 1024 * 1024
    for r in range(NP):
        m = re.search(rf"wasm-only rank {r}: getrlimit 0 0 0 core 0 stack (\d+) as (\d+), lower core 0, "
                      r"raise as -1 errno EPERM", w.stdout)
        assert m, w.stdout
        assert stack <= int(m.group(1)) < stack + 65536 and int(m.group(2)) == 1 << 32
        assert f"wasm-only rank {r}: 4 MiB blocks page-aligned 1" in w.stdout


def test_affinity_follows_the_launchers_binding(build, run_wasm, run_native):
    """sched_getaffinity counts the CPUs the rank is bound to, as natively
    (Open MPI: bound to a core each, and not bound)."""
    src = PROGRAMS / "porting_layer.c"
    binds = ("core", "none") if MPI == "openmpi" else ("default",)
    counts = set()
    for bind in binds:
        env = {"OMPI_MCA_hwloc_base_binding_policy": bind} if bind != "default" else {}
        n = run_native(build.native(src), np=NP, env=env)
        w = run_wasm(build.wasm(src), np=NP, env=env)
        assert n.returncode == 0 and w.returncode == 0, (bind, n.stderr, w.stderr)
        pick = lambda out: sorted(re.findall(r"rank \d+: cpus online .*", out))  # noqa: E731
        assert pick(w.stdout) == pick(n.stdout), bind
        counts |= set(re.findall(r"count (\d+)", n.stdout))
    if MPI == "openmpi" and int(subprocess.run(["nproc"], capture_output=True, text=True).stdout) > 1:
        assert len(counts) == 2, f"binding did not change the affinity count: {counts}"


def test_strict_mode_has_no_layer(build, run_wasm, tmp_path):
    """-wasm-strict: the program cannot even be compiled (sys/resource.h
    refuses without the process-clock emulation); a module that only calls
    gethostname does not link."""
    r = subprocess.run([str(ROOT / "toolchain" / "bin" / "wasm-mpicc"), "-wasm-strict", str(PROGRAMS / "porting_layer.c"),
                        "-o", str(tmp_path / "p.wasm")], capture_output=True, text=True, timeout=TIMEOUT)
    assert r.returncode != 0 and "_WASI_EMULATED_PROCESS_CLOCKS" in r.stderr


def test_cxx_program_matches_native(run_wasm, run_native, mpi, tmp_path):
    src = PROGRAMS / "porting_layer_cxx.cpp"
    mpicxx = shutil.which(mpi.mpicc.replace("mpicc", "mpicxx"))
    assert mpicxx, f"no C++ wrapper next to {mpi.mpicc}"
    native, wasm = tmp_path / "cxx.native", tmp_path / "cxx.wasm"
    for cmd in ([mpicxx, "-O2", "-std=c++17", src, "-o", native],
                [WASM_MPICXX, "-std=c++17", "-Wall", "-Werror", src, "-o", wasm]):
        r = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=TIMEOUT)
        assert r.returncode == 0, r.stderr
    n = run_native(native, np=3)
    w = run_wasm(wasm, np=3)
    assert n.returncode == 0 and w.returncode == 0, (n.stderr, w.stderr)
    assert w.stdout == n.stdout
    assert "sorted ids: -2 -1 0 0 0 1 1 2 4" in n.stdout
    assert "counts: negative=2 positive=4 zero=3" in n.stdout
    assert "vector<long long> total: 393216 (expected 393216)" in n.stdout


HOSTILE_HOST_FACTS = r"""
#include <stdio.h>
#include <string.h>
#include <unistd.h>
__attribute__((import_module("wasm_mpi_host"), import_name("host_name"))) int host_name(char *, unsigned long);
__attribute__((import_module("wasm_mpi_host"), import_name("cpu_count"))) int cpu_count(int);
int main(void) {
    unsigned long pages = __builtin_wasm_memory_size(0);
    char *end = (char *)(pages * 65536);
    char buf[8];
    memset(buf, 'x', sizeof buf);
    int full = host_name(buf, 0);  /* length only, nothing written */
    printf("len0 %d untouched %d\n", full > 0, buf[0] == 'x');
    printf("past the end %d\n", host_name(end - (full - 1), 64));
    printf("wrapping %d\n", host_name((char *)0xfffffff0u, 0x20));
    printf("last bytes %d\n", host_name(end - full, full) == full);
    printf("kinds %d %d %d\n", cpu_count(-1), cpu_count(3), cpu_count(0) >= 1);
    return 0;
}
"""


def test_host_facts_refuse_out_of_bounds_buffers(run_wasm, tmp_path):
    """The wasm_mpi_host functions write only inside the guest memory: a
    buffer that runs past it gets -1 and nothing is written."""
    src = tmp_path / "hostile_facts.c"
    src.write_text(HOSTILE_HOST_FACTS)
    out = tmp_path / "hostile_facts.wasm"
    r = subprocess.run([str(ROOT / "toolchain" / "bin" / "wasm-mpicc"), str(src), "-o", str(out)],
                       capture_output=True, text=True, timeout=TIMEOUT)
    assert r.returncode == 0, r.stderr
    w = run_wasm(out)
    assert w.returncode == 0, w.stderr
    assert w.stdout.splitlines() == ["len0 1 untouched 1", "past the end -1", "wrapping -1", "last bytes 1",
                                     "kinds -1 -1 1"]


def bulk_instructions_run(module):
    """Export -> the bulk-memory instructions it executed and their lengths,
    from wabt's interpreter running every export of `module` with a trace."""
    r = subprocess.run(["wasm-interp", str(module), "--run-all-exports", "--trace"],
                       capture_output=True, text=True, timeout=TIMEOUT)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr
    ran, export = {}, None
    for line in r.stdout.splitlines():
        m = re.match(r'>>> running export "(\w+)"', line)
        if m:
            export = m.group(1)
            ran[export] = []
            continue
        # "... | memory.copy 0 0 1552, 1040, 128": the length is the last operand
        m = re.search(r"\|\s*(memory\.(?:copy|fill))\b.*?(\d+)\s*$", line)
        if m and export:
            ran[export].append((m.group(1), int(m.group(2))))
    return ran


def test_memory_functions_match_native(build, run_wasm, run_native):
    """memcpy, memmove, memset (compat/memcpy.c, memmove.c, memset.c): every
    length to 300 at every alignment, overlaps both ways, and long blocks,
    checked byte by byte in the program, with the same cases natively."""
    src = PROGRAMS / "memory_ops.c"
    n = run_native(build.native(src))
    w = run_wasm(build.wasm(src), np=1)
    assert n.returncode == 0, n.stdout + n.stderr
    assert w.returncode == 0, w.stdout + w.stderr
    lines = lambda out: [x for x in out.splitlines() if " checked " in x]  # noqa: E731
    assert lines(w.stdout) == lines(n.stdout) and len(lines(n.stdout)) == 3, (n.stdout, w.stdout)
    for line in lines(w.stdout):
        assert re.fullmatch(r"mem\w+ checked [1-9]\d{3,} failed 0", line), line


THRESHOLD_PROBE = (PROGRAMS / "memory_threshold.c", "-nostartfiles", "-Wl,--no-entry")


def test_memory_functions_take_bulk_instructions_from_128_bytes(build):
    """At 128 bytes memcpy and memmove run memory.copy and memset
    memory.fill, once, for the whole block; at 127 they copy in words."""
    ran = bulk_instructions_run(build.wasm(*THRESHOLD_PROBE))
    assert ran == {"copy_at": [("memory.copy", 128)], "copy_below": [],
                   "move_at": [("memory.copy", 128)], "move_below": [],
                   "fill_at": [("memory.fill", 128)], "fill_below": []}, ran


def test_strict_mode_keeps_wasi_libc_memory_functions(build, tmp_path, run_wasm):
    """-wasm-strict links wasi-libc's own memcpy/memset (no bulk memory),
    and they pass the same checks."""
    wasm_mpicc = str(ROOT / "toolchain" / "bin" / "wasm-mpicc")
    out, probe = tmp_path / "strict.wasm", tmp_path / "strict_probe.wasm"
    for cmd in ([wasm_mpicc, "-wasm-strict", str(PROGRAMS / "memory_ops.c"), "-o", str(out)],
                [wasm_mpicc, "-wasm-strict", *map(str, THRESHOLD_PROBE), "-o", str(probe)]):
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT)
        assert r.returncode == 0, r.stderr
    ran = bulk_instructions_run(probe)
    assert len(ran) == 6 and not any(ran.values()), ran
    w = run_wasm(out, np=1)
    assert w.returncode == 0 and w.stdout.count(" failed 0") == 3, w.stdout + w.stderr


@pytest.mark.parametrize("mode", ["oob-copy", "oob-fill", "oob-move"])
@pytest.mark.parametrize("size", [64, 4096, 2**32 - 1])
def test_memory_functions_past_the_end_of_memory_trap(build, run_wasm, mode, size):
    """A block that runs past the linear memory traps, in the word loop
    (64 bytes) and in the engine's bulk instructions (4096, and SIZE_MAX,
    whose start wraps around the address space): a clear message, a
    non-zero exit, nothing after it runs."""
    r = run_wasm(build.wasm(PROGRAMS / "memory_ops.c"), mode, str(size), np=1)
    check_no_host_crash(r)
    assert r.returncode != 0
    assert f"{mode} of {size} bytes" in r.stdout, r.stdout + r.stderr
    assert "guest trapped: out of bounds memory access" in r.stderr, r.stderr
    assert "survived" not in r.stdout


def test_a_program_with_its_own_memcpy_keeps_it(build, run_wasm, run_native):
    """The layer's memory functions are one a file: a program that defines
    memcpy links (no duplicate symbol) and calls its own, natively alike."""
    src = PROGRAMS / "own_memcpy.c"
    n, w = run_native(build.native(src)), run_wasm(build.wasm(src), np=1)
    assert "own memcpy called 1, results right 1" in n.stdout, n.stdout + n.stderr
    assert w.returncode == 0 and "own memcpy called 1, results right 1" in w.stdout, w.stdout + w.stderr
