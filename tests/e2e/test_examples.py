"""The examples, compiled to wasm and natively, give the same output."""
import pytest

from conftest import EXAMPLES


@pytest.mark.parametrize("np", [1, 2, 4])
@pytest.mark.parametrize("example,args", [("ring", ["3"]), ("hello", [])])
def test_example_matches_native(build, run_wasm, run_native, example, args, np):
    src = EXAMPLES / f"{example}.c"
    native = run_native(build.native(src), *args, np=np)
    wasm = run_wasm(build.wasm(src), *args, np=np)
    assert native.returncode == 0, native.stderr
    assert wasm.returncode == 0, wasm.stderr
    assert wasm.stdout == native.stdout
    assert f"of {np}" in wasm.stdout


@pytest.mark.parametrize("backend", ["cranelift", "singlepass"])
def test_other_backends_give_the_same_result(build, run_wasm, run_native, backend):
    src = EXAMPLES / "ring.c"
    native = run_native(build.native(src), "2", np=3)
    # Singlepass has no SIMD, which wasm-mpicc's default vectorizer uses
    # even here (test_singlepass_refuses_simd_clearly); Cranelift gets both
    flags = ["-mno-simd128"] if backend == "singlepass" else []
    wasm = run_wasm(build.wasm(src, *flags), "2", np=3, opts=["--backend", backend])
    assert wasm.returncode == 0, wasm.stderr
    assert wasm.stdout == native.stdout


def test_singlepass_refuses_simd_clearly(build, run_wasm):
    """The default build of ring.c has SIMD (wasm-mpicc: -msimd128 and a low
    SLP threshold); Singlepass says so instead of failing obscurely."""
    r = run_wasm(build.wasm(EXAMPLES / "ring.c"), "2", opts=["--backend", "singlepass"])
    assert r.returncode != 0
    assert "Singlepass has no SIMD support: use --backend cranelift or llvm, or build without -msimd128" in r.stderr, r.stderr
