"""What MPICH 5.0.2 (PyPI's wheel) leaves in /dev/shm when a job is torn
down (an abort, a trap): its node segment, natively too, and sometimes a
segment of the UCX it bundles (a killed rank cannot unlink UCX's). Every
suite that ends MPICH 5 jobs that way removes those afterwards, and only
those, once nothing maps them (tests/conftest.py)."""
import os
import time
from pathlib import Path

SHM = Path("/dev/shm")
MPICH5_LEFTOVERS = ("mpich_shm_", "ucx_shm_posix_")


def listing():
    return set(os.listdir(SHM)) if SHM.is_dir() else set()


def _mapped_anywhere(path):
    """Whether a live process maps `path` (a job still running holds it)."""
    for maps in Path("/proc").glob("[0-9]*/maps"):
        try:
            if str(path) in maps.read_text():
                return True
        except OSError:
            continue
    return False


def remove_new_leftovers(before):
    """Removes the MPICH 5 leftovers that are not in `before` (a listing)."""
    # a rank of a job torn down by an abort can still be exiting when the
    # launcher returns (a CI run kept one such segment): give it a moment
    deadline = time.monotonic() + 5
    for name in sorted(listing() - before):
        if not name.startswith(MPICH5_LEFTOVERS):
            continue
        while (mapped := _mapped_anywhere(SHM / name)) and time.monotonic() < deadline:
            time.sleep(0.05)
        if not mapped:
            (SHM / name).unlink(missing_ok=True)
