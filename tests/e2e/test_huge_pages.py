"""--huge-pages: the guest's linear memory is advised for transparent huge
pages (the mapping's VmFlags carry "hg") and, where the kernel's THP setting
allows it, is backed by them; without the option nothing is advised."""
import re
import subprocess
from pathlib import Path

from conftest import PROGRAMS, TIMEOUT

THP = Path("/sys/kernel/mm/transparent_hugepage/enabled")


def thp_mode():
    """The selected THP mode (always, madvise, never), or None without THP."""
    m = re.search(r"\[(\w+)\]", THP.read_text()) if THP.exists() else None
    return m and m.group(1)


def advised_mappings(pid):
    """(size kB, AnonHugePages kB) of each readable-writable mapping advised for huge pages."""
    found, block = [], {}
    for line in Path(f"/proc/{pid}/smaps").read_text().splitlines():
        if re.match(r"^[0-9a-f]+-[0-9a-f]+ ", line):
            block = {"perms": line.split()[1]}
        elif line.startswith(("Size:", "AnonHugePages:")):
            block[line.split(":")[0]] = int(line.split()[1])
        elif line.startswith("VmFlags:") and "hg" in line.split()[1:] and block["perms"].startswith("rw"):
            found.append((block["Size"], block["AnonHugePages"]))
    return found


def run_touching_64_mib(embedder, cache_dir, module, *opts):
    """Runs huge_pages.c; returns the advised mappings while its 64 MiB are in use."""
    p = subprocess.Popen([str(embedder), "--cache-dir", str(cache_dir), *opts, str(module)], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert p.stdout.readline() == "touched\n", p.stderr.read()
        mappings = advised_mappings(p.pid)
        out, err = p.communicate("go\n", timeout=TIMEOUT)
    finally:
        p.kill()
        p.wait()
    assert p.returncode == 0 and out == f"sum {16384}\n", (p.returncode, out, err)
    return mappings, err


def test_huge_pages_are_advised_for_the_linear_memory_only_when_asked(build, embedder, cache_dir):
    module = build.wasm(PROGRAMS / "huge_pages.c")
    plain, _ = run_touching_64_mib(embedder, cache_dir, module)
    assert plain == [], f"advised without --huge-pages: {plain}"
    advised, err = run_touching_64_mib(embedder, cache_dir, module, "--huge-pages")
    assert "warning" not in err, err
    memory = [(size, huge) for size, huge in advised if size >= 64 << 10]
    assert memory, f"no advised mapping holds the 64 MiB: {advised}"
    if thp_mode() in ("always", "madvise"):
        assert sum(huge for _, huge in memory) >= 32 << 10, f"under THP '{thp_mode()}', huge pages: {memory}"
