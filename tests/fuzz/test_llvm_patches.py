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
    "simd_extending_load": ("""(module (memory 1)
  (func (export "f") (param i32) (result i32)
    i32.const 65532 v128.load8x8_s drop
    i32.const 65532 v128.load16x4_u drop
    i32.const 65532 v128.load32x2_s drop
    i32.const 7))""", "f: trap HeapAccessOutOfBounds"),
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


@pytest.mark.parametrize("name", sorted(MODULES))
def test_llvm_agrees_with_the_other_backends(name, tmp_path):
    wat, expected = MODULES[name]
    (tmp_path / "m.wat").write_text(wat)
    subprocess.run(["wat2wasm", "--enable-all", tmp_path / "m.wat", "-o", tmp_path / "m.wasm"], check=True)
    p = fuzz_modules("--module", str(tmp_path / "m.wasm"), "--verbose", timeout=120)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    assert re.search(r"1 modules .* 0 mismatches, 0 host panics", p.stdout), p.stdout
    llvm = [line for line in p.stderr.splitlines() if line.startswith("module 0 LLVM: ")]
    assert llvm and expected in llvm[0], p.stderr[-3000:]
