"""Reads past the end of a file (tests/e2e/programs/file_eof.c; the bridge's
side is embedder/src/mpi/file_nonblocking.rs). Open MPI (4.1 and 5.0) never
completes a nonblocking or split collective read that reaches past the end
of the file, natively either: there the wasm run must end, with the counts
the standard gives. MPICH gets them right natively (but for its collective
reads' counts): there the wasm run must print what the native run prints,
but for the nonblocking collective reads, which the bridge makes this
rank's individual reads on every host (test_file_type_freed.py): they must
give the standard's counts."""
import re

from conftest import MPI, PROGRAMS

SRC = PROGRAMS / "file_eof.c"
TIMEOUT = 60  # the hang this is about fails the test instead of the suite
FILE_SIZE, LEN = 100, 40
READS = ["iread_at", "iread", "iread_at_all", "iread_all", "read_at_all_begin", "read_all_begin", "iread_shared",
         "read_ordered_begin"]
# Open MPI's collective MPI_File_read_all reports the count asked for, not
# the count read (open-mpi/ompi#14015; the native blocking call does too):
# its split form, which the bridge runs as MPI_File_read_all, is only
# checked to end
HOST_COUNT = {"read_all_begin"}
# made this rank's individual read by the bridge on every host
INDIVIDUAL_HERE = {"iread_all", "iread_at_all"}


def expected(rank, read, case):
    """The count the standard gives this rank's read (file_eof.c's offsets)."""
    start = {"inside": 10 * rank, "crossing": 70 + 10 * rank, "past": 200 + 10 * rank}[case]
    if read == "iread_shared":
        return min(LEN, max(0, FILE_SIZE - start)) if rank == 0 else 0
    if read == "read_ordered_begin":
        start = start - 10 * rank + rank * LEN
    return min(LEN, max(0, FILE_SIZE - start))


def lines(out):
    return sorted(line for line in out.splitlines() if line.startswith("r"))


def reported(out):
    """Each read's report: {"r<rank> <read> <case>": (count, "ok" | "BAD")}."""
    seen = {}
    for line in lines(out):
        m = re.fullmatch(r"(r\d .+?): count (-?\d+) data (ok|BAD)", line)
        assert m, line
        seen[m.group(1)] = (int(m.group(2)), m.group(3))
    return seen


def test_reads_past_the_end_of_the_file_complete(build, run_wasm, run_native, tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    np = 2
    want = {}
    for rank in range(np):
        for case in ("inside", "crossing", "past"):
            for read in READS:
                want[f"r{rank} {read} {case}"] = expected(rank, read, case)
        # a view of ints from byte 4: 24 whole ints, 30 asked for; 2 inside
        want[f"r{rank} iread_at int view"] = 24
        want[f"r{rank} iread_at int view inside"] = 2
    r = run_wasm(build.wasm(SRC), "/data/eof.bin", np=np, opts=["--mapdir", f"/data:{data}"], timeout=TIMEOUT)
    assert r.returncode == 0 and r.stdout.count("done\n") == 1, r.stdout + r.stderr
    got = lines(r.stdout)
    assert reported(r.stdout).keys() == want.keys() and len(got) == len(want), r.stdout
    if MPI.startswith("mpich"):
        # The reference: MPICH's own counts (wrong for its collective
        # reads). A native run once lost rank 1's last line on MPICH 5
        # (2026-12-02 CI, exit code 0; not seen again in 90 runs, 60 of
        # them beside two busy loops): a reference that lost a report says
        # nothing of the embedder, so it is run again, up to three times,
        # until it holds every report.
        for attempt in range(3):
            native = tmp_path / f"native{attempt}"
            native.mkdir()
            n = run_native(build.native(SRC), native / "eof.bin", np=np, timeout=TIMEOUT)
            assert n.returncode == 0, n.stdout + n.stderr
            if reported(n.stdout).keys() == want.keys():
                break
        reference = reported(n.stdout)
        reference.update({k: (count, "ok") for k, count in want.items() if k.split()[1] in INDIVIDUAL_HERE})
        assert reported(r.stdout) == reference, (r.stdout, n.stdout + n.stderr)
        return
    seen = reported(r.stdout)
    wrong = {k: (seen[k], n) for k, n in want.items() if k.split()[1] not in HOST_COUNT and seen[k] != (n, "ok")}
    assert not wrong, wrong


def test_a_second_split_collective_is_refused(build, run_wasm, tmp_path):
    """One split collective at a time on a file: the second `_begin` fails
    at once (the bridge runs the first whole in its `_begin`); a negative
    explicit offset is MPI_ERR_ARG (Open MPI took it, then trapped the
    guest; natively it crashes), so is one whose access ends past the
    largest file offset (ROMIO's lock of the range failed and it aborted
    the job)."""
    data = tmp_path / "data"
    data.mkdir()
    r = run_wasm(build.wasm(SRC), "/data/eof.bin", opts=["--mapdir", f"/data:{data}"], timeout=TIMEOUT)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "r0 second begin refused yes: count 40 data ok\n" in r.stdout, r.stdout
    assert "negative offsets refused: yes\n" in r.stdout, r.stdout
    assert "accesses past the largest file offset refused: yes\n" in r.stdout, r.stdout
