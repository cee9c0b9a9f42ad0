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
    wasm = run_wasm(build.wasm(src), "2", np=3, opts=["--backend", backend])
    assert wasm.returncode == 0, wasm.stderr
    assert wasm.stdout == native.stdout
