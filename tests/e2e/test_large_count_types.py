"""MPI-4.0 large-count (`_c`) datatype constructors, decoding and
pack/unpack. The embedder makes them of the host's int forms on every host;
only values past INT_MAX need the host's own `_c` function (MPICH has them,
Open MPI 4.1 and 5 do not: then MPI_ERR_COUNT, naming the function)."""
import ctypes

import pytest

from conftest import PROGRAMS, run

SRC = PROGRAMS / "large_count_types.c"

# the big cases that fit the host's 64-bit MPI_Aint (any host), and those
# that need the host's own _c function
ANY_HOST = ["hindexed_c, displacement 3*2^32", "resized_c, lb -2^33 extent 2^34", "hvector_c, stride 2^32"]
HOST_C = ["contiguous_c, 2^31+7 bytes", "vector_c, stride 2^32", "indexed_c, displacement 3*2^31", "subarray_c, 2^32 elements",
          "struct_c, block of 2^31+1", "Pack_size_c 2^31 ints", "Pack_external_size_c 2^31+1 shorts"]
NEW = """Type_contiguous_c Type_vector_c Type_create_hvector_c Type_indexed_c Type_create_hindexed_c
Type_create_indexed_block_c Type_create_hindexed_block_c Type_create_struct_c Type_create_subarray_c Type_create_darray_c
Type_create_resized_c Type_get_envelope_c Type_get_contents_c Pack_c Unpack_c Pack_size_c Pack_external_c Unpack_external_c
Pack_external_size_c""".split()


@pytest.fixture(scope="module")
def host_has_c(mpi, embedder):
    """Whether the host library the launcher implies has the datatype `_c`
    functions (`inspect --provided` says `host: not needed` for them)."""
    r = run(mpi.cmd(1, embedder, "inspect", "--mpi"))
    assert r.returncode == 0, r.stderr
    path = dict(line.split("\t", 1) for line in r.stdout.splitlines() if "\t" in line)["library"]
    lib = ctypes.CDLL(path, mode=ctypes.RTLD_LOCAL)
    return hasattr(lib, "MPI_Type_contiguous_c")


def lines_of(r):
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout.splitlines()


@pytest.mark.parametrize("np", [1, 3])
def test_types_made_by_the_c_forms_match_the_native_ones(build, run_wasm, run_native, np):
    """Sizes, extents, decoded arguments and data moved with each type (a
    native MPI without the _c forms builds them with the int forms: the
    output is the same by construction)."""
    wasm = lines_of(run_wasm(build.wasm(SRC), "layout", np=np))
    native = lines_of(run_native(build.native(SRC), "layout", np=np))
    assert wasm == native
    # the int forms, also refactored, give the same
    assert lines_of(run_wasm(build.wasm(SRC, "-DINT_FORMS"), "layout", np=np)) == wasm
    assert wasm[-1].split() == ["envelopes", "as", "the", "standard's", "table", "ok"]
    assert sum(line.startswith("  pack: MPI_SUCCESS") for line in wasm) == 15, wasm
    assert "  darray(%d, 0, 2, 8, 6, BLOCK, CYCLIC, DFLT, 2," % np in "\n".join(wasm)


def test_envelope_and_contents_of_c_types(build, run_wasm, run_native):
    wasm = lines_of(run_wasm(build.wasm(SRC), "envelope", np=1))
    native = lines_of(run_native(build.native(SRC), "envelope", np=1))
    assert wasm[-1].split()[-1] == "ok", wasm
    # the MPI-3 decoding functions refuse _c-made types, accept the others
    refused = [wasm[i - 2].split(":")[0] for i, line in enumerate(wasm) if line.startswith("  MPI-3 envelope refused contents refused")]
    assert len(refused) == 9 and all("_c" in name for name in refused), wasm
    assert "  MPI-3 envelope ok contents ok ni 2 na 1 nd 1 hvector" in wasm
    assert "  MPI-3 envelope ok contents ok ni 0 na 0 nd 1 dup" in wasm
    assert "contents_c with room for 2 of 3 large counts: refused" in wasm
    if native == ["no large-count functions"]:
        return  # an MPI-3.1 native library: nothing to compare with
    assert wasm == native


def test_values_past_int_max(build, run_wasm, run_native, host_has_c):
    wasm = lines_of(run_wasm(build.wasm(SRC), "big", np=1))
    assert wasm[-1].split()[-1] == "ok", wasm
    heads = {line.split(":")[0]: line for line in wasm if not line.startswith(" ")}
    for case in ANY_HOST:
        assert " size " in heads[case], heads[case]
    if host_has_c:
        for case in HOST_C:
            assert "error" not in heads[case] and "MPI_ERR" not in heads[case], heads[case]
        native = lines_of(run_native(build.native(SRC), "big", np=1))
        assert wasm == native
    else:
        for case in HOST_C:
            assert heads[case].endswith("MPI_ERR_COUNT") or "MPI_ERR_COUNT -1" in heads[case], heads[case]


def test_a_value_past_int_max_without_the_hosts_function_names_it(build, run_wasm, host_has_c):
    r = run_wasm(build.wasm(SRC), "big-fatal", np=1)
    if host_has_c:
        assert r.returncode == 0 and r.stdout == "made\n", r.stdout + r.stderr
        return
    assert r.returncode != 0, r.stdout
    assert "MPI_Type_contiguous_c: MPI_ERR_COUNT" in r.stderr and "does not provide MPI_Type_contiguous_c" in r.stderr, r.stderr


def test_bad_arguments_give_error_classes(build, run_wasm):
    lines = lines_of(run_wasm(build.wasm(SRC), "errors", np=1))
    assert [line.rsplit(None, 1) for line in lines] == [
        ["constructors refuse bad arguments", "ok"],
        ["decoding refuses what it cannot return", "ok"],
        ["pack and unpack refuse bad arguments", "ok"],
    ], lines


def test_inspect_says_the_host_function_is_not_needed(mpi, embedder):
    r = run(mpi.cmd(1, embedder, "inspect", "--provided"))
    assert r.returncode == 0, r.stderr
    rows = {row[0]: row for row in (line.split("\t") for line in r.stdout.splitlines()) if row[0].startswith("MPI_")}
    for name in NEW:
        assert rows["MPI_" + name][-1] == "host: not needed", rows.get("MPI_" + name)


def test_file_reads_of_more_than_int_max_elements(build, run_wasm, mpi, embedder, tmp_path):
    """MPI_File_*_c reads of 2^31 + 8 bytes into a 2 GiB guest buffer from a
    100-byte file (file_large_count.c). MPICH's ROMIO assert()s
    `count <= INT_MAX` in each and the process died of SIGABRT (natively
    too); the bridge hands it one element of a type made for the call.
    Hosts without the `_c` file functions (Open MPI 4.1, 5) say so."""
    r = run(mpi.cmd(1, embedder, "inspect", "--mpi"))
    path = dict(line.split("\t", 1) for line in r.stdout.splitlines() if "\t" in line)["library"]
    has_c = hasattr(ctypes.CDLL(path, mode=ctypes.RTLD_LOCAL), "MPI_File_read_at_c")
    data = tmp_path / "data"
    data.mkdir()
    r = run_wasm(build.wasm(PROGRAMS / "file_large_count.c"), "/data/f.bin", opts=["--mapdir", f"/data:{data}"], np=1,
                 timeout=120)
    assert "Assertion" not in r.stderr and "signal" not in r.stderr, r.stderr
    assert r.returncode == 0, r.stdout + r.stderr
    reads = [line.split(":")[0] for line in r.stdout.splitlines()]
    assert reads == ["read_at_c", "iread_at_c", "read_all_c"], r.stdout
    if has_c:
        assert r.stdout == ("read_at_c: rc 0 count 100 data ok\niread_at_c: rc 0 count 90 data ok\n"
                            "read_all_c: rc 0 count 50 data ok\n"), r.stdout + r.stderr
    else:
        assert "does not provide MPI_File_read_at_c" in r.stderr, r.stderr
