"""The container images (docker/): what can be checked without building them
— the Dockerfile's files and stages, the runtime's MPI packages against the
libraries the embedder loads, make-base-image.sh's reading of apt sources and
its cleanup, build.sh's podman command — in a few seconds.

The real build and run (base image, both images, hello.c compiled in the
toolchain image and run on 4 ranks under Open MPI and MPICH in the runtime
image) is defined only with EMBEDDER_TEST_CONTAINERS=1 (about 2 minutes
from nothing with the prebuilt embedder, 10 s with the images cached; not
part of `make test`, and neither run nor skipped in CI):

    EMBEDDER_TEST_CONTAINERS=1 python3 -m pytest -q tests/cluster/test_container.py
"""
import os
import re
import shlex
import shutil
import subprocess
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCKER = ROOT / "docker"
DOCKERFILE = DOCKER / "Dockerfile"
# named build contexts the build stage takes (docker/build.sh passes both)
NAMED_CONTEXTS = {"rust", "site-ca"}
# build outputs the Dockerfile may copy (the prebuilt variant), not sources
BUILT = {"target/release/embedder"}


def instructions(text):
    """(stage, instruction, arguments) of a Dockerfile, continuations joined."""
    out, stage, cur = [], None, ""
    for line in text.splitlines():
        if not cur and (not line.strip() or line.lstrip().startswith("#")):
            continue
        if cur and line.lstrip().startswith("#"):
            continue
        cur += line.rstrip()
        if cur.endswith("\\"):
            cur = cur[:-1] + " "
            continue
        word, _, rest = cur.strip().partition(" ")
        word = word.upper()
        if word == "FROM":
            m = re.match(r"(\S+)(?:\s+AS\s+(\S+))?", rest.strip(), re.I)
            stage = m.group(2)
        out.append((stage, word, rest.strip()))
        cur = ""
    return out


INSTR = instructions(DOCKERFILE.read_text())
STAGES = [s for s, w, _ in INSTR if w == "FROM"]


def stage_runs(stage):
    return " ; ".join(a for s, w, a in INSTR if s == stage and w == "RUN")


def apt_installs(stage):
    """Packages of every `apt-get install` in a stage."""
    pkgs = []
    for cmd in re.findall(r"apt-get install ([^&;|]*)", stage_runs(stage)):
        pkgs += [w for w in cmd.split() if not w.startswith("-")]
    return pkgs


def tracked_files():
    r = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True)
    if r.returncode == 0 and r.stdout:
        return set(r.stdout.splitlines())
    return {str(p.relative_to(ROOT)) for p in ROOT.rglob("*") if p.is_file() and "target" not in p.parts}


def test_stages_and_their_order():
    for s in ["base", "build", "embedder-build", "embedder-prebuilt", "embedder", "toolchain", "examples", "runtime"]:
        assert s in STAGES, f"stage {s} missing: {STAGES}"
    # ARG BASE before the first FROM, used by it
    head = DOCKERFILE.read_text().split("\nFROM ", 1)[0]
    assert re.search(r"^ARG BASE=\S+", head, re.M), "ARG BASE must precede the first FROM"
    assert [a for s, w, a in INSTR if w == "FROM"][0].startswith("${BASE}")
    assert re.search(r"^ARG EMBEDDER_FROM=(build|prebuilt)$", head, re.M)
    assert ("embedder", "FROM", "embedder-${EMBEDDER_FROM} AS embedder") in INSTR
    # the build stage is the README's: setup.sh, then make build
    runs = stage_runs("build")
    assert "bash scripts/setup.sh" in runs and "make build" in runs
    assert runs.index("scripts/setup.sh") < runs.index("make build")


def test_copies_name_files_that_exist():
    files = tracked_files()
    stage_names = set(STAGES)
    checked = 0
    for stage, word, args in INSTR:
        if word not in ("COPY", "ADD"):
            continue
        assert word == "COPY", "ADD fetches URLs and unpacks archives; COPY only"
        parts = shlex.split(args)
        opts = [p for p in parts if p.startswith("--")]
        srcs = [p for p in parts if not p.startswith("--")][:-1]
        frm = [o.split("=", 1)[1] for o in opts if o.startswith("--from=")]
        if frm:
            assert frm[0] in stage_names | NAMED_CONTEXTS, f"{stage}: COPY --from={frm[0]} is no stage or documented context"
            continue
        for src in srcs:
            src = src.rstrip("/")
            if src in BUILT:
                continue
            hit = [f for f in files if f == src or f.startswith(src + "/")]
            assert hit, f"stage {stage}: COPY {src} names nothing in the repository"
            checked += 1
    assert checked >= 10, checked
    # the prebuilt binary is the path `make build` produces
    assert re.search(r"^EMBEDDER := target/release/embedder$", (ROOT / "Makefile").read_text(), re.M)
    # every named context the Dockerfile uses is one build.sh passes
    build_sh = (DOCKER / "build.sh").read_text()
    for ctx in NAMED_CONTEXTS:
        assert f'--build-context "{ctx}=' in build_sh, ctx


def test_toolchain_stage_has_setup_sh_wasm_packages_and_keeps_the_layout():
    setup = (ROOT / "scripts/setup.sh").read_text()
    line = next(l for l in setup.splitlines() if "wasi-libc" in l and not l.strip().startswith("#"))
    wanted = line.split()
    assert "clang-16" in wanted and "wasi-libc" in wanted
    missing = set(wanted) - set(apt_installs("toolchain"))
    assert not missing, f"toolchain stage lacks setup.sh's {missing}"
    # the wrapper finds mpi.h as <toolchain>/../mpi-header
    wrapper = (ROOT / "toolchain/libexec/wasm-mpi-wrapper.sh").read_text()
    assert '"$here/../mpi-header"' in wrapper
    dests = [shlex.split(a)[-1] for s, w, a in INSTR if s == "toolchain" and w == "COPY"]
    assert "/opt/embedder/toolchain/bin/" in dests and "/opt/embedder/mpi-header/" in dests
    for needed in ("mpi.h", "mpi-imports.syms"):
        assert any(needed in a for s, w, a in INSTR if s == "toolchain" and w == "COPY"), needed


def library_candidates():
    src = (ROOT / "embedder/src/host_mpi/library.rs").read_text()
    body = src[src.index("fn candidates("):]
    body = body[: body.index("\n}\n")]
    fam = {}
    for name, libs in re.findall(r"Some\(Family::(\w+)\) => &\[([^\]]*)\]", body):
        fam[name] = re.findall(r'"([^"]+)"', libs)
    assert {"OpenMpi", "Mpich"} <= set(fam), fam
    return fam


def dpkg_owner(path_pattern):
    r = subprocess.run(["dpkg", "-S", path_pattern], capture_output=True, text=True)
    return {l.split(":")[0] for l in r.stdout.splitlines() if ": " in l}


def depends(pkg):
    r = subprocess.run(["dpkg-query", "-W", "-f=${Depends}", pkg], capture_output=True, text=True)
    return {d.strip().split()[0].split(":")[0] for alt in r.stdout.split(",") for d in alt.split("|") if d.strip()}


def test_runtime_packages_ship_the_libraries_the_embedder_loads():
    """For Open MPI and MPICH, one of the sonames library.rs tries must come
    from a package the runtime stage installs (or one it depends on), as
    dpkg on this Debian host says; and the runtime carries no compilers."""
    assert shutil.which("dpkg"), "Debian's dpkg is needed (the images are Debian's)"
    runtime = apt_installs("runtime")
    closure = set(runtime)
    for p in runtime:
        closure |= depends(p)
    cands = library_candidates()
    for family in ("OpenMpi", "Mpich"):
        owners = {}
        # versioned sonames only: an unversioned libmpi.so is a -dev symlink
        # and says nothing about the family
        for soname in [c for c in cands[family] if re.search(r"\.so\.\d", c)]:
            for pkg in dpkg_owner(f"*/{soname}"):
                owners[soname] = pkg
        assert owners, f"no package on this host ships any of {cands[family]} (scripts/setup.sh installs both MPIs)"
        assert set(owners.values()) & closure, f"{family}: {owners} not in the runtime stage's packages {sorted(closure)}"
    for launcher, family in (("mpirun.openmpi", "OpenMpi"), ("mpirun.mpich", "Mpich")):
        assert dpkg_owner(f"/usr/bin/{launcher}") & set(runtime), launcher
    bad = [p for p in runtime if p.endswith("-dev") or re.match(r"(gcc|g\+\+|clang|cpp|gfortran|llvm)", p)]
    assert not bad, f"compilers or -dev packages in the runtime image: {bad}"


def test_runtime_packages_cover_the_binarys_own_libraries():
    """Every shared library the embedder binary needs comes from a package
    the runtime stage names, or from libc6/libgcc-s1 (in every Debian base)."""
    binary = ROOT / "target/release/embedder"
    assert binary.exists(), "build the embedder first (make build)"
    out = subprocess.run(["readelf", "-d", str(binary)], capture_output=True, text=True, check=True).stdout
    needed = re.findall(r"\(NEEDED\).*\[(.*)\]", out)
    assert needed
    runtime = set(apt_installs("runtime")) | {"libc6", "libgcc-s1"}
    for soname in needed:
        owners = dpkg_owner(f"*/{soname}")
        assert owners, f"{soname}: no installed package ships it"
        assert owners & runtime, f"{soname} ({owners}) is not installed by the runtime stage"


def source_fn(script, call):
    return subprocess.run(["bash", "-c", f'source "{script}"; {call}'], capture_output=True, text=True, timeout=20)


@pytest.fixture
def apt_dir(tmp_path):
    d = tmp_path / "apt"
    (d / "sources.list.d").mkdir(parents=True)
    (d / "sources.list.d" / "debian.sources").write_text(textwrap.dedent("""\
        Types: deb
        URIs: http://off.invalid/repo
        Suites: bookworm
        Components: main
        Enabled: no

        Types: deb deb-src
        # a comment inside a stanza
        URIs:
          http://mirror.invalid/repo/
          http://second.invalid/repo
        Suites: bookworm bookworm-updates
        Components: main contrib
        Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

        Types: deb
        URIs: http://fixes.invalid/fixes-repo
        Suites: bookworm-security
        Components: main
        """))
    # apt ignores files that end otherwise
    (d / "sources.list.d" / "old.list.disabled").write_text("deb http://ignored.invalid/repo bookworm main\n")
    return d


def test_mirror_is_derived_from_apt_sources(apt_dir, tmp_path):
    """scripts/apt_sources.py, through make-base-image.sh's function: the
    first enabled deb source of the suite, continuation lines and all."""
    script = DOCKER / "make-base-image.sh"
    r = source_fn(script, f'apt_source_for_suite bookworm "{apt_dir}"')
    assert r.returncode == 0, r.stderr
    assert r.stdout.split("\t")[:2] == ["http://mirror.invalid/repo/", "main contrib"]
    r = source_fn(script, f'apt_source_for_suite bookworm-security "{apt_dir}"')
    assert r.stdout.startswith("http://fixes.invalid/fixes-repo\t")
    r = source_fn(script, f'apt_source_for_suite sid "{apt_dir}"')
    assert r.returncode != 0 and r.stdout == ""
    # one-line format, options included; a deb-src line is no source for debootstrap
    one = tmp_path / "one-line"
    (one / "sources.list.d").mkdir(parents=True)
    (one / "sources.list").write_text("deb-src http://src.invalid/repo bookworm main\n"
                                      "deb [arch=amd64 signed-by=/k.gpg] http://one.invalid/repo bookworm main non-free # x\n")
    r = source_fn(script, f'apt_source_for_suite bookworm "{one}"')
    assert r.stdout.rstrip("\n").split("\t") == ["http://one.invalid/repo", "main non-free", "/k.gpg"]
    # a directory given as the mirror becomes a file: URI
    r = source_fn(script, f'mirror_url "{tmp_path}"; mirror_url http://given.invalid/repo/')
    assert r.stdout.splitlines() == [f"file://{tmp_path}", "http://given.invalid/repo"]
    # sourcing runs nothing
    r = source_fn(script, "true")
    assert r.returncode == 0 and r.stdout == "" and r.stderr == ""


def fake_tool(path, body):
    path.write_text("#!/usr/bin/env bash\n" + body)
    path.chmod(0o755)


def test_make_base_image_bootstraps_from_the_derived_mirror_and_cleans_up(apt_dir, tmp_path):
    """main() with debootstrap and podman replaced by recorders: the mirror
    from the sources file reaches debootstrap, the image's own sources name
    it (with updates and security), the root is imported, then removed."""
    bin_dir, tmp = tmp_path / "bin", tmp_path / "tmp"
    bin_dir.mkdir(); tmp.mkdir()
    log = tmp_path / "log"
    fake_tool(bin_dir / "debootstrap", f"""
echo "debootstrap $*" >> "{log}"
root=${{@: -2:1}}
mkdir -p "$root/etc/apt/sources.list.d" "$root/etc/apt/apt.conf.d" "$root/var/lib/apt/lists" "$root/bin"
echo stale > "$root/var/lib/apt/lists/x_Packages"
""")
    fake_tool(bin_dir / "podman", f"""
echo "podman $*" >> "{log}"
tar -x -O ./etc/apt/sources.list.d/debian.sources > "{tmp_path}/image.sources"
""")
    env = dict(os.environ, PATH=f"{bin_dir}:{os.environ['PATH']}", TMPDIR=str(tmp),
               EMBEDDER_APT_DIR=str(apt_dir), PODMAN=str(bin_dir / "podman"))
    env.pop("EMBEDDER_BASE_MIRROR", None)
    r = subprocess.run([str(DOCKER / "make-base-image.sh")], env=env, capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, r.stdout + r.stderr
    calls = log.read_text().splitlines()
    keyring = "/usr/share/keyrings/debian-archive-keyring.gpg"  # the stanza's Signed-By, where it exists
    keyring_opt = f"--keyring={keyring} " if os.path.isfile(keyring) else ""
    assert re.fullmatch(rf"debootstrap --variant=minbase --components=main,contrib {re.escape(keyring_opt)}"
                        rf"bookworm {re.escape(str(tmp))}/embedder-base\.\w+ http://mirror\.invalid/repo", calls[0]), calls[0]
    assert calls[1].startswith("podman import") and calls[1].endswith("- localhost/embedder-base:bookworm"), calls[1]
    sources = (tmp_path / "image.sources").read_text()
    assert "URIs: http://mirror.invalid/repo\nSuites: bookworm bookworm-updates\nComponents: main contrib" in sources
    assert "URIs: http://fixes.invalid/fixes-repo\nSuites: bookworm-security" in sources
    assert list(tmp.iterdir()) == [], "temporary root left behind"

    # an explicit mirror wins; a failing debootstrap still leaves nothing behind
    fake_tool(bin_dir / "debootstrap", f'echo "debootstrap $*" >> "{log}"; mkdir -p "${{@: -2:1}}/x"; exit 3\n')
    r = subprocess.run([str(DOCKER / "make-base-image.sh"), "http://override.invalid/repo"], env=env,
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 3
    assert log.read_text().splitlines()[-1].endswith(" http://override.invalid/repo")
    assert list(tmp.iterdir()) == []


def run_build_sh(tmp_path, args, **env_extra):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    log = tmp_path / "podman.log"
    fake_tool(bin_dir / "podman", f'echo "$*" >> "{log}"\n')  # `image exists` succeeds
    env = dict(os.environ, PODMAN=str(bin_dir / "podman"), **env_extra)
    for k in ("BUILDAH_ISOLATION", "EMBEDDER_BUILD_FLAGS", "EMBEDDER_IMAGE", "EMBEDDER_BASE_IMAGE"):
        env.pop(k, None)
    r = subprocess.run([str(DOCKER / "build.sh"), *args], env=env, capture_output=True, text=True, timeout=20)
    return r, (log.read_text().splitlines() if log.exists() else [])


def test_build_sh_commands(tmp_path):
    r, _ = run_build_sh(tmp_path, ["nonsense"])
    assert r.returncode == 2 and "usage" in r.stderr

    if (ROOT / "target/release/embedder").exists():
        r, calls = run_build_sh(tmp_path, ["all"], EMBEDDER_FROM="prebuilt")
        assert r.returncode == 0, r.stderr
        builds = [c for c in calls if c.startswith("build ")]
        assert [re.search(r"--target (\S+)", c).group(1) for c in builds] == ["toolchain", "runtime"]
        for c in builds:
            assert "--isolation chroot" in c and "--build-arg EMBEDDER_FROM=prebuilt" in c
            assert f"-f {DOCKER}/Dockerfile" in c and c.endswith(f" {ROOT}")
            assert "--build-context" not in c

    # EMBEDDER_FROM=build: the Rust toolchain directory is checked, then passed
    rust = tmp_path / "rust"
    (rust / "bin").mkdir(parents=True)
    fake_tool(rust / "bin" / "cargo", "exit 0\n")
    fake_tool(rust / "bin" / "rustc", 'echo "rustc 1.80.0 (abc 2024-01-01)"\n')
    r, calls = run_build_sh(tmp_path, ["runtime"], EMBEDDER_FROM="build", RUST_TOOLCHAIN_DIR=str(rust))
    assert r.returncode == 1 and "1.89" in r.stderr
    fake_tool(rust / "bin" / "rustc", 'echo "rustc 1.95.0 (abc 2026-01-01)"\n')
    ca = tmp_path / "ca"
    ca.mkdir()
    (tmp_path / "podman.log").unlink(missing_ok=True)
    r, calls = run_build_sh(tmp_path, ["runtime"], EMBEDDER_FROM="build", RUST_TOOLCHAIN_DIR=str(rust),
                            EMBEDDER_CA_DIR=str(ca))
    assert r.returncode == 0, r.stderr
    build = [c for c in calls if c.startswith("build ")]
    assert len(build) == 1
    assert f"--build-context rust={rust}" in build[0] and f"--build-context site-ca={ca}" in build[0]
    assert "--build-arg EMBEDDER_FROM=build" in build[0] and "--target runtime" in build[0]


# ---------------------------------------------------------------------------
# The real thing: defined only on request, so that CI (no images, no registry)
# neither runs nor skips it.

def podman_run_flags(podman, image):
    """Flags `podman run` needs on this host: none normally; on hosts whose
    cgroup v1/v2 hybrid crun refuses and where raising rlimits is not allowed
    (this project's VMs), runc with the limits the host already has."""
    if subprocess.run([*podman, "run", "--rm", image, "true"], capture_output=True).returncode == 0:
        return []
    nofile = int(subprocess.run(["bash", "-c", "ulimit -Hn"], capture_output=True, text=True).stdout)
    nproc = min(32768, int(Path("/proc/sys/kernel/pid_max").read_text()))
    flags = ["--runtime", "runc", "--ulimit", f"nofile={nofile}:{nofile}", "--ulimit", f"nproc={nproc}:{nproc}"]
    r = subprocess.run([*podman, *flags[:2], "run", "--rm", *flags[2:], image, "true"], capture_output=True, text=True)
    assert r.returncode == 0, f"podman cannot run containers here: {r.stderr}"
    return flags


if os.environ.get("EMBEDDER_TEST_CONTAINERS") == "1":

    def test_images_build_and_run_hello_on_both_mpis(tmp_path):
        assert shutil.which("podman"), "EMBEDDER_TEST_CONTAINERS=1 needs podman"
        podman = shlex.split(os.environ.get("PODMAN", "podman"))
        r = subprocess.run([str(DOCKER / "build.sh"), "all"], capture_output=True, text=True, timeout=3600)
        assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
        flags = podman_run_flags(podman, "localhost/embedder:runtime")
        runtime_flag, run_flags = flags[:2], flags[2:]
        shutil.copy(ROOT / "examples/hello.c", tmp_path)
        base = [*podman, *runtime_flag, "run", "--rm", *run_flags, "-v", f"{tmp_path}:/work"]
        r = subprocess.run([*base, "localhost/embedder:toolchain", "wasm-mpicc", "-o", "hello.wasm", "hello.c"],
                           capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stderr
        assert (tmp_path / "hello.wasm").read_bytes()[:4] == b"\0asm"
        for launcher in (["mpirun", "--allow-run-as-root", "--oversubscribe"], ["mpirun.mpich"]):
            r = subprocess.run([*base, "localhost/embedder:runtime", *launcher, "-np", "4", "embedder", "hello.wasm"],
                               capture_output=True, text=True, timeout=300)
            assert r.returncode == 0, r.stderr
            ranks = re.findall(r"^hello from rank (\d) of 4 ", r.stdout, re.M)
            assert ranks == ["0", "1", "2", "3"], r.stdout
        # the image's demo command
        r = subprocess.run([*podman, *runtime_flag, "run", "--rm", *run_flags, "localhost/embedder:runtime"],
                           capture_output=True, text=True, timeout=300)
        assert r.returncode == 0 and r.stdout.count("hello from rank") == 4, r.stdout + r.stderr
