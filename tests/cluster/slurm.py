"""A real Slurm on this machine, for the job-script tests: Debian's munged,
slurmctld and two slurmd daemons ("multiple slurmd" on one host), each slurmd
in UTS and mount namespaces of its own, so its jobs see their node's host name
(node1, node2) and an /etc/hosts that resolves both. The MPIs then treat the
two as separate hosts (shared memory within one, TCP between them), as on a
cluster. Everything lives in one temporary directory; stop() ends every
daemon and every process of the jobs, whatever state the tests left.

    with SlurmCluster(tmpdir) as slurm:
        slurm.run(["sbatch", "--wait", script])
"""
import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

NODES = ("node1", "node2")
CORES_PER_NODE = 4  # more than the machine has: jobs may oversubscribe its cores
DAEMONS = ("munged", "slurmctld", "slurmd", "srun", "sbatch", "salloc", "scancel", "squeue", "sinfo", "unshare")


class SlurmError(RuntimeError):
    pass


def pids_with_env(assignment, sessions=()):
    """Live processes (not this one) whose environment holds `assignment`
    ("NAME=value"), or that lead or belong to one of `sessions`."""
    marker = assignment.encode()
    pids = set()
    for p in Path("/proc").iterdir():
        if not p.name.isdigit() or int(p.name) == os.getpid():
            continue
        try:
            sid = int((p / "stat").read_text().rsplit(")", 1)[1].split()[3])
            if sid in sessions or marker in (p / "environ").read_bytes().split(b"\0"):
                pids.add(int(p.name))
        except (OSError, ValueError, IndexError):
            pass
    return pids


def free_ports(n):
    socks = [socket.socket() for _ in range(n)]
    try:
        for s in socks:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def missing_tools():
    return [t for t in DAEMONS if not shutil.which(t) and not Path("/usr/sbin", t).exists()]


class SlurmCluster:
    def __init__(self, root):
        self.root = Path(root)
        self.conf = self.root / "slurm.conf"
        self.munge_socket = self.root / "munge" / "socket"
        self.procs = []  # (name, Popen)
        self.env = dict(os.environ, SLURM_CONF=str(self.conf))
        for var in [k for k in self.env if k.startswith(("SLURM_", "SBATCH_", "SALLOC_", "SRUN_"))]:
            if var != "SLURM_CONF":  # the tests may run inside someone's allocation
                del self.env[var]

    def __enter__(self):
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc):
        self.stop()

    # -- set-up ---------------------------------------------------------------

    def start(self):
        if os.geteuid() != 0:
            raise SlurmError("needs root: slurmd starts job steps as their users")
        missing = missing_tools()
        if missing:
            raise SlurmError(f"missing {', '.join(missing)}: run scripts/setup.sh (Debian's slurmctld, slurmd, "
                             "slurm-client, munge)")
        for d in ("munge", "state", "log", *(f"spool/{n}" for n in NODES), *(f"tmp/{n}" for n in NODES)):
            (self.root / d).mkdir(parents=True, exist_ok=True)
        self.root.chmod(0o755)  # munged wants its socket's directories searchable by all
        (self.root / "munge").chmod(0o755)
        self._start_munge()
        ctld_port, *node_ports = free_ports(1 + len(NODES))
        self.conf.write_text(self._config(ctld_port, node_ports))
        (self.root / "hosts").write_text("127.0.0.1 localhost\n" + "".join(f"127.0.0.1 {n}\n" for n in NODES))
        self._spawn("slurmctld", ["slurmctld", "-D", "-f", str(self.conf)])
        for node in NODES:
            # own host name and /etc/hosts for the node's daemon and every job process it starts
            inner = (f"mount --bind {self.root}/hosts /etc/hosts && hostname {node} && "
                     f"exec slurmd -D -f {self.conf} -N {node}")
            self._spawn(f"slurmd-{node}", ["unshare", "--uts", "--mount", "--propagation", "private",
                                           "sh", "-c", inner])
        self._wait_idle()

    def _start_munge(self):
        key = self.root / "munge" / "munge.key"
        subprocess.run(["mungekey", "--create", "--keyfile", str(key)], check=True, capture_output=True)
        self._spawn("munged", ["munged", "--foreground", "--force", f"--socket={self.munge_socket}",
                               f"--key-file={key}", f"--pid-file={self.root}/munge/pid",
                               f"--seed-file={self.root}/munge/seed", f"--log-file={self.root}/log/munged.log"])
        deadline = time.monotonic() + 20
        while not self.munge_socket.exists():
            self._check_alive()
            if time.monotonic() > deadline:
                raise SlurmError("munged did not create its socket in 20 s")
            time.sleep(0.1)

    def _config(self, ctld_port, node_ports):
        r = self.root
        nodes = "".join(
            f"NodeName={n} NodeHostname={n} NodeAddr=127.0.0.1 Port={p} Sockets=1 "
            f"CoresPerSocket={CORES_PER_NODE} ThreadsPerCore=1 RealMemory=2000\n"
            for n, p in zip(NODES, node_ports))
        return f"""# generated by tests/cluster/slurm.py
ClusterName=wasmtest
SlurmctldHost={socket.gethostname()}(127.0.0.1)
SlurmctldPort={ctld_port}
AuthType=auth/munge
AuthInfo=socket={self.munge_socket}
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation={r}/state
SlurmdSpoolDir={r}/spool/%n
SlurmctldPidFile={r}/slurmctld.pid
SlurmdPidFile={r}/slurmd.%n.pid
SlurmctldLogFile={r}/log/slurmctld.log
SlurmdLogFile={r}/log/slurmd.%n.log
# PMIx's per-step directories: per node, or two slurmd on one host collide
TmpFS={r}/tmp/%n
# the node's cores as configured, not as detected (both nodes share 2 cores)
SlurmdParameters=config_overrides
ProctrackType=proctrack/pgid
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
MpiDefault=none
ReturnToService=2
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
KillWait=5
MinJobAge=600
{nodes}PartitionName=debug Nodes={','.join(NODES)} Default=YES MaxTime=INFINITE State=UP
"""

    def _spawn(self, name, cmd):
        log = open(self.root / "log" / f"{name}.out", "w")
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=self.env, start_new_session=True)
        log.close()
        self.procs.append((name, proc))

    def _check_alive(self):
        for name, proc in self.procs:
            if proc.poll() is not None:
                raise SlurmError(f"{name} exited with {proc.returncode}:\n{self.logs()}")

    def _wait_idle(self, timeout=60):
        deadline = time.monotonic() + timeout
        out = ""
        while time.monotonic() < deadline:
            self._check_alive()
            r = self.run(["sinfo", "-h", "-N", "-o", "%N %t"], check=False, timeout=10)
            out = r.stdout
            states = dict(line.split() for line in out.splitlines() if line.strip())
            if all(states.get(n) == "idle" for n in NODES):
                return
            time.sleep(0.5)
        raise SlurmError(f"nodes not idle after {timeout} s (sinfo: {out!r}):\n{self.logs()}")

    # -- use ------------------------------------------------------------------

    def run(self, cmd, timeout=120, check=True, env=None, **kw):
        """A Slurm client command (or anything) with this cluster's SLURM_CONF."""
        full_env = dict(self.env, **(env or {}))
        r = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=timeout, env=full_env, **kw)
        if check and r.returncode != 0:
            raise SlurmError(f"{' '.join(map(str, cmd))}: exit {r.returncode}\n{r.stdout}\n{r.stderr}")
        return r

    def job_processes(self, job_id):
        """Pids of live processes that belong to job `job_id` (by SLURM_JOB_ID
        in their environment)."""
        return sorted(pids_with_env(f"SLURM_JOB_ID={job_id}"))

    def logs(self, tail=40):
        parts = []
        for f in sorted((self.root / "log").glob("*")):
            try:
                lines = f.read_text(errors="replace").splitlines()[-tail:]
            except OSError:
                continue
            parts.append(f"--- {f.name}\n" + "\n".join(lines))
        return "\n".join(parts)

    # -- tear-down -------------------------------------------------------------

    def _our_processes(self):
        """Every process started under this cluster: its daemons' sessions and
        anything whose environment names this cluster's configuration (job
        scripts, steps, ranks, mpirun's daemons)."""
        return pids_with_env(f"SLURM_CONF={self.conf}", sessions={proc.pid for _, proc in self.procs})

    def stop(self):
        if self.conf.exists() and any(proc.poll() is None for _, proc in self.procs):
            try:
                self.run(["scancel", "--full", "--user", "root"], check=False, timeout=20)
                deadline = time.monotonic() + 20
                while time.monotonic() < deadline:
                    r = self.run(["squeue", "-h"], check=False, timeout=10)
                    if r.returncode != 0 or not r.stdout.strip():
                        break
                    time.sleep(0.5)
            except (subprocess.TimeoutExpired, OSError):
                pass
        for sig in (signal.SIGTERM, signal.SIGKILL):
            for pid in self._our_processes():
                try:
                    os.kill(pid, sig)
                except ProcessLookupError:
                    pass
            for _, proc in self.procs:
                try:
                    proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    pass
            if sig == signal.SIGTERM:
                time.sleep(0.5)
        self.procs = []
