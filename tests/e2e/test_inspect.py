"""`embedder inspect` reports what a module needs and what is provided."""
from conftest import PROGRAMS, run


def test_inspect_lists_provided_and_unsupported_imports(build, embedder):
    r = run([embedder, "inspect", build.wasm(PROGRAMS / "faults.c")])
    assert r.returncode == 0, r.stderr
    lines = dict(line.split("\t") for line in r.stdout.splitlines())
    assert lines["env.MPI_Send"] == "provided"
    assert lines["env.MPI_Init"] == "provided"
    assert lines["env.MPI_Win_fence"].startswith("NOT SUPPORTED")
    assert any(k.startswith("wasi_snapshot_preview1.") and v == "WASI" for k, v in lines.items())


def test_inspect_provided_lists_every_implemented_function(embedder):
    r = run([embedder, "inspect", "--provided"])
    names = r.stdout.split()
    for f in ["MPI_Init", "MPI_Init_thread", "MPI_Finalize", "MPI_Initialized", "MPI_Finalized",
              "MPI_Comm_rank", "MPI_Comm_size", "MPI_Send", "MPI_Recv", "MPI_Barrier", "MPI_Wtime",
              "MPI_Abort", "MPI_Get_processor_name"]:
        assert f in names
    assert f"{len(names)} MPI functions implemented" in r.stderr


def test_inspect_rejects_non_wasm(embedder, tmp_path):
    bad = tmp_path / "x.wasm"
    bad.write_bytes(b"\0asm\x01\0\0\0\x02\xff")
    r = run([embedder, "inspect", bad])
    assert r.returncode == 1 and "not a valid WebAssembly module" in r.stderr
