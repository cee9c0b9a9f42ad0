"""Process helpers shared by the benchmark and client-suite drivers."""

import os
import shlex
import signal
import subprocess
import time


def first_line(cmd):
    """First non-empty line a tool prints (for version stamps in meta.json)."""
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
        lines = [x.strip() for x in (p.stdout + p.stderr).splitlines() if x.strip()]
        return lines[0] if lines else ""
    except (OSError, subprocess.SubprocessError) as e:
        return f"unavailable ({e})"


def run_logged(cmd, cwd, timeout, log_file, append=False):
    """(exit code or None on timeout, seconds, stdout, stderr), with the command
    line and both streams written to log_file. The command gets its own
    process group, and only that group is killed on timeout (an mpirun's
    ranks go with it, nothing else of the caller's)."""
    t0 = time.monotonic()
    with open(log_file, "a" if append else "w") as lf:
        lf.write(f"$ (cd {cwd} && {shlex.join(map(str, cmd))})\n")
    proc = subprocess.Popen([str(c) for c in cmd], cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL, text=True, errors="replace", start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
        rc = proc.returncode
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        rc = None
    secs = time.monotonic() - t0
    with open(log_file, "a") as lf:
        lf.write(f"--- stdout\n{out}--- stderr\n{err}--- exit {rc if rc is not None else 'timeout'} "
                 f"after {secs:.1f} s\n\n")
    return rc, secs, out, err
