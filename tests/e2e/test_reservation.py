"""The guest-memory reservation holds: hand-written modules load and store at
the largest addresses and offsets a wasm32 access can form, on every
backend, and each access outside the memory traps without reaching host
memory.

A wasm32 access touches zext(address) + offset (each < 2^32) plus up to 16
bytes, i.e. up to 8 GiB + 14 bytes past the memory's base; Wasmer 4.4's
default reservation (4 GiB + 2 GiB guard) left the top 2 GiB of that to the
host's own mappings. Each probe takes its address from a mutable global so
that no backend can fold it into a constant check, and prints what it read
(or a marker after a store) only if the access did not trap: any output
from an out-of-bounds probe is a sandbox escape.
"""
import shutil
import subprocess

import pytest

from conftest import run

GiB = 1 << 30
MAX_U32 = (1 << 32) - 1
# llvm-strict: LLVM with --strict-traps (every access volatile, as Wasmer 4.4
# compiled them); plain llvm may delete dead accesses, never live ones
BACKENDS = ["llvm", "llvm-strict", "cranelift", "singlepass"]
TRAP = "guest trapped: out of bounds memory access"

# name -> (bytes touched, alignment the access needs to avoid an
# unaligned-atomic trap, instruction(s) using $addr with offset=OFF)
ACCESSES = {
    "i32.load8_u": (1, 1, "(i64.store (i32.const 64) (i64.extend_i32_u (i32.load8_u offset=OFF (global.get $addr))))"),
    "i64.load": (8, 1, "(i64.store (i32.const 64) (i64.load offset=OFF align=1 (global.get $addr)))"),
    "i32.store": (4, 1, "(i32.store offset=OFF align=1 (global.get $addr) (i32.const 0x41414141))"),
    "i64.store8": (1, 1, "(i64.store8 offset=OFF (global.get $addr) (i64.const 0x41))"),
    "v128.load": (16, 1, "(v128.store (i32.const 64) (v128.load offset=OFF align=1 (global.get $addr)))"),
    "v128.store": (16, 1, "(v128.store offset=OFF align=1 (global.get $addr) (v128.const i64x2 0x4141414141414141 0x4141414141414141))"),
    "i32.atomic.rmw.add": (4, 4, "(drop (i32.atomic.rmw.add offset=OFF (global.get $addr) (i32.const 1)))"),
    "i64.atomic.load": (8, 8, "(i64.store (i32.const 64) (i64.atomic.load offset=OFF (global.get $addr)))"),
    "i32.atomic.store": (4, 4, "(i32.atomic.store offset=OFF (global.get $addr) (i32.const 0x41414141))"),
}

MODULE = """(module
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") {pages})
  (global $addr (mut i32) (i32.const {addr}))
  (data (i32.const 96) "NO TRAP:")
  (func (export "_start")
    {body}
    ;; reached only if the access did not trap: print the marker and what was read
    (i32.store (i32.const 0) (i32.const 96))
    (i32.store (i32.const 4) (i32.const 8))
    (i32.store (i32.const 8) (i32.const 64))
    (i32.store (i32.const 12) (i32.const 16))
    (drop (call $fd_write (i32.const 1) (i32.const 0) (i32.const 2) (i32.const 32)))))
"""


def split(ea):
    """An (address, offset) pair that adds up to the effective address ea,
    with as much as possible in the address (the offset carries the rest)."""
    addr = min(ea, MAX_U32)
    return addr, ea - addr


def probes(size, align, pages):
    """(effective address, expect a trap) around every boundary: the end of
    the memory, 4 GiB, Wasmer's old 6 GiB reservation end, 8 GiB, and the
    largest effective address of all."""
    mem = pages * 65536
    eas = {mem - size: False, mem - size + 1: True, mem: True, mem + 1: True}
    for b in (4 * GiB, 6 * GiB, 8 * GiB):
        eas.update({b - 16: True, b - size: True, b - 1: True, b: True, b + 1: True})
    eas[2 * MAX_U32] = True  # address 2^32-1 + offset 2^32-1
    out = []
    for ea, trap in eas.items():
        ea -= ea % align
        if 0 <= ea <= 2 * MAX_U32 and (trap or ea + size <= mem):
            out.append((ea, ea + size > mem))
    return sorted(set(out))


@pytest.fixture(scope="module")
def wat2wasm():
    exe = shutil.which("wat2wasm")
    if not exe:
        pytest.fail("wat2wasm is missing: `make setup` installs Debian's wabt")
    return exe


def assemble(wat2wasm, tmp_path, name, text):
    src, out = tmp_path / f"{name}.wat", tmp_path / f"{name}.wasm"
    src.write_text(text)
    r = subprocess.run([wat2wasm, "--enable-threads", "-o", out, src], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return out


# modes beyond the backends: LLVM with an option that changes its code
MODES = {"llvm-strict": ["--backend", "llvm", "--strict-traps"],
         "llvm-wrapping": ["--backend", "llvm", "--wrapping-addresses"]}


def backend_args(backend):
    return MODES.get(backend, ["--backend", backend])


def run_module(embedder, module, backend):
    # what an escaped probe prints is raw memory: decode it leniently
    return run([embedder, "--no-cache", *backend_args(backend), module], timeout=60, errors="replace")


def check_probes(embedder, wat2wasm, tmp_path, backend, access, pages):
    size, align, body = ACCESSES[access]
    cases = probes(size, align, pages)
    assert any(trap for _, trap in cases) and max(ea for ea, _ in cases) == 2 * MAX_U32 - (2 * MAX_U32) % align
    failures = []
    for ea, trap in cases:
        addr, offset = split(ea)
        text = MODULE.format(pages=pages, addr=addr - (1 << 32) if addr > 0x7FFFFFFF else addr, body=body.replace("OFF", str(offset)))
        module = assemble(wat2wasm, tmp_path, f"{access}-{ea:x}", text)
        r = run_module(embedder, module, backend)
        where = f"{access} at {ea:#x} (address {addr:#x} + offset {offset:#x})"
        if backend == "singlepass" and access.startswith("v128"):
            if r.returncode == 0 or "Singlepass has no SIMD support" not in r.stderr:
                failures.append(f"{where}: singlepass should refuse SIMD clearly: {r.returncode} {r.stderr[-300:]}")
            continue
        if trap:
            if r.returncode != 134 or TRAP not in r.stderr or r.stdout:
                failures.append(f"{where}: expected a trap, got exit {r.returncode}, stdout {r.stdout!r}, stderr {r.stderr[-300:]!r}")
        elif r.returncode != 0 or not r.stdout.startswith("NO TRAP:"):
            failures.append(f"{where}: in bounds, expected no trap, got exit {r.returncode}, stderr {r.stderr[-300:]!r}")
    assert not failures, "\n".join(failures)


DEAD_LOAD = """(module
  (memory (export "memory") 1)
  (global $addr (mut i32) (i32.const 65535))
  (func (export "_start")
    (drop (i64.load (global.get $addr)))))
"""


@pytest.mark.parametrize("strict", [False, True])
def test_a_dead_out_of_bounds_load_traps_only_with_strict_traps(embedder, wat2wasm, tmp_path, strict):
    """A load whose value is dropped: Cranelift, Singlepass and LLVM with
    --strict-traps perform it and trap; LLVM's default code deletes it (the
    documented difference, patches/README.md), and the run ends normally."""
    module = assemble(wat2wasm, tmp_path, "dead-load", DEAD_LOAD)
    r = run_module(embedder, module, "llvm-strict" if strict else "llvm")
    if strict:
        assert r.returncode == 134 and TRAP in r.stderr, (r.returncode, r.stderr[-300:])
    else:
        assert r.returncode == 0, (r.returncode, r.stderr[-300:])
    for other in ("cranelift", "singlepass"):
        o = run_module(embedder, module, other)
        assert o.returncode == 134 and TRAP in o.stderr, (other, o.returncode, o.stderr[-300:])


# i32.add(address, C) as an access's address: LLVM by default folds C (below
# 1024) into the offset (patches/README.md, 8). (address, C, offset, what
# each mode does): "trap", or the byte read where wasm's 32-bit sum points
# (the module stores 0x41 there).
FOLDED = {
    # the largest folded reach: 2^32-1 + (1023 + the rest of the offset)
    "largest-reach": (MAX_U32, 1023, MAX_U32 - 1023, "trap", "trap"),
    # offset + C past 2^32-1 is not folded: the 32-bit sum wraps to 998
    "offset-too-large": (MAX_U32, 999, MAX_U32 - 998, "trap", "trap"),
    # -8 + 16 wraps to 8, below 1024: the bottom of memory in wasm, a trap
    # when folded
    "wraps-to-8": (MAX_U32 - 7, 16, 0, "0x41", "trap"),
    "wraps-with-offset": (MAX_U32 - 7, 8, 8, "0x41", "trap"),
    # a negative index added to the address of static data (C >= 1024) is
    # not folded: -12 + 4096 is 4084 in every mode
    "negative-index": (MAX_U32 - 11, 4096, 0, "0x41", "0x41"),
    # no wrap: folded or not, the same byte
    "in-bounds": (4, 4, 0, "0x41", "0x41"),
    "past-the-end": (65535, 1, 0, "trap", "trap"),
}
FOLDED_MODULE = """(module
  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
  (memory (export "memory") 1)
  (global $addr (mut i32) (i32.const {addr}))
  (func (export "_start")
    (i32.store8 (i32.const {target}) (i32.const 0x41))
    (call $exit (i32.load8_u offset={offset} (i32.add (global.get $addr) (i32.const {c}))))))
"""


@pytest.mark.parametrize("mode", ["llvm", "llvm-wrapping", "llvm-strict", "cranelift"])
def test_constants_added_to_addresses(embedder, wat2wasm, tmp_path, mode):
    """What an address + constant reaches: the same byte everywhere unless
    the 32-bit sum wraps, where default LLVM traps and the exact modes read
    the bottom of memory; never past the reservation."""
    failures = []
    for name, (addr, c, offset, exact, folded) in FOLDED.items():
        target = min((addr + c) % (1 << 32) + offset, 65535)  # where wasm reads, when in bounds
        text = FOLDED_MODULE.format(addr=addr - (1 << 32) if addr > 0x7FFFFFFF else addr, c=c, offset=offset, target=target)
        r = run_module(embedder, assemble(wat2wasm, tmp_path, name, text), mode)
        want = folded if mode == "llvm" else exact
        got = "trap" if r.returncode == 134 and TRAP in r.stderr else hex(r.returncode)
        if got != want:
            failures.append(f"{name}: expected {want}, got exit {r.returncode}, stderr {r.stderr[-300:]!r}")
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("access", ACCESSES)
@pytest.mark.parametrize("backend", BACKENDS)
def test_accesses_past_a_small_memory_trap_up_to_the_largest_reach(embedder, wat2wasm, tmp_path, backend, access):
    check_probes(embedder, wat2wasm, tmp_path, backend, access, pages=1)


@pytest.mark.parametrize("access", ["i64.load", "v128.store", "i32.atomic.rmw.add"])
@pytest.mark.parametrize("backend", BACKENDS)
def test_a_full_4_gib_memory_ends_exactly_at_4_gib(embedder, wat2wasm, tmp_path, backend, access):
    """With all 65536 pages the last bytes below 4 GiB are the guest's and
    the first byte past them traps."""
    check_probes(embedder, wat2wasm, tmp_path, backend, access, pages=65536)


BULK = {
    # memory.copy/fill/init check their whole range in 64-bit arithmetic:
    # the range may not wrap around 2^32 into low memory
    "copy-src-wrap": ("(memory.copy (i32.const 64) (i32.const -16) (i32.const 32))", True),
    "copy-dst-wrap": ("(memory.copy (i32.const -16) (i32.const 64) (i32.const 32))", True),
    "copy-src-past-end": ("(memory.copy (i32.const 64) (i32.const 65535) (i32.const 2))", True),
    "copy-huge-len": ("(memory.copy (i32.const 64) (i32.const 0) (i32.const -1))", True),
    "copy-to-last-byte": ("(memory.copy (i32.const 65535) (i32.const 96) (i32.const 1))", False),
    "fill-wrap": ("(memory.fill (i32.const -1) (i32.const 65) (i32.const 2))", True),
    "fill-past-end": ("(memory.fill (i32.const 65520) (i32.const 65) (i32.const 17))", True),
    "fill-huge-len": ("(memory.fill (i32.const 0) (i32.const 65) (i32.const -1))", True),
    "fill-to-end": ("(memory.fill (i32.const 65520) (i32.const 65) (i32.const 16))", False),
    "init-wrap": ("(memory.init $seg (i32.const -2) (i32.const 0) (i32.const 4))", True),
    "init-past-end": ("(memory.init $seg (i32.const 65534) (i32.const 0) (i32.const 4))", True),
    "init-past-segment": ("(memory.init $seg (i32.const 64) (i32.const 1) (i32.const 4))", True),
    "init-to-end": ("(memory.init $seg (i32.const 65532) (i32.const 0) (i32.const 4))", False),
}


@pytest.mark.parametrize("backend", BACKENDS)
def test_bulk_memory_ranges_are_checked_in_full(embedder, wat2wasm, tmp_path, backend):
    failures = []
    for name, (body, trap) in BULK.items():
        text = MODULE.format(pages=1, addr=0, body=body).replace(
            '(data (i32.const 96) "NO TRAP:")', '(data (i32.const 96) "NO TRAP:") (data $seg "ABCD")'
        )
        r = run_module(embedder, assemble(wat2wasm, tmp_path, name, text), backend)
        if trap and (r.returncode != 134 or TRAP not in r.stderr or r.stdout):
            failures.append(f"{name}: expected a trap, got exit {r.returncode}, stdout {r.stdout!r}, stderr {r.stderr[-300:]!r}")
        if not trap and (r.returncode != 0 or not r.stdout.startswith("NO TRAP:")):
            failures.append(f"{name}: expected no trap, got exit {r.returncode}, stderr {r.stderr[-300:]!r}")
    assert not failures, "\n".join(failures)


def test_modules_with_other_memories_are_refused(embedder, wat2wasm, tmp_path):
    """An imported memory would be the embedder's to provide (it provides
    none); a second memory needs multi-memory, which the engine rejects.
    Either way: a clear message and a non-zero exit, never a run."""
    imported = '(module (import "env" "memory" (memory 1)) (func (export "_start")))'
    r = run_module(embedder, assemble(wat2wasm, tmp_path, "imported", imported), "cranelift")
    assert r.returncode != 0 and "env.memory" in r.stderr, r.stderr
    two = tmp_path / "two.wasm"
    # hand-written bytes: two memory entries (wat2wasm would refuse them too)
    two.write_bytes(bytes.fromhex("0061736d01000000" "0505020001 0001".replace(" ", "")))
    r = run_module(embedder, two, "cranelift")
    assert r.returncode != 0 and "not a valid module" in r.stderr, r.stderr


def test_probe_offsets_reach_past_8_gib():
    """The probe list itself: every boundary is probed on both sides."""
    eas = [ea for ea, _ in probes(16, 1, 1)]
    for b in (4 * GiB, 6 * GiB):
        assert any(ea < b for ea in eas if ea > b - 32) and any(ea >= b for ea in eas if ea < b + 32)
    # no access starts at 8 GiB or above, but the largest ones end past it
    assert any(8 * GiB - 16 <= ea < 8 * GiB - 1 for ea in eas)
    assert max(eas) == 2 * MAX_U32 and max(eas) + 16 > 8 * GiB and split(2 * MAX_U32) == (MAX_U32, MAX_U32)
