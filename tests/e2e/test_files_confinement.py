"""Files, tried as a hostile guest would: nothing outside the preopens is
reachable for any operation, links inside a preopen work, and no operation
hangs. Every case checks the host side afterwards."""
import os
import uuid

import pytest

from conftest import PROGRAMS, snapshot

SECRET = "TOP SECRET"
TIMEOUT = 30  # a deadlocked WASI call fails the test instead of hanging it


@pytest.fixture
def world(tmp_path):
    """tmp/box and tmp/box2 are preopened; tmp/secret is outside, reached by
    symlinks planted on the host inside box."""
    box, box2, secret = tmp_path / "box", tmp_path / "box2", tmp_path / "secret"
    for d in (box / "sub", box2, secret / "sub"):
        d.mkdir(parents=True)
    (box / "in.txt").write_text("inside")
    (box / "sub" / "f.txt").write_text("in sub")
    (box2 / "b.txt").write_text("second preopen")
    (secret / "secret.txt").write_text(SECRET)
    os.symlink("secret.txt", secret / "link")
    links = {
        # inside the preopen: must work
        "sibling": "in.txt",
        "sub/up": "../in.txt",
        "dlink": "sub",
        "chain1": "chain2",
        "chain2": "sibling",
        # leading outside: must be refused
        "out_rel": "../secret/secret.txt",
        "out_abs": str(secret / "secret.txt"),
        "out_chain": "out_chain2",
        "out_chain2": "sub/../../secret/secret.txt",
        "out_dir": "../secret",
        "out_dir_abs": str(secret),
        "out_etc": "/etc",
        "proc": "/proc/self/root",
        "cwd": "/proc/self/cwd",
        "dangling_out": "../secret/new.txt",
        "sub/deep_out": "../../secret",
    }
    for link, target in links.items():
        os.symlink(target, box / link)
    return tmp_path


def guest(run_wasm, build, world, *args, opts=None, **kw):
    if opts is None:
        opts = ["-d", world / "box", "-d", world / "box2"]
    return run_wasm(build.wasm(PROGRAMS / "files.c"), *args, opts=opts, timeout=TIMEOUT, **kw)


INSIDE = [
    (("read", "/box/sibling"), "read 6 bytes: inside"),
    (("read", "/box/sub/up"), "read 6 bytes: inside"),
    (("read", "/box/dlink/f.txt"), "read 6 bytes: in sub"),
    (("read", "/box/chain1"), "read 6 bytes: inside"),
    (("read", "/box/sub/../in.txt"), "read 6 bytes: inside"),
    (("stat", "/box/sibling"), "ok size 6"),
    (("list", "/box/dlink"), "entry f.txt"),
    (("list", "/box"), "entry sibling"),
    (("read", "/box2/b.txt"), "second preopen"),
]


@pytest.mark.parametrize("args,expected", INSIDE, ids=[" ".join(a) for a, _ in INSIDE])
def test_links_and_paths_inside_a_preopen_work(build, run_wasm, world, args, expected):
    r = guest(run_wasm, build, world, *args)
    assert r.returncode == 0, r.stdout + r.stderr
    assert expected in r.stdout


def test_writes_inside_a_preopen_reach_the_host(build, run_wasm, world):
    box = world / "box"
    assert guest(run_wasm, build, world, "write", "/box/sibling", "changed").returncode == 0
    assert (box / "in.txt").read_text() == "changed" and os.path.islink(box / "sibling")
    for args in [("create", "/box/new.txt"), ("mkdir", "/box/d"), ("rename", "/box/new.txt", "/box/d/moved.txt")]:
        r = guest(run_wasm, build, world, *args)
        assert r.returncode == 0, r.stdout + r.stderr
    assert (box / "d" / "moved.txt").read_text() == "guest"
    for args in [("unlink", "/box/d/moved.txt"), ("rmdir", "/box/d"), ("unlink", "/box/sibling")]:
        assert guest(run_wasm, build, world, *args).returncode == 0
    assert not (box / "d").exists() and not os.path.lexists(box / "sibling") and (box / "in.txt").exists()


def test_the_root_lists_only_the_preopens(build, run_wasm, world):
    for path in ["/box/..", "/box/../.."]:
        r = guest(run_wasm, build, world, "list", path)
        entries = {line.split()[1] for line in r.stdout.splitlines() if line.startswith("entry ")}
        assert r.returncode == 0 and entries <= {"/box", "/box2", "box", "box2", ".", ".."}, r.stdout


# Each is refused and leaves the host untouched.
ESCAPES = [
    # symlinks planted on the host inside the preopen
    ("read", "/box/out_rel"),
    ("read", "/box/out_abs"),
    ("read", "/box/out_chain"),
    ("read", "/box/out_dir/secret.txt"),
    ("read", "/box/out_dir_abs/secret.txt"),
    ("read", "/box/sub/deep_out/secret.txt"),
    ("read", "/box/out_etc/passwd"),
    ("read", "/box/proc/etc/passwd"),
    ("read", "/box/cwd/secret/secret.txt"),
    ("write", "/box/out_rel", "overwritten"),
    ("append", "/box/out_abs"),
    ("create", "/box/dangling_out"),
    ("create", "/box/out_dir/new.txt"),
    ("truncate", "/box/out_rel"),
    ("utime", "/box/out_rel"),
    ("utime", "/box/out_dir/secret.txt"),
    ("stat", "/box/out_rel"),
    ("stat", "/box/out_dir/secret.txt"),
    ("readlink", "/box/out_dir/link"),
    ("list", "/box/out_dir"),
    ("list", "/box/out_etc"),
    ("mkdir", "/box/out_dir/newdir"),
    ("rmdir", "/box/out_dir/sub"),
    ("unlink", "/box/out_dir/secret.txt"),
    ("unlink", "/box/out_dir/link"),
    # hard links and renames out of the preopen, and across preopens
    ("link", "/box/out_rel", "/box/hard"),
    ("link", "/box/out_dir/secret.txt", "/box/hard"),
    ("link", "/box/in.txt", "/box/out_dir/hard"),
    ("rename", "/box/in.txt", "/box/out_dir/moved"),
    ("rename", "/box/in.txt", "/box/../moved"),
    ("rename", "/box/out_dir/secret.txt", "/box/stolen"),
    ("rename", "/box/in.txt", "/box2/moved"),
    ("rename", "/box2/b.txt", "/box/moved"),
    # .. and absolute paths
    ("read", "/box/../secret/secret.txt"),
    ("read", "/box/../../etc/passwd"),
    ("read", "../secret/secret.txt"),
    ("read", "HOST/secret/secret.txt"),
    ("create", "/box/../new.txt"),
    ("mkdir", "/box/../newdir"),
    ("unlink", "/box/../secret/secret.txt"),
    ("rmdir", "/box/../secret/sub"),
    ("stat", "/box/../secret/secret.txt"),
    ("utime", "/box/../secret/secret.txt"),
    # /proc in any spelling
    ("read", "/proc/self/root/etc/passwd"),
    ("read", "/proc/self/cwd/secret/secret.txt"),
    ("read", "//proc/self/environ"),
    ("read", "/./proc/self/environ"),
    ("read", "/box/../proc/self/environ"),
    ("read", "/proc/1/root/etc/passwd"),
    ("list", "/proc"),
    ("read", "/etc/passwd"),
    # absolute paths handed to WASI directly, relative to a preopen's descriptor
    ("rawread", "/etc/passwd"),
    ("rawread", "HOST/secret/secret.txt"),
    ("rawread", "/proc/self/environ"),
    ("rawread", "../secret/secret.txt"),
    ("rawread", "/preopen-0/../../secret/secret.txt"),
]


@pytest.mark.parametrize("args", ESCAPES, ids=[" ".join(a) for a in ESCAPES])
def test_nothing_outside_the_preopens_is_reachable(build, run_wasm, world, args):
    args = [a.replace("HOST", str(world)) for a in args]
    outside = snapshot(world, skip={str(world / "box"), str(world / "box2")})
    links = {p: v for p, v in snapshot(world / "box").items() if v[0][0] == "link"}
    r = guest(run_wasm, build, world, *args, cwd=world / "box")
    assert r.returncode == 1, r.stdout + r.stderr
    assert r.stdout.startswith("cannot "), r.stdout
    assert SECRET not in r.stdout and "root:" not in r.stdout
    assert "panicked" not in r.stderr
    assert snapshot(world, skip={str(world / "box"), str(world / "box2")}) == outside
    assert {p: v for p, v in snapshot(world / "box").items() if v[0][0] == "link"} == links
    assert (world / "box" / "in.txt").read_text() == "inside"
    assert (world / "box2" / "b.txt").read_text() == "second preopen"


@pytest.mark.parametrize(
    "opts",
    [[], ["-d", "BOX"], ["--mapdir", "/deep/box:BOX"]],
    ids=["no preopen", "dir", "mapdir"],
)
def test_the_guest_root_is_virtual(build, run_wasm, world, opts):
    """Nothing can be created at, or reached through, the guest's root."""
    opts = [o.replace("BOX", str(world / "box")) for o in opts]
    name = f"embedder-confinement-{uuid.uuid4().hex}"
    attempts = [
        ("create", f"/{name}"),
        ("create", f"/box/../{name}"),
        ("create", f"/deep/box/../../{name}"),
        ("create", name),
        ("mkdir", f"/{name}"),
        ("write", f"/tmp/{name}", "x"),
        ("symlink", "/etc/passwd", f"/{name}"),
    ]
    try:
        for args in attempts:
            r = guest(run_wasm, build, world, *args, opts=opts)
            assert r.returncode == 1, f"{args}: {r.stdout}{r.stderr}"
            for host in [f"/{name}", f"/tmp/{name}", str(world / name), f"{os.getcwd()}/{name}"]:
                assert not os.path.lexists(host), f"{args} created {host} on the host"
    finally:
        for host in [f"/{name}", f"/tmp/{name}"]:
            if os.path.isdir(host) and not os.path.islink(host):
                os.rmdir(host)
            elif os.path.lexists(host):
                os.unlink(host)
