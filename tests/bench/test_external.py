"""benchmarks/external: our CBLAS, fetching and building HPCC 1.5.0 and
NetPIPE 3.7.2 natively and to wasm, smoke runs of both on 2 ranks natively
and under the embedder (HPCC's own validation), the parsers on captured
output and the runner/plot integration.

Captured data: tests/bench/data/external_quick/ (capture_external.sh: one
`run.py --external only --quick --external-reps 2`), and
tests/bench/data/external_aborted/ (a wasm HPCC run that the embedder ended
because it did not provide MPI_Op_create yet).

The fetch+build tests need the Debian archive apt uses (or the tarballs cached in
fetch.DOWNLOADS, outside the clone); without them they skip, saying so, and
under CI=true they fail. MPI is the one under test (EMBEDDER_TEST_MPI). A wasm
run that the embedder ends for lack of an MPI function fails."""
import csv
import io
import json
import math
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DATA = Path(__file__).resolve().parent / "data"
QUICK = DATA / "external_quick"
ABORTED = DATA / "external_aborted"
EXTERNAL = ROOT / "benchmarks" / "external"
sys.path.insert(0, str(ROOT / "benchmarks"))

import parse  # noqa: E402
import run as runner  # noqa: E402
from host_mpi import MPI, MPICC, MPIRUN, MPIRUN_FLAGS
from plot_loader import load_plot

external = runner.external  # benchmarks/external/build.py
fetch = sys.modules["fetch"]  # benchmarks/external/fetch.py, imported by build.py

EMBEDDER = ROOT / "target" / "release" / "embedder"
WASM_MPICC = ROOT / "toolchain" / "bin" / "wasm-mpicc"
CI = os.environ.get("CI", "").lower() == "true"
CC = shutil.which("cc") or shutil.which("gcc")
HAVE_WASM = EMBEDDER.exists() and WASM_MPICC.exists()
TIMEOUT = 300
METRIC_KEYS = [m[0] for m in parse.HPCC_METRICS]
HPCC_SECTIONS = ["MPIRandomAccess", "StarRandomAccess", "SingleRandomAccess", "MPIRandomAccess_LCG",
                 "StarRandomAccess_LCG", "SingleRandomAccess_LCG", "PTRANS", "StarDGEMM", "SingleDGEMM",
                 "StarSTREAM", "SingleSTREAM", "MPIFFT", "StarFFT", "SingleFFT", "LatencyBandwidth", "HPL",
                 "Summary"]
# sections whose output carries a verification marker (parse_hpcc checks them)
CHECKED = set(HPCC_SECTIONS) - {"MPIFFT", "LatencyBandwidth", "Summary"}


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def captured_runs():
    return read_csv(QUICK / "runs.csv")


def captured(program, kind, rep=None):
    rows = [r for r in captured_runs() if r["phase"] == "external" and r["program"] == program
            and r["kind"] == kind and (rep is None or r["rep"] == str(rep))]
    assert rows, (program, kind, rep)
    return rows


def output_of(row):
    return runner.output_file(QUICK, row, row["program"])


def assert_supported(stderr):
    """A wasm run the embedder ended for lack of an MPI function is a
    regression (both codes ran completely before), not an expected failure."""
    missing = parse.parse_unsupported(stderr)
    assert not missing, f"the embedder no longer provides {', '.join(missing)}"


def test_a_dropped_mpi_function_fails_the_run():
    with pytest.raises(AssertionError, match="MPI_Op_create"):
        assert_supported((ABORTED / "stderr").read_text())
    assert_supported("")


def missing_prerequisite(why):
    """Skip locally; in CI a missing prerequisite is a failure."""
    (pytest.fail if CI else pytest.skip)(why)


# --------------------------------------------------------------------------
# CBLAS (benchmarks/external/cblas): the same self-check natively and as wasm


@pytest.mark.skipif(not CC, reason="no C compiler (cc/gcc)")
def test_cblas_check_native(tmp_path):
    exe = tmp_path / "check"
    subprocess.run([CC, "-std=c99", "-O3", "-Wall", "-Werror", "-o", str(exe), "check.c", "cblas.c", "-lm"],
                   cwd=EXTERNAL / "cblas", check=True, timeout=TIMEOUT)
    p = subprocess.run([str(exe)], capture_output=True, text=True, timeout=TIMEOUT)
    assert p.returncode == 0 and "cblas check: PASSED (0 failures)" in p.stdout, p.stdout


@pytest.mark.skipif(not HAVE_WASM, reason="embedder or wasm-mpicc missing")
def test_cblas_check_wasm(tmp_path):
    mod = tmp_path / "check.wasm"
    subprocess.run([str(WASM_MPICC), "-O3", "-Wall", "-Werror", "-o", str(mod), "check.c", "cblas.c", "-lm"],
                   cwd=EXTERNAL / "cblas", check=True, timeout=TIMEOUT)
    p = subprocess.run([str(EMBEDDER), "--cache-dir", str(tmp_path / "cache"), str(mod)], capture_output=True,
                       text=True, timeout=TIMEOUT)
    assert p.returncode == 0 and "cblas check: PASSED (0 failures)" in p.stdout, p.stdout + p.stderr


# --------------------------------------------------------------------------
# fetch.py, offline


@pytest.fixture()
def fake_source(monkeypatch, tmp_path):
    """A SOURCES entry for a small local file, and urlopen serving `served`."""
    content = b"not really a tarball\n"
    import hashlib
    monkeypatch.setitem(fetch.SOURCES, "fake", {"debian_source": "fake 1.0-1", "pool": "pool/main/f/fake/fake.tgz",
                                               "sha256": hashlib.sha256(content).hexdigest(),
                                               "size": len(content), "topdir": "fake"})
    served = {"data": content, "calls": 0}
    monkeypatch.setenv("DEBIAN_MIRROR", "https://configured.invalid/repo")

    def urlopen(url, timeout=None):
        served["calls"] += 1
        if served["data"] is None:
            raise fetch.urllib.error.URLError("network is unreachable")
        return io.BytesIO(served["data"])

    monkeypatch.setattr(fetch.urllib.request, "urlopen", urlopen)
    return tmp_path / "dl", content, served


def test_fetch_downloads_verifies_and_reuses(fake_source):
    dest, content, served = fake_source
    path = fetch.fetch("fake", dest, mirror="https://configured.invalid/repo", log=lambda m: None)
    assert path == dest / "fake.tgz" and path.read_bytes() == content and served["calls"] == 1
    served["data"] = None  # offline now: the verified file is used as is
    assert fetch.fetch("fake", dest, log=lambda m: None) == path and served["calls"] == 1
    assert [p.name for p in dest.iterdir()] == ["fake.tgz"]


def test_fetch_rejects_a_wrong_download(fake_source):
    dest, content, served = fake_source
    served["data"] = content.replace(b"tarball", b"TARBALL")  # same size, other hash
    with pytest.raises(fetch.FetchError, match="SHA-256"):
        fetch.fetch("fake", dest, log=lambda m: None)
    served["data"] = content + b"x"
    with pytest.raises(fetch.FetchError, match="bytes, expected"):
        fetch.fetch("fake", dest, log=lambda m: None)
    assert list(dest.iterdir()) == []  # nothing half-downloaded or wrong is left


def test_fetch_unreachable_mirror_and_bad_cached_file(fake_source):
    dest, content, served = fake_source
    dest.mkdir()
    (dest / "fake.tgz").write_bytes(b"corrupt")
    served["data"] = None
    with pytest.raises(fetch.MirrorUnreachable):
        fetch.fetch("fake", dest, log=lambda m: None)
    assert not (dest / "fake.tgz").exists()


def test_pinned_sources_are_bookworm_orig_tarballs():
    # mpich: ROMIO's tests (romio.py); hdf5: hdf5.py; fftw3, hypre, p4est: benchmarks/realcodes
    assert set(fetch.SOURCES) == {"hpcc", "netpipe", "mpich", "hdf5", "fftw3", "hypre", "p4est"}
    for name, src in fetch.SOURCES.items():
        assert re.fullmatch(r"[0-9a-f]{64}", src["sha256"]) and src["size"] > 100000
        assert src["pool"].startswith(f"pool/main/{name[0]}/{name}/") and src["topdir"]
        assert re.search(r"\.orig\.tar\.(gz|xz)$", src["pool"])
    assert fetch.url("netpipe", "http://src.invalid/repo/") == "http://src.invalid/repo/pool/main/n/netpipe/netpipe_3.7.2.orig.tar.gz"


def test_mirror_comes_from_the_apt_sources(tmp_path, monkeypatch):
    """deb822 and one-line sources; the release's own suite with `main`, not
    -security or a third-party repository; disabled files and entries skipped;
    DEBIAN_MIRROR wins; none configured is MirrorUnreachable."""
    apt = tmp_path / "apt"
    (apt / "sources.list.d").mkdir(parents=True)
    (apt / "sources.list.d" / "vendor.sources").write_text(
        "Types: deb\nURIs: http://vendor.invalid/apt\nSuites: nodistro\nComponents: main\n")
    (apt / "sources.list.d" / "old.list.disabled").write_text("deb http://disabled.invalid/repo bookworm main\n")
    (apt / "sources.list.d" / "debian.sources").write_text(
        "Types: deb\nURIs: http://off.invalid/repo\nSuites: bookworm\nComponents: main\nEnabled: no\n\n"
        "Types: deb\n# a comment\nURIs: http://security.invalid/repo-security\nSuites: bookworm-security\nComponents: main\n\n"
        "Types: deb\nURIs: http://primary.invalid/repo\nSuites: bookworm bookworm-updates\nComponents: main contrib\n")
    assert fetch.apt_mirror(apt, "bookworm") == "http://primary.invalid/repo"
    assert fetch.apt_mirror(apt, "trixie") is None
    (apt / "sources.list").write_text("# one-line form\ndeb [arch=amd64] http://line.invalid/repo bookworm main\n")
    assert fetch.apt_mirror(apt, "bookworm") == "http://line.invalid/repo"
    monkeypatch.setattr(fetch, "APT_DIR", tmp_path / "none")
    monkeypatch.setattr(fetch, "apt_mirror", lambda: None)
    monkeypatch.delenv("DEBIAN_MIRROR", raising=False)
    with pytest.raises(fetch.MirrorUnreachable, match="DEBIAN_MIRROR"):
        fetch.url("hpcc")
    monkeypatch.setenv("DEBIAN_MIRROR", "http://env.invalid/repo")
    assert fetch.url("hpcc").startswith("http://env.invalid/repo/pool/main/h/hpcc/")


# --------------------------------------------------------------------------
# HPCC input


def test_process_grid():
    assert [external.process_grid(n) for n in (1, 2, 3, 4, 6, 8, 9, 12)] == \
        [(1, 1), (1, 2), (1, 3), (2, 2), (2, 3), (2, 4), (3, 3), (3, 4)]


def test_hpccinf_is_hpccs_template_with_our_sizes(built):
    """hpccinf() differs from HPCC's own _hpccinf.txt only in N, NB, P, Q."""
    template = (external.BUILD / "wasm" / "src-hpcc" / "hpcc-1.5.0" / "_hpccinf.txt").read_text().splitlines()
    ours = external.hpccinf(3000, 100, 12).splitlines()
    assert len(ours) == len(template)
    changed = {i: line.split()[0] for i, (line, t) in enumerate(zip(ours, template)) if line != t}
    assert changed == {5: "3000", 7: "100", 10: "3", 11: "4"}
    for i in changed:  # the comment after the value is HPCC's
        assert ours[i].split(None, 1)[1] == template[i].split(None, 1)[1]


# --------------------------------------------------------------------------
# Fetch + build (needs the Debian mirror or cached tarballs)


@pytest.fixture(scope="module")
def built():
    if not (MPICC and MPIRUN):
        missing_prerequisite(f"mpicc.{MPI}/mpirun.{MPI} not installed")
    if not HAVE_WASM:
        missing_prerequisite("embedder or wasm-mpicc missing")
    try:
        return external.build(MPICC, jobs=2, log=lambda m: None)
    except fetch.MirrorUnreachable as e:
        missing_prerequisite(f"Debian mirror unreachable and no tarballs in {fetch.DOWNLOADS}, "
                             f"cannot fetch HPCC/NetPIPE: {e}")


def test_build_outputs(built):
    for name in external.PROGRAMS:
        assert built[name].exists() and built[name].stat().st_size > 10000, name
    for name in ("hpcc", "netpipe"):
        assert built[name].read_bytes()[:4] == b"\x7fELF"
        assert built[name + ".wasm"].read_bytes()[:4] == b"\0asm"
    # the sources were not touched: every unpacked file is identical to the tarball's, except what make
    # adds and our generated hpl/Make.<arch>
    import tarfile
    with tarfile.open(fetch.DOWNLOADS / "hpcc_1.5.0.orig.tar.gz") as t:
        for m in t.getmembers():
            if m.isfile():
                unpacked = external.BUILD / "wasm" / "src-hpcc" / m.name
                assert unpacked.read_bytes() == t.extractfile(m).read(), m.name
    assert (external.BUILD / "wasm" / "src-hpcc" / "hpcc-1.5.0" / "hpl" / "Make.wasm").exists()


def test_wasm_imports(built):
    """Every import of the wasm modules is WASI or MPI (they instantiate);
    NetPIPE's gethostname() comes from the porting layer's host facts."""
    for name in ("hpcc.wasm", "netpipe.wasm"):
        p = subprocess.run([str(EMBEDDER), "inspect", str(built[name])], capture_output=True, text=True,
                           timeout=TIMEOUT)
        assert p.returncode == 0, p.stderr
        assert "MISSING" not in p.stdout and "NOT SUPPORTED" not in p.stdout, p.stdout
    p = subprocess.run([str(EMBEDDER), "inspect", str(built["netpipe.wasm"])], capture_output=True, text=True)
    assert "wasm_mpi_host.host_name\tprovided (host facts)" in p.stdout


def mpirun(np, cmd, cwd):
    return subprocess.run([MPIRUN, *MPIRUN_FLAGS, "-np", str(np), *map(str, cmd)],
                          cwd=cwd, capture_output=True, text=True, timeout=TIMEOUT)


def wasm_cmd(built, name, work, tmp_path):
    return [EMBEDDER, "--cache-dir", tmp_path / "cache", "--mapdir", f"/:{work}", built[name]]


@pytest.mark.parametrize("kind", ["native", "wasm"])
def test_hpcc_smoke(built, kind, tmp_path):
    """HPCC on 2 ranks with N=200: HPCC's own validation passes (Success=1,
    HPL residual check PASSED, every verified test PASSED)."""
    work = tmp_path / "work"
    work.mkdir()
    (work / "hpccinf.txt").write_text(external.hpccinf(200, 40, 2))
    cmd = [built["hpcc"]] if kind == "native" else wasm_cmd(built, "hpcc.wasm", work, tmp_path)
    p = mpirun(2, cmd, work)
    if kind == "wasm":
        assert_supported(p.stderr)
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-3000:]
    res = parse.parse_hpcc((work / "hpccoutf.txt").read_text())
    assert res["success"] is True and res["complete"]
    assert res["hpl"]["check"] == "PASSED" and res["hpl"]["residual"] < 16.0
    assert (res["hpl"]["n"], res["hpl"]["nb"], res["hpl"]["p"], res["hpl"]["q"]) == (200, 40, 1, 2)
    assert res["sections"] == HPCC_SECTIONS and res["finished"] == HPCC_SECTIONS
    assert res["checks"] == {s: "PASSED" for s in CHECKED}
    assert [m["key"] for m in res["metrics"]] == METRIC_KEYS
    assert res["summary"]["CommWorldProcs"] == 2
    assert res["summary"]["sizeof_long"] == (8 if kind == "native" else 4)  # really wasm32 (ILP32)
    assert res["summary"]["MPIRandomAccess_Errors"] == 0 and res["summary"]["PTRANS_residual"] == 0


def test_fft_kernel_agrees_natively_and_as_wasm(built, tmp_path):
    """benchmarks/external/fft_kernel.c (FFTE's kernel alone, README) on the
    unpacked HPCC sources: the native and the wasm build print the same
    checksum for a transform with radix-8, 4, 3 and 5 passes (wasm has no
    fused multiply-add and neither build contracts, so the arithmetic is
    the same), and the transform's first value is the sum of the input;
    sizes FFTE cannot factor, too large or malformed, and bad repetition
    counts are usage errors."""
    fft = external.BUILD / "wasm" / "src-hpcc" / external.SOURCES["hpcc"]["topdir"] / "FFT"
    src = [EXTERNAL / "fft_kernel.c", fft / "fft235.c"]
    native, wasm = tmp_path / "fftk", tmp_path / "fftk.wasm"
    subprocess.run([CC, "-O3", f"-I{fft}", *map(str, src), "-lm", "-o", native], check=True)
    subprocess.run([WASM_MPICC, "-O3", f"-I{fft}", *map(str, src), "-lm", "-o", wasm], check=True)
    n = 7680
    dc = (sum(i * 7 % 13 for i in range(n)) * 0.1, sum(i * 5 % 11 for i in range(n)) * 0.1)
    out = {}
    for kind, cmd in (("native", [native]), ("wasm", [EMBEDDER, "--cache-dir", tmp_path / "cache", wasm])):
        p = subprocess.run([*cmd, str(n), "3"], capture_output=True, text=True, timeout=TIMEOUT)
        assert p.returncode == 0, p.stderr
        m = re.fullmatch(rf"fft235 points {n}: [\d.]+ ns per transform \([\d.]+ GFLOP/s\), "
                         r"first value (\S+) (\S+), checksum (\S+)\n", p.stdout)
        assert m, p.stdout
        assert [float(v) for v in m.group(1, 2)] == pytest.approx(dc, rel=1e-9), (kind, p.stdout)
        out[kind] = m.group(3)
        for bad in (["7", "1"], ["-5"], ["0"], ["abc"], ["99999999999"], [str(1 << 25)], ["4096", "0"],
                    ["4096", "-1"], ["4096", "3x"], ["4096", "1", "extra"]):
            p = subprocess.run([*cmd, *bad], capture_output=True, text=True, timeout=TIMEOUT)
            assert p.returncode == 2 and "usage" in p.stderr and not p.stdout, (kind, bad, p.stderr)
    assert out["native"] == out["wasm"] and math.isfinite(float(out["native"])), out


@pytest.fixture(scope="module")
def netpipe_runs(built, tmp_path_factory):
    """NetPIPE on 2 ranks, 1 B .. 1 KiB, natively and as wasm."""
    out = {}
    for kind in ("native", "wasm"):
        work = tmp_path_factory.mktemp(f"netpipe-{kind}")
        args = ["-p", "0", "-u", "1024", "-n", "10", "-o", "np.out"]
        cmd = [built["netpipe"]] if kind == "native" else \
            wasm_cmd(built, "netpipe.wasm", work, tmp_path_factory.mktemp("cache"))
        out[kind] = (mpirun(2, [*cmd, *args], work), work / "np.out")
    return out


@pytest.mark.parametrize("kind", ["native", "wasm"])
def test_netpipe_smoke(netpipe_runs, kind):
    p, np_out = netpipe_runs[kind]
    if kind == "wasm":
        assert_supported(p.stderr)
    assert p.returncode == 0, p.stdout + p.stderr
    rows = parse.parse_netpipe(np_out.read_text())
    assert [r["bytes"] for r in rows] == [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512,
                                         768, 1024]  # -p 0: no perturbed sizes
    assert all(r["mbps"] > 0 and r["usec"] > 0 for r in rows)
    assert "Now starting the main loop" in p.stderr  # NetPIPE's transmitter log (rank 0)


@pytest.mark.parametrize("kind", ["native", "wasm"])
def test_netpipe_integrity_check(built, kind, tmp_path):
    """NetPIPE's -i: every message carries 0, 1, 2, ... and each side checks
    what it received (the timed runs above never look at the data)."""
    work = tmp_path / "work"
    work.mkdir()
    cmd = [built["netpipe"]] if kind == "native" else wasm_cmd(built, "netpipe.wasm", work, tmp_path)
    p = mpirun(2, [*cmd, "-i", "-u", "4096", "-n", "5", "-o", "np.out"], work)
    if kind == "wasm":
        assert_supported(p.stderr)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "Doing an integrity check instead of measuring performance" in p.stdout, p.stdout
    assert "Integrity check failed" not in p.stderr, p.stderr
    # -i writes "bytes repeats" per size (no timings): every size up to -u was checked
    sizes = [int(line.split()[0]) for line in (work / "np.out").read_text().splitlines()]
    assert len(sizes) > 10 and sizes[0] == 5 and sizes[-1] > 2048, sizes


def test_netpipe_wasm_host_names_match_native(netpipe_runs):
    """Each rank prints its host name with gethostname(): the same names
    natively and in wasm (the porting layer's compat gethostname)."""
    names = {}
    for kind, (p, _) in netpipe_runs.items():
        if kind == "wasm":
            assert_supported(p.stderr)
        names[kind] = sorted(re.findall(r"^([01]): (\S+)$", p.stdout, re.M))
    assert len(names["native"]) == 2 and names["native"] == names["wasm"]


# --------------------------------------------------------------------------
# Parsers on captured output


@pytest.mark.parametrize("kind", ["native", "wasm"])
def test_parse_hpcc_captured(kind):
    for row in captured("hpcc", kind):
        text = output_of(row).read_text()
        res = parse.parse_hpcc(text)
        assert res["success"] is True and res["complete"]
        assert res["sections"] == HPCC_SECTIONS == res["finished"]
        assert res["checks"] == {s: "PASSED" for s in CHECKED}
        assert res["summary"]["sizeof_long"] == (8 if kind == "native" else 4)
        hpl = res["hpl"]
        assert (hpl["tv"], hpl["n"], hpl["nb"], hpl["p"], hpl["q"], hpl["check"]) == \
            ("WR11C2R4", 200, 40, 1, 2, "PASSED")
        assert 0 < hpl["residual"] < 16
        m = {x["key"]: x for x in res["metrics"]}
        assert list(m) == METRIC_KEYS
        assert math.isclose(m["HPL_Tflops"]["value"], res["summary"]["HPL_Tflops"] * 1000)
        assert m["HPL_Tflops"]["unit"] == "GFLOP/s" and m["MinPingPongLatency_usec"]["better"] == "lower"
        assert all(x["value"] > 0 for x in res["metrics"])
        # the values are those printed in the summary section
        for key in ("StarDGEMM_Gflops", "MPIRandomAccess_GUPs", "RandomlyOrderedRingBandwidth_GBytes"):
            printed = re.search(rf"^{key}=(\S+)$", text, re.M).group(1)
            assert m[key]["value"] == float(printed)


def test_parse_hpcc_failures_and_partial_output():
    text = output_of(captured("hpcc", "native", 1)[0]).read_text()
    bad = text.replace("...... PASSED", "...... FAILED").replace("Success=1", "Success=0")
    res = parse.parse_hpcc(bad)
    assert res["success"] is False and res["hpl"]["check"] == "FAILED" and res["checks"]["HPL"] == "FAILED"
    bad = re.sub(r"Found 0 errors in (\d+) locations \(passed\)", r"Found 9 errors in \1 locations (failed)", text)
    assert parse.parse_hpcc(bad)["checks"]["MPIRandomAccess"] == "FAILED"
    # HPCC appends to hpccoutf.txt: the last run counts
    assert parse.parse_hpcc(bad + text)["checks"]["MPIRandomAccess"] == "PASSED"
    with pytest.raises(ValueError):
        parse.parse_hpcc("HPLinpack 2.0 output without HPCC\n")


def test_parse_hpcc_aborted_wasm_run():
    """A real wasm run that the embedder ended in MPIRandomAccess (no
    MPI_Op_create then): no summary, nothing validated, the function named."""
    res = parse.parse_hpcc((ABORTED / "hpccoutf.txt").read_text())
    assert res["summary"] == {} and res["success"] is None and not res["complete"]
    assert res["sections"] == ["MPIRandomAccess"] and res["finished"] == []
    assert res["checks"] == {} and res["hpl"] is None and res["metrics"] == []
    assert parse.parse_unsupported((ABORTED / "stderr").read_text()) == ["MPI_Op_create"]
    assert parse.parse_unsupported("embedder: rank 3: MPI_Type_vector is not supported by this embedder\n"
                                   "MPI_Op_free is not supported by this embedder\n") == ["MPI_Op_free",
                                                                                         "MPI_Type_vector"]
    assert parse.parse_unsupported(text_of_quick_stderr()) == []


def text_of_quick_stderr():
    return "".join((QUICK / r["stderr"]).read_text() for r in captured_runs())


@pytest.mark.parametrize("kind", ["native", "wasm"])
def test_parse_netpipe_captured(kind):
    for row in captured("netpipe", kind):
        text = output_of(row).read_text()
        rows = parse.parse_netpipe(text)
        sizes = [r["bytes"] for r in rows]
        assert sizes[0] == 1 and sizes[-1] == 65536 and sizes == sorted(set(sizes)) and len(rows) == 32
        for r, line in zip(rows, text.splitlines()):
            b, mbps, sec = line.split()
            assert (r["bytes"], r["mbps"]) == (int(b), float(mbps))
            assert math.isclose(r["usec"], float(sec) * 1e6) and math.isclose(r["mbytes_per_sec"], float(mbps) / 8)
            assert r["usec"] > 0
        # NetPIPE's stderr log (rank 0) has the same sizes
        logged = [int(x) for x in re.findall(r"^\s*\d+:\s+(\d+) bytes", (QUICK / row["stderr"]).read_text(), re.M)]
        assert logged == sizes


def test_parse_netpipe_rejects_other_lines():
    with pytest.raises(ValueError, match="NetPIPE"):
        parse.parse_netpipe("       1 10.5   0.00000072\nSending output to np.out\n")
    assert parse.parse_netpipe("\n") == []


# --------------------------------------------------------------------------
# run.py and plot.py on the captured run


@pytest.fixture()
def results(tmp_path):
    res = tmp_path / "20990101T000000Z"
    shutil.copytree(QUICK, res)
    tables, problems = runner.tables_from_raw(res)
    assert problems == []
    return res, tables


def test_tables_from_raw_external(results):
    res, tables = results
    hpcc = read_csv(res / "hpcc.csv")
    assert list(hpcc[0]) == runner.HPCC_FIELDS
    assert len(hpcc) == len(METRIC_KEYS) * 4  # native and wasm, 2 reps
    assert {(r["kind"], r["rep"], r["ranks"]) for r in hpcc} == {(k, p, "2") for k in ("native", "wasm")
                                                                  for p in ("1", "2")}
    assert {r["success"] for r in hpcc} == {"1"} and {r["backend"] for r in hpcc} == {"", "llvm"}
    net = read_csv(res / "netpipe.csv")
    assert list(net[0]) == runner.NETPIPE_FIELDS and len(net) == 4 * 32
    runs = read_csv(res / "external_runs.csv")
    assert [(r["program"], r["kind"]) for r in runs] == [("hpcc", "native"), ("hpcc", "wasm"),
                                                         ("netpipe", "native"), ("netpipe", "wasm")] * 2
    for r in runs:
        assert r["rc"] == "0" and r["unsupported_mpi"] == "" and (res / r["output"]).exists()
        if r["program"] == "hpcc":
            assert (r["success"], r["hpl_check"], r["failed_checks"], r["last_section"]) == ("1", "PASSED", "",
                                                                                          "Summary")
        else:
            assert r["points"] == "32"
        assert (r["load_s"] != "") == (r["kind"] == "wasm")  # the embedder's --timings
    sizes = {r["program"]: r for r in read_csv(res / "sizes.csv")}
    assert set(sizes) == {"hpcc", "netpipe"} and int(sizes["hpcc"]["wasm_bytes"]) > 0


def test_tables_from_raw_reports_an_aborted_wasm_run(results):
    """The aborted capture in place of a wasm HPCC run: its problem names the
    missing MPI function and where HPCC stopped; no metric rows."""
    res, _ = results
    row = captured("hpcc", "wasm", 2)[0]
    shutil.copy(ABORTED / "hpccoutf.txt", runner.output_file(res, row, "hpcc"))
    shutil.copy(ABORTED / "stderr", res / row["stderr"])
    tables, problems = runner.tables_from_raw(res)
    assert len(problems) == 2, problems
    assert "not supported by the embedder: MPI_Op_create" in problems[0]
    assert "Success=missing" in problems[1] and "stopped in MPIRandomAccess" in problems[1]
    assert len(tables["hpcc"]) == len(METRIC_KEYS) * 3
    (bad,) = [r for r in tables["external_runs"] if r["unsupported_mpi"]]
    assert (bad["kind"], bad["rep"], bad["unsupported_mpi"]) == ("wasm", "2", "MPI_Op_create")


def test_hpcc_ratios_direction():
    plot = load_plot()
    import pandas as pd
    rows = []
    for metric, better, n, w in (("HPL", "higher", 10.0, 8.0), ("PingPong latency (min)", "lower", 0.2, 0.4)):
        for kind, values in (("native", [n, n * 2, n / 2]), ("wasm", [w])):
            rows += [{"test": "x", "metric": metric, "unit": "u", "better": better, "kind": kind, "value": v}
                     for v in values]
    r = plot.hpcc_ratios(pd.DataFrame(rows)).set_index("metric")
    assert list(r.index) == ["HPL", "PingPong latency (min)"]  # HPCC_METRICS order
    assert r.at["HPL", "native"] == 10.0 and r.at["HPL", "runs_native"] == 3  # median of 3 reps
    assert math.isclose(r.at["HPL", "speed"], 0.8) and math.isclose(r.at["HPL", "slowdown"], 0.25)
    lat = r.loc["PingPong latency (min)"]
    assert math.isclose(lat.ratio, 2.0) and math.isclose(lat.speed, 0.5) and math.isclose(lat.slowdown, 1.0)


def test_plot_script_on_captured_external_results(results):
    load_plot()
    res, _ = results
    p = subprocess.run([sys.executable, str(ROOT / "plots" / "plot.py"), str(res)], capture_output=True,
                       text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    plots = res / "plots"
    for stem in ("hpcc_ratio", "netpipe"):
        assert (plots / f"{stem}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert (plots / f"{stem}.svg").stat().st_size > 1000
    ratios = read_csv(plots / "hpcc_ratios.csv")
    assert len(ratios) == len(METRIC_KEYS) and all(math.isfinite(float(r["speed"])) for r in ratios)
    assert {r["runs_native"] for r in ratios} == {"2"} == {r["runs_wasm"] for r in ratios}
    report = (res / "report.md").read_text()
    for section in ("## External codes: HPCC 1.5.0 and NetPIPE 3.7.2", "### HPCC", "### NetPIPE",
                    "(plots/hpcc_ratio.png)", "(plots/netpipe.png)", "hpcc_1.5.0.orig.tar.gz",
                    fetch.SOURCES["netpipe"]["sha256"], "-DHPL_NO_MPI_DATATYPE",
                    "The embedder provides every MPI function the two wasm modules import."):
        assert section in report, section
    for link in re.findall(r"\]\((plots/[^)]+)\)", report):
        assert (res / link).exists(), link
    meta = json.loads((res / "meta.json").read_text())
    assert meta["parameters"]["hpcc_n"] == 200 and meta["external"]["status"] == "built"


def test_run_external_only_quick_end_to_end(built, tmp_path):
    # a relative --out, as `make bench` passes: the runs start in their own working directories
    p = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "run.py"), "--external", "only", "--quick",
                        "--mpicc", MPICC, "--mpirun", MPIRUN, "--out", "results"], cwd=tmp_path,
                       capture_output=True, text=True, timeout=TIMEOUT)
    (res,) = [d for d in (tmp_path / "results").iterdir() if d.is_dir()]
    if p.returncode != 0:
        assert_supported(p.stderr)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    meta = json.loads((res / "meta.json").read_text())
    assert meta["failures"] == [] and meta["parameters"]["external"] == "only"
    assert {r["program"] for r in read_csv(res / "runs.csv")} == {"hpcc", "netpipe"}
    hpcc = read_csv(res / "hpcc.csv")
    assert {(r["kind"], r["success"]) for r in hpcc} == {("native", "1"), ("wasm", "1")}
    assert {r["kind"] for r in read_csv(res / "netpipe.csv")} == {"native", "wasm"}
    assert not (res / "imb.csv").exists() or read_csv(res / "imb.csv") == []
