"""Two "nodes" on one machine: two network namespaces joined by a veth pair,
each with its own address, hostname and /etc/hosts, so that an MPI library
started in them sees two hosts that reach each other over TCP only.

    with TwoNodes() as nodes:
        a, b = nodes.names                       # also their hostnames
        subprocess.run(nodes.on(a, ["hostname"]))
        subprocess.run(nodes.on(a, ["mpirun", "--mca", "plm_rsh_agent", NODE_EXEC,
                                    "-H", f"{a}:2,{b}:2", ...]))

A node's name is also its namespace's name, so the launcher bridge
(`node-exec`, beside this file: an ssh stand-in for Open MPI's
plm_rsh_agent and MPICH Hydra's -launcher-exec) needs no map from hosts to
namespaces. Everything is removed on leaving the block, also when the body
raises, on SIGTERM and at exit: processes still inside the namespaces, the
namespaces (and with them the veth pair) and /etc/netns/<name>.

Needs root, iproute2 (`ip`) and util-linux (`unshare`, for the hostname
and IPC namespaces: `ip netns exec` gives a network and a mount namespace
only).
"""
import atexit
import itertools
import os
import shutil
import signal
import subprocess
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
NODE_EXEC = HERE / "node-exec"
NETNS_ETC = Path("/etc/netns")
RUN_NETNS = Path("/run/netns")
# The first line of our /etc/netns/<ns>/hosts: node-exec only enters
# namespaces that have it. (Not a file of its own there: `ip netns exec`
# bind-mounts every file of that directory over /etc.)
MARKER = "# twonode: made by benchmarks/twonode/netns.py"
SUBNET = "10.201.0"
TIMEOUT = 20

# A node's own namespaces besides the network (and the mount namespace of
# `ip netns exec`): UTS for its hostname; IPC because UCX (MPICH's default
# transport here) counts processes that share the boot id and IPC namespace
# as one machine and joins them over System V shared memory, two "nodes"
# included. The PID namespace and the filesystem (/tmp, /dev/shm) stay
# shared, like a cluster's shared file system; Open MPI tells nodes apart
# by hostname and never tries shared memory between them. node-exec uses
# the same list.
UNSHARE = ("--uts", "--ipc")

# sh -c program run as `sh -c ON_NODE sh NODE argv...`: take the node's
# hostname inside the fresh UTS namespace, then become argv.
ON_NODE = 'hostname "$1" && shift && exec "$@"'


class NamespacesUnavailable(RuntimeError):
    pass


def _ip(*args, check=True):
    r = subprocess.run(["ip", *args], capture_output=True, text=True, timeout=TIMEOUT)
    if check and r.returncode != 0:
        raise RuntimeError(f"ip {' '.join(args)}: {r.stderr.strip() or r.returncode}")
    return r


def _missing_tools():
    return [t for t in ("ip", "unshare", "hostname") if shutil.which(t) is None]


class TwoNodes:
    """Context manager for the two namespaces; `names` are the node names
    (hostnames and namespace names), `addresses` their veth addresses."""

    _count = itertools.count()

    def __init__(self, tag=None, subnet=SUBNET):
        # Unique per process and instance, so concurrent runs never collide;
        # veth names are at most 15 characters.
        n = next(TwoNodes._count)
        tag = tag or (f"{os.getpid()}" if n == 0 else f"{os.getpid()}x{n}")
        self.names = (f"twonode-{tag}-a", f"twonode-{tag}-b")
        self.veths = (f"tn{tag}a"[-15:], f"tn{tag}b"[-15:])
        self.addresses = (f"{subnet}.1", f"{subnet}.2")
        self._created = []  # namespaces made so far, for a partial cleanup
        self._old_sigterm = None
        self._closed = True

    # -- set-up ---------------------------------------------------------------

    def __enter__(self):
        if os.geteuid() != 0:
            raise NamespacesUnavailable("network namespaces are not available: this needs root")
        missing = _missing_tools()
        if missing:
            raise NamespacesUnavailable(f"network namespaces are not available: {', '.join(missing)} not found")
        self._closed = False
        atexit.register(self.close)
        self._trap_sigterm()
        try:
            self._create()
        except BaseException as e:
            self.close()
            if isinstance(e, Exception) and not isinstance(e, NamespacesUnavailable):
                raise NamespacesUnavailable(f"network namespaces are not available: {e}") from e
            raise
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def _create(self):
        for name in self.names:
            _ip("netns", "add", name)
            self._created.append(name)
            self._write_etc(name)
        a, b = self.veths
        _ip("link", "add", a, "type", "veth", "peer", "name", b)
        for name, veth, addr in zip(self.names, self.veths, self.addresses):
            _ip("link", "set", veth, "netns", name)
            _ip("-n", name, "addr", "add", f"{addr}/24", "dev", veth)
            _ip("-n", name, "link", "set", veth, "up")
            _ip("-n", name, "link", "set", "lo", "up")
        self._wait_reachable()
        self._probe()

    def _write_etc(self, name):
        """/etc/netns/<ns>/hosts, which `ip netns exec` bind-mounts over
        /etc/hosts: both nodes by their veth addresses, as a cluster's hosts
        file or DNS would have them, so that the launchers (which resolve
        host names given with -H/-hosts, their own included) find both."""
        etc = NETNS_ETC / name
        etc.mkdir(parents=True, exist_ok=True)
        hosts = [f"{MARKER} (pid {os.getpid()})", "127.0.0.1 localhost", "::1 localhost"]
        hosts += [f"{addr} {node}" for addr, node in zip(self.addresses, self.names)]
        (etc / "hosts").write_text("\n".join(hosts) + "\n")

    def _wait_reachable(self):
        """The veth pair is usable once its links are up on both sides (a
        freshly-upped veth can take a moment to report carrier)."""
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            states = [_ip("-n", n, "-br", "link", "show", v).stdout for n, v in zip(self.names, self.veths)]
            if all(" UP " in s or "LOWER_UP" in s for s in states):
                return
            time.sleep(0.05)
        raise RuntimeError(f"veth pair {self.veths} did not come up")

    def _probe(self):
        """Each node runs a command and has its own hostname (unshare can be
        refused where `ip netns add` was not, e.g. without CAP_SYS_ADMIN)."""
        for node in self.names:
            r = subprocess.run(self.on(node, ["hostname"]), capture_output=True, text=True, timeout=TIMEOUT)
            if r.returncode != 0 or r.stdout.strip() != node:
                raise RuntimeError(f"cannot run a command on {node}: {r.stderr.strip() or r.stdout.strip()}")

    # -- use ------------------------------------------------------------------

    def on(self, node, argv):
        """argv to run `argv` on `node`: in its network namespace (and the
        mount namespace that carries its /etc/hosts), in UTS and IPC
        namespaces of its own, the hostname being the node's name. Every
        call makes fresh UTS and IPC namespaces, so processes that must
        share a node's System V IPC descend from one such call (as an MPI
        job's ranks descend from mpirun or the remote daemon)."""
        if node not in self.names:
            raise ValueError(f"{node!r} is not one of {self.names}")
        return ["ip", "netns", "exec", node, "unshare", *UNSHARE, "sh", "-c", ON_NODE, "sh", node,
                *map(str, argv)]

    def run(self, node, argv, timeout, **kw):
        """subprocess.run(self.on(node, argv)) with output captured as text.
        On a timeout everything in both namespaces is killed first (a
        launcher killed alone leaves its daemon and ranks running), then
        subprocess.TimeoutExpired is raised with the output so far."""
        kw.setdefault("capture_output", True)
        kw.setdefault("text", True)
        try:
            return subprocess.run(self.on(node, argv), timeout=timeout, **kw)
        except subprocess.TimeoutExpired:
            self.kill_all()
            raise

    def pids(self, node):
        r = _ip("netns", "pids", node, check=False)
        return [int(p) for p in r.stdout.split() if p.isdigit()]

    def kill_all(self):
        """SIGKILL every process inside the two namespaces."""
        for name in self._created:
            self._kill_inside(name)

    # -- clean-up -------------------------------------------------------------

    def close(self):
        """Idempotent; safe after a partial set-up. Every step is tried even
        if one before it failed; the first failure is raised at the end."""
        if self._closed:
            return
        self._closed = True
        errors = []
        try:
            for step in (self.kill_all, self._delete_links, self._delete_namespaces):
                try:
                    step()
                except Exception as e:  # noqa: BLE001  go on cleaning up
                    errors.append(e)
            self._created = []
        finally:
            atexit.unregister(self.close)
            self._restore_sigterm()
        if errors:
            raise errors[0]

    def _delete_links(self):
        """Deleting a namespace deletes its end of the veth and so the pair;
        a pair still in the root namespace (set-up failed halfway) goes here."""
        for veth in self.veths:
            if Path(f"/sys/class/net/{veth}").exists():
                _ip("link", "del", veth, check=False)

    def _delete_namespaces(self):
        for name in self.names:
            if (RUN_NETNS / name).exists():
                _ip("netns", "del", name, check=False)
            shutil.rmtree(NETNS_ETC / name, ignore_errors=True)

    def _kill_inside(self, name):
        """SIGKILL whatever still runs in the namespace (an orted or a rank a
        failed launch left): `ip netns del` only unmounts the name, and the
        namespace lives on while a process is in it."""
        for _ in range(50):
            pids = [p for p in self.pids(name) if p != os.getpid()]
            if not pids:
                return
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            time.sleep(0.05)

    def _trap_sigterm(self):
        """On SIGTERM, clean up first, then do what the previous handler
        would (by default: die of the signal). Cleaning up in the handler
        rather than raising SystemExit works under any caller: pytest, for
        one, records a SystemExit in a test as a failure and carries on."""
        if threading.current_thread() is not threading.main_thread():
            return  # signals are only handled there; atexit still covers us

        def on_sigterm(signum, frame):
            previous = self._old_sigterm
            signal.signal(signal.SIGTERM, signal.SIG_IGN)  # a second one must not cut the cleanup short
            self.close()  # restores `previous`
            if callable(previous):
                previous(signum, frame)
            elif previous != signal.SIG_IGN:
                os.kill(os.getpid(), signum)  # the default action, now restored

        # None: a handler installed outside Python; SIG_DFL is the nearest
        self._old_sigterm = signal.signal(signal.SIGTERM, on_sigterm) or signal.SIG_DFL

    def _restore_sigterm(self):
        if self._old_sigterm is None or threading.current_thread() is not threading.main_thread():
            return
        signal.signal(signal.SIGTERM, self._old_sigterm)
        self._old_sigterm = None


def leftovers():
    """Namespaces a killed run of this module left (for a manual clean-up)."""
    return sorted(p.parent.name for p in NETNS_ETC.glob("twonode-*/hosts") if p.read_text().startswith(MARKER))
