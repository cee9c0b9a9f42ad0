"""The compile cache is a code-loading path: only entries this user's
embedder wrote for this very module run; caches others can write are not
used; a root-owned site cache is read, never written; guests cannot reach
the cache."""
import os
import re
import shutil
import struct

import pytest

from conftest import PROGRAMS, run

NOBODY = 65534
HEADER = 8 + 4 + 32 + 8 + 32 + 32  # magic, format, key, length, checksum, MAC


def outcomes(stderr):
    return re.findall(r"timings(?: rank \d+)?: load [\d.]+ s \(([^,]+(?:, cache not used)?)", stderr)


@pytest.fixture
def exit_code(build):
    return build.wasm(PROGRAMS / "exit_code.c")


def embed(embedder, cache, *args, trusted=None):
    extra = ["--trusted-cache", trusted] if trusted else []
    return run([embedder, "--cache-dir", cache, *extra, "--timings", *args])


def entries(cache):
    return sorted(cache.glob("*.bin"))


def test_an_entry_swapped_for_another_modules_is_refused(build, embedder, tmp_path, exit_code):
    cache = tmp_path / "c"
    assert run([embedder, "--cache-dir", cache, "compile", exit_code]).returncode == 0
    (victim,) = entries(cache)
    other = build.wasm(PROGRAMS / "files.c")
    assert run([embedder, "--cache-dir", cache, "compile", other]).returncode == 0
    (planted,) = set(entries(cache)) - {victim}
    shutil.copyfile(planted, victim)
    r = embed(embedder, cache, exit_code, "5")
    # files.c would exit 2 on these arguments
    assert r.returncode == 5, r.stdout + r.stderr
    assert "discarding cache entry" in r.stderr and "key mismatch" in r.stderr
    assert outcomes(r.stderr) == ["compiled and cached"]
    assert embed(embedder, cache, exit_code, "5").returncode == 5


def test_edited_code_with_a_recomputed_checksum_is_refused(embedder, tmp_path, exit_code):
    blake3 = pytest.importorskip("blake3")
    cache = tmp_path / "c"
    assert run([embedder, "--cache-dir", cache, "compile", exit_code]).returncode == 0
    (entry,) = entries(cache)
    data = bytearray(entry.read_bytes())
    key = bytes(data[12:44])
    data[len(data) - 64] ^= 0xFF  # machine code or its metadata
    payload = bytes(data[HEADER:])
    data[52:84] = blake3.blake3(key + payload).digest()
    assert struct.unpack("<Q", data[44:52])[0] == len(payload)
    entry.write_bytes(bytes(data))
    r = embed(embedder, cache, exit_code, "5")
    assert r.returncode == 5, r.stdout + r.stderr
    assert "MAC mismatch" in r.stderr and outcomes(r.stderr) == ["compiled and cached"]


@pytest.mark.parametrize("how", ["group-writable", "world-writable", "sticky world-writable", "owned by nobody",
                                 "parent world-writable", "entry owned by nobody"])
def test_a_cache_others_can_write_is_not_used(embedder, tmp_path, exit_code, how):
    cache = tmp_path / "parent" / "c"
    assert run([embedder, "--cache-dir", cache, "compile", exit_code]).returncode == 0
    (entry,) = entries(cache)
    before = entry.read_bytes()
    if how == "owned by nobody" or how == "entry owned by nobody":
        if os.geteuid() != 0:
            pytest.skip("needs root to give the cache to another user")
        os.chown(cache if how == "owned by nobody" else entry, NOBODY, NOBODY)
    else:
        target = tmp_path / "parent" if how.startswith("parent") else cache
        os.chmod(target, {"group-writable": 0o770, "world-writable": 0o777, "sticky world-writable": 0o1777,
                          "parent world-writable": 0o777}[how])
    r = embed(embedder, cache, exit_code, "5")
    assert r.returncode == 5, r.stdout + r.stderr
    if how == "entry owned by nobody":
        assert "discarding cache entry" in r.stderr and "owned by uid 65534" in r.stderr
        assert outcomes(r.stderr) == ["compiled and cached"]
    else:
        assert "not using the compile cache" in r.stderr and "compiling in memory" in r.stderr, r.stderr
        assert outcomes(r.stderr) == ["compiled, cache not used"]
        assert entries(cache) == [entry] and entry.read_bytes() == before


@pytest.fixture
def site_cache(embedder, tmp_path, exit_code):
    """A site cache filled by root, readable by all."""
    if os.geteuid() != 0:
        pytest.skip("a trusted cache is owned by root")
    site = tmp_path / "site"
    assert run([embedder, "--cache-dir", site, "compile", exit_code]).returncode == 0
    os.chmod(site, 0o755)
    return site


def test_a_trusted_cache_is_read_never_written(embedder, tmp_path, exit_code, site_cache):
    user = tmp_path / "user"
    before = {p.name: p.read_bytes() for p in site_cache.iterdir()}
    r = embed(embedder, user, exit_code, "5", trusted=site_cache)
    assert r.returncode == 5, r.stderr
    assert outcomes(r.stderr) == ["cache hit (trusted cache)"]
    assert entries(user) == []
    assert {p.name: p.read_bytes() for p in site_cache.iterdir()} == before


def test_a_trusted_cache_not_owned_by_root_is_refused(embedder, tmp_path, exit_code, site_cache):
    for p in [site_cache, *site_cache.iterdir()]:
        os.chown(p, NOBODY, NOBODY)
    user = tmp_path / "user"
    r = embed(embedder, user, exit_code, "5", trusted=site_cache)
    assert r.returncode == 5, r.stderr
    assert "not using the trusted cache" in r.stderr and "owned by uid 65534" in r.stderr
    assert outcomes(r.stderr) == ["compiled and cached"] and len(entries(user)) == 1


@pytest.mark.parametrize("preopen", ["home", "cache", "mapdir"])
def test_a_guest_cannot_reach_the_cache_through_a_preopen(build, embedder, tmp_path, preopen):
    home = tmp_path / "home"
    cache = home / ".cache" / "mpi-wasm-embedder"
    files = build.wasm(PROGRAMS / "files.c")
    assert run([embedder, "--cache-dir", cache, "compile", files]).returncode == 0
    (entry,) = entries(cache)
    opt = {"home": ["-d", home], "cache": ["-d", cache], "mapdir": ["--mapdir", f"/h:{home}"]}[preopen]
    guest_path = {"home": f"/home/.cache/mpi-wasm-embedder/{entry.name}",
                  "cache": f"/mpi-wasm-embedder/{entry.name}",
                  "mapdir": f"/h/.cache/mpi-wasm-embedder/{entry.name}"}[preopen]
    before = entry.read_bytes()
    for env in [{}, {"XDG_CACHE_HOME": str(home / ".cache")}]:
        # the cache named on the command line, or the default one under --no-cache
        cache_opts = ["--cache-dir", cache] if not env else ["--no-cache"]
        r = run([embedder, *cache_opts, *opt, files, "write", guest_path, "planted"], env=env)
        assert r.returncode != 0
        assert "contains the compile cache" in r.stderr, r.stdout + r.stderr
        assert entry.read_bytes() == before
    # a preopen beside the cache is fine
    (home / "data").mkdir()
    r = run([embedder, "--cache-dir", cache, "-d", home / "data", files, "write", "/data/x", "ok"])
    assert r.returncode == 0, r.stdout + r.stderr
