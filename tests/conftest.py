"""Suite-wide policy: nothing is green by skipping. Every skipped (or
xfailed) test is listed at the end of the run; under CI=true each one that is
not on ALLOWED_SKIPS fails the run."""
import os
import re

import pytest

import shm_leftovers

# (test id pattern, skip reason pattern) -> why this skip may stand in CI.
# Keep it short: a prerequisite that `scripts/setup.sh` installs is never
# a reason to skip.
ALLOWED_SKIPS = {
    # a kernel or container that forbids unprivileged user namespaces
    (r".*", r"user namespaces? (are|is) (not available|forbidden|disabled)"): "kernel policy, not ours to set up",
    # daemons and namespaces of the cluster tests (slurmd, two-node netns) need root
    (r"tests/cluster/", r"needs root|network namespaces are not available"): "needs root (CI containers run as root)",
    # giving a cache to another user needs root; `make test` with sudo runs as a user
    (r"test_cache_trust\.py", r"needs root|owned by root"): "needs root (CI containers run as root)",
}

CI = os.environ.get("CI", "").lower() == "true"
_skipped = []  # (test id, reason)


def _allowed(nodeid, reason):
    for (test, why), because in ALLOWED_SKIPS.items():
        if re.search(test, nodeid) and re.search(why, reason):
            return because
    return None


def _reason(report):
    if hasattr(report, "wasxfail"):
        return f"xfail: {report.wasxfail}"
    if isinstance(report.longrepr, tuple):
        return report.longrepr[2]
    return str(report.longrepr)


def pytest_runtest_logreport(report):
    if report.skipped:
        _skipped.append((report.nodeid, _reason(report)))


def pytest_collectreport(report):
    if report.skipped:  # a whole module skipped at import
        _skipped.append((report.nodeid, _reason(report)))


def _unexpected():
    return [(t, r) for t, r in _skipped if _allowed(t, r) is None]


def pytest_sessionfinish(session, exitstatus):
    if CI and _unexpected() and exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter):
    if not _skipped:
        terminalreporter.write_line("skip list: empty (no test skipped or xfailed)")
        return
    terminalreporter.section(f"skip list ({len(_skipped)})")
    for test, reason in _skipped:
        because = _allowed(test, reason)
        terminalreporter.write_line(f"{test}: {reason}" + (f"  [allowed: {because}]" if because else ""))
    bad = _unexpected()
    if CI and bad:
        terminalreporter.write_line(f"CI=true: {len(bad)} skip(s) outside tests/conftest.py's ALLOWED_SKIPS "
                                    "fail the run", red=True, bold=True)


@pytest.fixture(autouse=True)
def _no_stale_mpich5_segments():
    """Every test that runs MPICH 5 jobs (e2e, fuzz) leaves /dev/shm as it
    found it, but for segments a live job still maps (shm_leftovers)."""
    if os.environ.get("EMBEDDER_TEST_MPI") != "mpich-abi":
        yield
        return
    before = shm_leftovers.listing()
    yield
    shm_leftovers.remove_new_leftovers(before)
