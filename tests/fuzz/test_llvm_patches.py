"""Reproducers of the Wasmer 4.4 LLVM backend bugs the module fuzzer found,
each fixed in the patched crate (patches/README.md). Each module runs on
LLVM, Cranelift and (where it has no SIMD) Singlepass through
`fuzz-modules --module`, which compares every export's results and traps;
each test also names what LLVM must print, so a wrong answer that happened
to agree elsewhere would still fail."""
import re
import subprocess

import pytest

from test_fuzz import fuzz_modules

MODULES = {
    # 1. an extending SIMD load whose value is unused: LLVM deleted it, and
    #    with it the out-of-bounds trap (65532 + 8 > one page)
    #    (with --strict-traps; the default code may delete such a load)
    "simd_extending_load": ("""(module (memory 1)
  (func (export "f") (param i32) (result i32)
    i32.const 65532 v128.load8x8_s drop
    i32.const 65532 v128.load16x4_u drop
    i32.const 65532 v128.load32x2_s drop
    i32.const 7))""", "f: trap HeapAccessOutOfBounds", "f: i32:7"),
    # 2. block parameters left on the value stack when a frame's end is
    #    reached only through unreachable code: a loop inside a block
    "loop_parameter": ("""(module
  (func (export "f") (param i32) (result i32)
    i32.const 1 i32.const 2
    (block $outer (param i32) (result i32)
      (loop (param i32) (result i32) br $outer)
      unreachable)
    i32.add))""", "f: i32:3"),
    # 2. the same for nested blocks with parameters
    "block_parameter": ("""(module
  (func (export "f") (result i32)
    i32.const 1 i32.const 2
    (block $outer (param i32) (result i32)
      (block (param i32) (result i32) br $outer)
      unreachable)
    i32.add))""", "f: i32:3"),
    # 2. and the `else` of an if whose `then` arm ends unreachable: the
    #    arm's leftovers were popped as the else's values (a compile-time
    #    panic in LLVM)
    "if_parameter": ("""(module
  (func (export "f") (param i32) (result i32)
    i32.const 9 f32.const 1.5 local.get 0
    (if (param f32) (result i64)
      (then unreachable)
      (else i32.trunc_f32_s i64.extend_i32_s))
    i32.wrap_i64 i32.add))""", "f: i32:10"),
    # 4. (funcref, i32, f32) results: a reference was not taken for the
    #    64-bit value it is (a compile-time panic in LLVM)
    "funcref_i32_f32_results": ("""(module
  (func (export "f") (param i32) (result funcref i32 f32)
    ref.null func i32.const 5 f32.const 1.5))""", "f: funcref:null i32:5 f32:0x3fc00000"),
    "i32_i32_v128_results": ("""(module
  (func (export "f") (param i32) (result i32 i32 v128)
    i32.const 11 i32.const 2 v128.const i64x2 3 4))""", "f: i32:11 i32:2 v128:0x40000000000000003"),
}


# Without --strict-traps LLVM may delete an access whose value is unused
# (patches/README.md, 6): what it must still do.
MODULES.update({
    # a load whose value is used traps out of bounds, as every backend's
    "live_load": ("""(module (memory 1)
  (func (export "f") (param i32) (result i32)
    i32.const 65533 i32.load))""", "f: trap HeapAccessOutOfBounds"),
    # a store traps (stores are never dead: memory is observable)
    "store": ("""(module (memory 1)
  (func (export "f") (param i32) (result i32)
    i32.const 65535 i32.const 1 i32.store16 i32.const 3))""", "f: trap HeapAccessOutOfBounds"),
    # a loop whose loads LLVM may now keep in registers or combine: the sum
    # is the same, and the access past the end still traps when reached
    "loop_sum": ("""(module (memory 1)
  (func $sum (param $end i32) (result i32) (local $a i32) (local $s i32)
    (loop $l
      (i32.store8 (local.get $a) (local.get $a))
      (local.set $s (i32.add (local.get $s) (i32.load8_u (local.get $a))))
      (local.set $a (i32.add (local.get $a) (i32.const 4093)))
      (br_if $l (i32.lt_u (local.get $a) (local.get $end))))
    (local.get $s))
  (func (export "f") (param i32) (result i32) (call $sum (i32.const 65536)))
  (func (export "g") (param i32) (result i32) (call $sum (i32.const 70000))))""",
                 "f: i32:3688 | f: i32:3688 | g: trap HeapAccessOutOfBounds"),
    # a dead load with a dead load's address: strict keeps it, the default
    # deletes it and returns
    "dead_scalar_load": ("""(module (memory 1)
  (func (export "f") (param i32) (result i32)
    i32.const 65535 i64.load drop i32.const 4))""", "f: trap HeapAccessOutOfBounds", "f: i32:4"),
})

# By default a constant added to an address becomes part of the access's
# offset (patches/README.md, 8): the same results as with
# --wrapping-addresses, except that an address wrapping past 4 GiB traps.
# Fourth entry: what default LLVM prints, where it differs.
MODULES.update({
    # -4 + 8 wraps to 4 (below 1024): wrapping addresses load memory[4],
    # folded traps
    "wrapped_address": ("""(module (memory 1)
  (func (export "f") (param i32) (result i32) (local $p i32)
    (i32.store (i32.const 4) (i32.const 77))
    (local.set $p (i32.const -4))
    (i32.load (i32.add (local.get $p) (i32.const 8)))))""", "f: i32:77", None, "f: trap HeapAccessOutOfBounds"),
    # constants added to addresses within the memory, with and without the
    # access's own offset, and one past its end: the same everywhere
    "folded_offsets": ("""(module (memory 1)
  (func $at (param $p i32) (result i32)
    (i32.store offset=64500 (i32.add (local.get $p) (i32.const 1000)) (i32.const 5))
    (i32.add (i32.load offset=65000 (i32.add (local.get $p) (i32.const 500)))
             (i32.load offset=64480 (i32.add (local.get $p) (i32.const 1020)))))
  (func (export "f") (param i32) (result i32) (call $at (i32.const 0)))
  (func (export "g") (param i32) (result i32) (call $at (i32.const 36))))""",
                       "f: i32:10 | g: trap HeapAccessOutOfBounds"),
})


@pytest.mark.parametrize("name", sorted(MODULES))
def test_llvm_agrees_with_the_other_backends(name, tmp_path):
    wat, strict, plain, folded, *_ = (*MODULES[name], None, None)
    plain = plain or strict
    folded = folded or plain
    (tmp_path / "m.wat").write_text(wat)
    subprocess.run(["wat2wasm", "--enable-all", tmp_path / "m.wat", "-o", tmp_path / "m.wasm"], check=True)
    p = fuzz_modules("--module", str(tmp_path / "m.wasm"), "--verbose", timeout=120)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    assert re.search(r"1 modules .* 0 mismatches, 0 host panics", p.stdout), p.stdout
    lines = p.stderr.splitlines()
    llvm_strict = [line for line in lines if line.startswith("module 0 LLVM strict: ")]
    llvm_plain = [line for line in lines if line.startswith("module 0 LLVM wrapping addresses: ")]
    llvm = [line for line in lines if line.startswith("module 0 LLVM: ")]
    assert llvm_strict and strict in llvm_strict[0], p.stderr[-3000:]
    assert llvm_plain and plain in llvm_plain[0], p.stderr[-3000:]
    assert llvm and folded in llvm[0], p.stderr[-3000:]
    deleted = re.search(r"(\d+) dead out-of-bounds accesses deleted", p.stdout)
    assert deleted and int(deleted[1]) == (plain != strict), p.stdout
    wrapped = re.search(r"(\d+) wrapped addresses trapped with folded offsets", p.stdout)
    assert wrapped and int(wrapped[1]) == (folded != plain), p.stdout


def test_strict_traps_set_a_global_before_the_access_that_traps(tmp_path):
    """9. With --strict-traps (volatile accesses), a global set before an
    out-of-bounds load is set when the load traps, as on Cranelift and
    Singlepass: LLVM sank the plain store of a global set in every iteration
    of a loop past the loop's volatile load (found by the module fuzzer,
    seed 301130, module 789). Without --strict-traps state after a trap may
    differ (patches/README.md, 6), so only strict LLVM is held to it."""
    (tmp_path / "m.wat").write_text("""(module (memory 1)
  (global $g (export "g") (mut f64) (f64.const 1))
  (global $n (mut i32) (i32.const 100))
  (func (export "f") (param i32) (result i32) (local $s i32)
    (loop $l
      (global.set $g (f64.const 2))
      (local.set $s (i32.add (local.get $s) (i32.load (i32.const 65534))))
      (global.set $n (i32.sub (global.get $n) (i32.const 1)))
      (br_if $l (global.get $n)))
    (local.get $s)))""")
    subprocess.run(["wat2wasm", "--enable-all", tmp_path / "m.wat", "-o", tmp_path / "m.wasm"], check=True)
    p = fuzz_modules("--module", str(tmp_path / "m.wasm"), "--verbose", timeout=120)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    assert re.search(r"1 modules .* 0 mismatches, 0 host panics", p.stdout), p.stdout
    strict = [line for line in p.stderr.splitlines() if line.startswith("module 0 LLVM strict: ")]
    assert strict and strict[0].endswith("f: trap HeapAccessOutOfBounds | global g: f64:0x4000000000000000"), p.stderr[-3000:]
