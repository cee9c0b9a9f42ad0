"""MPI-IO (tests/e2e/programs/mpiio.c): the functional modes run natively and
in wasm with the same output and the same file contents; the sandbox modes
(wasm only) check that MPI_File_open/MPI_File_delete reach nothing outside
the preopens, that read-only preopens stay unwritten, that buffers past the
guest memory give MPI_ERR_BUFFER, and that what the host MPI says does not
name host paths. Every sandbox case checks the host side afterwards."""
import os
import re
import struct

import pytest

from conftest import PROGRAMS, run, snapshot

SRC = PROGRAMS / "mpiio.c"
TIMEOUT = 60  # a hung collective fails the test instead of hanging the suite
FAILED_EXPECT = re.compile(r"^\S+\.[ch]:\d+: ", re.M)
HOST_CRASH = ("panicked", "Segmentation fault", "overflowed its stack", "core dumped", "SIGSEGV", "signal 11", "Bus error")
SECRET = "TOP SECRET"
# what a path outside every preopen gives (MPI_ERR_BAD_FILE: an invalid name)
REFUSED = {"MPI_ERR_ACCESS", "MPI_ERR_NO_SUCH_FILE", "MPI_ERR_BAD_FILE"}
READ_ONLY = {"MPI_ERR_READ_ONLY", "MPI_ERR_ACCESS"}


def ok(r, what):
    """The run ended 0 with every check ok and no failed EXPECT on any rank."""
    out = f"{what}:\n{r.stdout}{r.stderr}"
    assert r.returncode == 0, out
    assert not FAILED_EXPECT.findall(r.stderr), out
    assert "FAILED" not in r.stdout, out
    assert not any(c in r.stderr for c in HOST_CRASH), out


# ---------------------------------------------------------------- functional

# mode -> ranks
FUNCTIONAL = {"block2d": 4, "shared": 4, "nonblocking": 4, "sparse": 2}
# how the wasm run sees its directory: --mapdir, -d (/<basename>), or -d with
# a path relative to the guest's root
PREOPEN = {"block2d": "mapdir", "shared": "dir", "nonblocking": "relative", "sparse": "mapdir"}


def functional(build, run_wasm, run_native, tmp_path, mode):
    """Runs the mode natively (tmp/native) and in wasm (tmp/data, preopened),
    checks both passed and printed the same; returns both host files and
    the output."""
    native_dir, wasm_dir = tmp_path / "native", tmp_path / "data"
    native_dir.mkdir()
    wasm_dir.mkdir()
    np = FUNCTIONAL[mode]
    name = f"{mode}.bin"
    native = run_native(build.native(SRC), mode, native_dir / name, np=np, timeout=TIMEOUT)
    ok(native, "native")
    how = PREOPEN[mode]
    opts = ["--mapdir", f"/data:{wasm_dir}"] if how == "mapdir" else ["-d", wasm_dir]
    guest = f"data/{name}" if how == "relative" else f"/data/{name}"
    wasm = run_wasm(build.wasm(SRC), mode, guest, np=np, opts=opts, timeout=TIMEOUT)
    ok(wasm, "wasm")
    assert wasm.stdout == native.stdout
    return native_dir / name, wasm_dir / name, wasm.stdout


def test_block2d_subarray_views_and_file_queries(build, run_wasm, run_native, tmp_path):
    native, wasm, _ = functional(build, run_wasm, run_native, tmp_path, "block2d")
    expected = struct.pack(f"<{64 * 48}d", *(i * 1000.0 + j for i in range(64) for j in range(48)))
    assert native.read_bytes() == expected
    assert wasm.read_bytes() == expected
    # rank 0's own file of set_size/preallocate: cut to 3 doubles at the end
    sizes = wasm.with_name(wasm.name + ".sizes")
    assert sizes.read_bytes() == expected[:24]
    assert native.with_name(native.name + ".sizes").read_bytes() == expected[:24]
    assert sorted(os.listdir(wasm.parent)) == sorted(os.listdir(native.parent))


def test_shared_file_pointer(build, run_wasm, run_native, tmp_path):
    native, wasm, _ = functional(build, run_wasm, run_native, tmp_path, "shared")
    ordered = b"".join(f"o{r}-{k}".encode().ljust(15, b".") + b"\n" for r in range(4) for k in range(r + 1))
    # write_shared's records, then iwrite_shared's
    shared = sorted(f"{c}{r}-0".encode().ljust(15, b".") + b"\n" for c in "si" for r in range(4))
    for path in (native, wasm):
        data = path.read_bytes()
        assert data[:len(ordered)] == ordered, path
        # write_shared and iwrite_shared: one record per rank each, in
        # whatever order they came
        rest = data[len(ordered):]
        assert sorted(rest[i:i + 16] for i in range(0, len(rest), 16)) == shared, path
        # MPI_MODE_DELETE_ON_CLOSE left nothing; nor did the shared pointer's files
        assert os.listdir(path.parent) == [path.name], path


def test_nonblocking_and_split_collectives(build, run_wasm, run_native, tmp_path):
    native, wasm, _ = functional(build, run_wasm, run_native, tmp_path, "nonblocking")
    assert wasm.read_bytes() == native.read_bytes()
    n, m, k = 1024, 512, 256
    assert wasm.stat().st_size == 4 * (4 * (n + m + k) + 10)
    region1 = struct.unpack(f"<{4 * n}i", wasm.read_bytes()[:16 * n])
    assert region1[:6] == (0, 1, 2, 3, 2, 3) and region1[n + 7] == 1000003 + 7


def test_sparse_offsets_past_4gib(build, run_wasm, run_native, tmp_path):
    native, wasm, stdout = functional(build, run_wasm, run_native, tmp_path, "sparse")
    end = (1 << 33) + 7 + 7
    for path in (native, wasm):
        st = path.stat()
        assert st.st_size == end, path
        assert st.st_blocks * 512 < 1 << 20, f"{path} is not sparse: {st.st_blocks} blocks"
        with open(path, "rb") as f:
            f.seek(5 << 30)
            assert f.read(5) == b"hello"
            f.seek((1 << 33) + 7)
            assert f.read(7) == b"world!!"
    assert f"size {end}" in stdout.splitlines()


# ------------------------------------------------------------------- escapes


@pytest.fixture
def world(tmp_path):
    """tmp/box is preopened at /data; tmp/secret is outside, reached by
    symlinks planted on the host inside box."""
    box, secret = tmp_path / "box", tmp_path / "secret"
    (box / "sub").mkdir(parents=True)
    secret.mkdir()
    (box / "in.txt").write_text("inside")
    (secret / "secret.txt").write_text(SECRET)
    links = {
        "sibling": "in.txt",  # inside: works
        "sub/up": "../in.txt",
        "out_rel": "../secret/secret.txt",
        "out_abs": str(secret / "secret.txt"),
        "out_dir": "../secret",
        "out_etc": "/etc",
        "out_chain": "sub/../out_rel",
        "dangling_out": "../secret/new.bin",
        "dangling_abs": str(secret / "new2.bin"),
        "proc": "/proc/self/root",
    }
    for link, target in links.items():
        os.symlink(target, box / link)
    return tmp_path


def guest(run_wasm, build, world, *args, np=2, opts=None, **kw):
    if opts is None:
        opts = ["--mapdir", f"/data:{world / 'box'}"]
    return run_wasm(build.wasm(SRC), *args, np=np, opts=opts, timeout=TIMEOUT, cwd=world / "box", **kw)


ALL = "rdonly,rdwr,create,delete"
ESCAPES = [
    ("../../etc/passwd", "rdonly"),
    ("/etc/passwd", "rdonly"),
    ("/data/../../etc/passwd", "rdonly"),
    ("/proc/self/root/etc/passwd", "rdonly"),
    ("/data/proc/etc/passwd", "rdonly"),
    ("/data/out_etc/passwd", "rdonly"),
    ("ufs:/etc/passwd", "rdonly"),
    ("/data/../secret/secret.txt", ALL),
    ("/data/sub/../../secret/secret.txt", ALL),
    ("../secret/secret.txt", ALL),  # relative: against the guest's root, not the host's cwd
    ("HOST/secret/secret.txt", ALL),
    ("ufs:HOST/secret/secret.txt", ALL),
    ("/data/out_abs", "rdonly,rdwr,create"),
    ("/data/out_rel", "rdonly,rdwr,create"),
    ("/data/out_chain", "rdonly,rdwr"),
    ("/data/out_dir/secret.txt", ALL),
    ("/data/dangling_out", "create"),
    ("/data/dangling_abs", "create"),
    ("/data/out_dir/new.bin", "create"),
    ("/data/../new.bin", "create"),
    ("/new.bin", "create"),
    # not files: the guest's root, a preopen, a directory in it
    ("/", "rdonly,rdwr"),
    ("/data", "rdonly,rdwr,delete"),
    ("/data/sub", "rdonly,create,delete"),
]


@pytest.mark.parametrize("path,ops", ESCAPES, ids=[f"{p} {o}" for p, o in ESCAPES])
def test_nothing_outside_the_preopen_is_opened_or_deleted(build, run_wasm, world, path, ops):
    path = path.replace("HOST", str(world))
    outside = snapshot(world, skip={str(world / "box")})
    inside = snapshot(world / "box")
    r = guest(run_wasm, build, world, "escape", path, ops)
    out = r.stdout + r.stderr
    assert not any(c in r.stderr for c in HOST_CRASH), out
    assert "OPENED" not in r.stdout and SECRET not in r.stdout and "root:" not in r.stdout, out
    assert r.returncode == 0, out
    got = dict(line.split(" ", 1) for line in r.stdout.splitlines())
    assert list(got) == ops.split(","), out
    assert all(cls in REFUSED for cls in got.values()), out
    assert snapshot(world, skip={str(world / "box")}) == outside
    assert snapshot(world / "box") == inside
    for name in ("new.bin", "new2.bin"):
        assert not os.path.lexists(world / "secret" / name)
    assert not os.path.lexists("/new.bin") and not os.path.lexists(world / "new.bin")


INSIDE = [("/data/sibling", "inside"), ("/data/sub/up", "inside"), ("/data/sub/../in.txt", "inside"), ("data/in.txt", "inside")]


@pytest.mark.parametrize("path,content", INSIDE, ids=[p for p, _ in INSIDE])
def test_links_and_dotdot_inside_the_preopen_open(build, run_wasm, world, path, content):
    r = guest(run_wasm, build, world, "escape", path, "rdonly", np=1)
    # the escape mode counts an open that succeeds as a leak: it prints what it read and exits 1
    assert r.returncode == 1 and f"rdonly OPENED: {content}" in r.stdout, r.stdout + r.stderr


def test_a_file_inside_the_preopen_can_be_deleted(build, run_wasm, world):
    box = world / "box"
    (box / "gone.bin").write_text("x")
    r = guest(run_wasm, build, world, "escape", "/data/gone.bin", "delete", np=1)
    assert r.stdout.strip() == "delete MPI_SUCCESS", r.stdout + r.stderr
    assert not (box / "gone.bin").exists()
    assert (world / "secret" / "secret.txt").read_text() == SECRET


# ----------------------------------------------------------------- read-only


@pytest.fixture(scope="module")
def run_help(embedder):
    return run([embedder, "run", "--help"]).stdout


RO_OPTIONS = {"mapdir-ro": lambda ro: ["--mapdir-ro", f"/ro:{ro}"], "dir-ro": lambda ro: ["--dir-ro", ro]}


@pytest.mark.parametrize("flag", RO_OPTIONS)
def test_a_read_only_preopen_is_read_but_never_written(build, run_wasm, run_help, tmp_path, flag):
    if flag not in run_help:
        pytest.skip(f"the embedder has no --{flag} yet")
    ro = tmp_path / "ro"
    ro.mkdir()
    (ro / "in.txt").write_text("read-only data")
    # (Open MPI's OMPIO creates and removes <file>.locktest.<rank> next to a
    # file it opens, even read-only: the directory's mtime may change)
    before = snapshot(tmp_path, dir_times=False)
    r = run_wasm(build.wasm(SRC), "readonly", "/ro/in.txt", "/ro/new.bin", np=2, opts=RO_OPTIONS[flag](ro), timeout=TIMEOUT)
    out = r.stdout + r.stderr
    assert not any(c in r.stderr for c in HOST_CRASH), out
    assert "SUCCEEDED" not in r.stdout and "MPI_SUCCESS" not in r.stdout, out
    assert "read: read-only data" in r.stdout.splitlines(), out
    got = dict(line.rsplit(" ", 1) for line in r.stdout.splitlines() if not line.startswith("read: "))
    assert got.get("amode") == "RDONLY", out
    assert got.get("size") == "14", out
    assert got.get("rdonly open and read") == "ok", out
    writes = ["open rdwr", "open wronly", "open rdwr|create", "open wronly|append", "open rdonly|delete_on_close",
              "open create new", "open create|excl new", "delete"]
    for what in writes:
        assert got.get(what) in READ_ONLY, f"{what}: {got.get(what)}\n{out}"
    assert got.get("delete missing") in READ_ONLY | {"MPI_ERR_NO_SUCH_FILE"}, out
    assert r.returncode == 0, out
    assert snapshot(tmp_path, dir_times=False) == before


def test_a_read_only_open_in_a_read_only_preopen_deletes_nothing(build, run_wasm, run_help, tmp_path):
    """Open MPI's OMPIO probes locking on MPI_File_open with
    open(<file>.locktest.<rank>, O_RDWR|O_CREAT) and unlink: a file of that
    name in a read-only preopen must survive a read-only open."""
    if "mapdir-ro" not in run_help:
        pytest.skip("the embedder has no --mapdir-ro yet")
    ro = tmp_path / "ro"
    ro.mkdir()
    (ro / "in.txt").write_text("read-only data")
    for rank in range(2):
        (ro / f"in.txt.locktest.{rank}").write_text(f"keep {rank}")
    before = snapshot(tmp_path, dir_times=False)
    r = run_wasm(build.wasm(SRC), "escape", "/ro/in.txt", "rdonly", np=2, opts=["--mapdir-ro", f"/ro:{ro}"], timeout=TIMEOUT)
    out = r.stdout + r.stderr
    assert "rdonly OPENED: read-only data" in r.stdout, out
    gone = sorted(set(before) - set(snapshot(tmp_path)))
    assert not gone, f"a read-only open deleted {gone} in the read-only preopen"
    assert snapshot(tmp_path, dir_times=False) == before


# --------------------------------------------------------------- bad buffers

BADBUF_CASES = ["write_at", "read_at", "write", "read", "iwrite_at", "iread_at", "iread", "write_shared", "read_shared",
                "write_at far datatype", "read_at far datatype", "self write_at_all", "self read_all", "self iread_all",
                "self read_ordered", "self write_all_begin", "self read_at_all far datatype"]


def test_buffers_past_the_guest_memory_are_refused(build, run_wasm, tmp_path):
    box = tmp_path / "box"
    box.mkdir()
    content = b"0123456789abcdef" * 256
    (box / "data.bin").write_bytes(content)
    r = run_wasm(build.wasm(SRC), "badbuf", "/data/data.bin", np=2, opts=["--mapdir", f"/data:{box}"], timeout=TIMEOUT)
    out = r.stdout + r.stderr
    assert not any(c in r.stderr for c in HOST_CRASH), out
    lines = r.stdout.splitlines()
    for case in BADBUF_CASES:
        assert f"{case} MPI_ERR_BUFFER" in lines, f"{case}:\n{out}"
    assert "read after: 0123" in lines, out
    ok(r, "wasm")
    assert (box / "data.bin").read_bytes() == content
    assert os.listdir(box) == ["data.bin"]


def test_a_bad_buffer_at_one_rank_of_a_file_collective_ends_the_job(build, run_wasm, tmp_path):
    """The other ranks are already in the host's collective: the job ends,
    with a message, instead of hanging; the bad rank's bytes never reach
    the file (rank r writes the r-th KiB)."""
    box = tmp_path / "box"
    box.mkdir()
    content = bytes(range(256)) * 16
    (box / "data.bin").write_bytes(content)
    r = run_wasm(build.wasm(SRC), "badbuf-collective", "/data/data.bin", np=2, opts=["--mapdir", f"/data:{box}"],
                 timeout=TIMEOUT)
    out = r.stdout + r.stderr
    assert not any(c in r.stderr for c in HOST_CRASH), out
    assert r.returncode != 0, out
    assert "rank 1 write_at_all" not in r.stdout, out
    assert "MPI_File_write_at_all: MPI_ERR_BUFFER" in r.stderr, out
    data = (box / "data.bin").read_bytes()
    assert len(data) == len(content) and data[1024:] == content[1024:]


# ----------------------------------------------------------- other hostility


def test_register_datarep_fails_cleanly(build, run_wasm, run_native, tmp_path):
    """Guest conversion callbacks are not handed to the host as host code:
    MPI_Register_datarep returns an error class, and a view with that data
    representation is refused."""
    box = tmp_path / "box"
    box.mkdir()
    native = run_native(build.native(SRC), "datarep", box / "native.bin", np=2, timeout=TIMEOUT)
    assert native.returncode == 0, native.stdout + native.stderr
    r = run_wasm(build.wasm(SRC), "datarep", "/data/wasm.bin", np=2, opts=["--mapdir", f"/data:{box}"], timeout=TIMEOUT)
    out = r.stdout + r.stderr
    assert not any(c in r.stderr for c in HOST_CRASH), out
    assert r.returncode == 0, out
    got = dict(line.rsplit(" ", 1) for line in r.stdout.splitlines())
    assert got["register_datarep"] not in ("MPI_SUCCESS", "(ranks disagree)"), out
    if got["register_datarep null conversions"] != "MPI_SUCCESS":
        assert got["set_view with the registered datarep"] != "MPI_SUCCESS", out


def test_info_hints_naming_host_files_touch_nothing(build, run_wasm, tmp_path):
    """ROMIO's old shared_fp_fname hint named the shared file pointer's file
    (opened, written, deleted on close): a host file named in a hint must
    stay as it is."""
    box, outside = tmp_path / "box", tmp_path / "outside"
    box.mkdir()
    outside.mkdir()
    (outside / "victim").write_text("precious")
    before = snapshot(outside)
    r = run_wasm(build.wasm(SRC), "hint", "/data/h.bin", str(outside / "victim"), np=2,
                 opts=["--mapdir", f"/data:{box}"], timeout=TIMEOUT)
    out = r.stdout + r.stderr
    assert not any(c in r.stderr for c in HOST_CRASH), out
    assert r.returncode == 0, out
    assert snapshot(outside) == before


def test_error_strings_and_hints_do_not_name_host_paths(build, run_wasm, tmp_path):
    """The guest sees /data, never the host directory behind it: not in
    MPI_Error_string of a file error (MPICH's ROMIO puts the file name in
    its error stacks) nor in MPI_File_get_info."""
    box = tmp_path / "box"
    box.mkdir()
    r = run_wasm(build.wasm(SRC), "leak", "/data/leak.bin", np=2, opts=["--mapdir", f"/data:{box}"], timeout=TIMEOUT)
    out = r.stdout + r.stderr
    assert not any(c in r.stderr for c in HOST_CRASH), out
    assert r.returncode == 0, out
    assert "open missing MPI_ERR_NO_SUCH_FILE" in r.stdout, out
    assert "open MPI_SUCCESS" in r.stdout, out
    assert str(tmp_path) not in r.stdout, r.stdout
