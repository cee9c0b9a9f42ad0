#!/usr/bin/env python3
"""Download the upstream sources of the external benchmarks from Debian's
source packages and check them against pinned SHA-256 hashes.

    python3 benchmarks/external/fetch.py [--dir DIR] [--mirror URL] [NAME ...]

The Debian archive is the one this machine's apt uses (the first source in
/etc/apt that serves the release's own suite with `main`), unless --mirror
or DEBIAN_MIRROR names another; no archive is built in.

The tarballs are the `.orig.tar.*` files of Debian 12 (bookworm)'s source
packages hpcc 1.5.0-3, netpipe 3.7.2-8 and mpich 4.0.2-3 (for ROMIO's
tests, see romio.py), i.e. the unmodified upstream releases. Their sizes
and hashes are those listed in the packages' `.dsc` files
(Checksums-Sha256), pinned below. NAME fetches only those (default: all). A file already in DIR with the right
hash is not downloaded again; a download with a wrong hash is deleted and is
an error. Default DIR: $XDG_CACHE_HOME/mpi-wasm-embedder-sources (or
~/.cache/...): outside the clone, so a fresh clone reuses what an earlier
one fetched.
"""
import argparse
import hashlib
import os
import re
import sys
import tempfile
import urllib.error
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "scripts"))
import apt_sources  # noqa: E402  scripts/apt_sources.py
BUILD = HERE / "build"
# verified tarballs outlive the clone (and its `git clean`)
DOWNLOADS = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "mpi-wasm-embedder-sources"
APT_DIR = Path("/etc/apt")

# name -> what to fetch. `pool` is the path under the mirror; sha256 and size
# come from the Checksums-Sha256 field of the bookworm source package's .dsc.
SOURCES = {
    "hpcc": {
        "debian_source": "hpcc 1.5.0-3 (bookworm)",
        "pool": "pool/main/h/hpcc/hpcc_1.5.0.orig.tar.gz",
        "sha256": "0a6fef7ab9f3347e549fed65ebb98234feea9ee18aea0c8f59baefbe3cf7ffb8",
        "size": 655993,
        "topdir": "hpcc-1.5.0",
    },
    "netpipe": {
        "debian_source": "netpipe 3.7.2-8 (bookworm)",
        "pool": "pool/main/n/netpipe/netpipe_3.7.2.orig.tar.gz",
        "sha256": "13dac884ff52951636f651c421f5ff4a853218a95aa28a4a852402ee385a2ab8",
        "size": 400248,
        "topdir": "NetPIPE-3.7.2",
    },
    # MPICH's source, for ROMIO's MPI-IO tests (src/mpi/romio/test/, run by
    # romio.py); Debian ships MPICH's upstream tarball as .orig.tar.xz.
    "mpich": {
        "debian_source": "mpich 4.0.2-3 (bookworm)",
        "pool": "pool/main/m/mpich/mpich_4.0.2.orig.tar.xz",
        "sha256": "b27039f964afeb6b8a3e009c56b441cbe368c26d6d6476ad3bb7190996875860",
        "size": 21800484,
        "topdir": "mpich-4.0.2",
    },
    # parallel HDF5's testpar programs (hdf5.py); Debian repacks the upstream
    # release (docs with non-free files dropped) as +repack1.orig.tar.gz.
    "hdf5": {
        "debian_source": "hdf5 1.10.8+repack1-1 (bookworm)",
        "pool": "pool/main/h/hdf5/hdf5_1.10.8+repack1.orig.tar.gz",
        "sha256": "7b38e58ff83b13fd8959a90b13bf896bc318ba096c940ab0847abf3ad41a0b31",
        "size": 13422843,
        "topdir": "hdf5-1.10.8+repack1",
    },
    # realcodes (benchmarks/realcodes/): applications built unmodified with
    # their own build systems, natively and through the toolchain
    "fftw3": {
        "debian_source": "fftw3 3.3.10-1 (bookworm)",
        "pool": "pool/main/f/fftw3/fftw3_3.3.10.orig.tar.gz",
        "sha256": "56c932549852cddcfafdab3820b0200c7742675be92179e59e6215b340e26467",
        "size": 4144100,
        "topdir": "fftw-3.3.10",
    },
    "hypre": {
        "debian_source": "hypre 2.26.0-3 (bookworm)",
        "pool": "pool/main/h/hypre/hypre_2.26.0.orig.tar.gz",
        "sha256": "c214084bddc61a06f3758d82947f7f831e76d7e3edeac2c78bb82d597686e05d",
        "size": 6727243,
        "topdir": "hypre-2.26.0",
    },
    "p4est": {
        "debian_source": "p4est 2.2-3 (bookworm)",
        "pool": "pool/main/p/p4est/p4est_2.2.orig.tar.xz",
        "sha256": "f09a799d99e541c8f06a9ad3f1e7dc74362ad96a7938a69c7fbd4103516f86c9",
        "size": 625900,
        "topdir": "p4est-2.2",
    },
}


class FetchError(Exception):
    """A download failed or a file does not match its pinned hash."""


class MirrorUnreachable(FetchError):
    """No Debian archive could be reached (no network, or none configured)."""


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def verify(path, name):
    """Raise FetchError unless `path` has the pinned size and SHA-256 of `name`."""
    src = SOURCES[name]
    size = os.path.getsize(path)
    if size != src["size"]:
        raise FetchError(f"{path}: {size} bytes, expected {src['size']} ({src['debian_source']})")
    digest = sha256(path)
    if digest != src["sha256"]:
        raise FetchError(f"{path}: SHA-256 {digest}, expected {src['sha256']} ({src['debian_source']})")


def apt_mirror(apt_dir=APT_DIR, codename=None):
    """The Debian archive this machine's apt uses: the URI of the first source
    that serves the release's own suite (e.g. `bookworm`, not
    `bookworm-security`) with `main`; None if there is none."""
    if codename is None:
        os_release = Path("/etc/os-release")
        text = os_release.read_text() if os_release.exists() else ""
        m = re.search(r"^VERSION_CODENAME=\"?([^\"\n]*)", text, re.M)
        codename = m.group(1) if m else ""
    source = apt_sources.first(codename, apt_dir, ("deb", "deb-src"), "main") if codename else None
    return source.uris[0] if source else None


def default_mirror():
    """DEBIAN_MIRROR, else the archive apt uses; FetchError if neither names one."""
    mirror = os.environ.get("DEBIAN_MIRROR") or apt_mirror()
    if not mirror:
        raise MirrorUnreachable(f"no Debian archive in {APT_DIR}'s sources: pass --mirror URL or set DEBIAN_MIRROR")
    return mirror


def url(name, mirror=None):
    return f"{(mirror or default_mirror()).rstrip('/')}/{SOURCES[name]['pool']}"


def fetch(name, dest=DOWNLOADS, mirror=None, log=print, timeout=120):
    """Path of the verified tarball of `name` in `dest`, downloading it if
    needed. Raises MirrorUnreachable (no connection) or FetchError."""
    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    path = dest / Path(SOURCES[name]["pool"]).name
    if path.exists():
        try:
            verify(path, name)
            return path
        except FetchError as e:
            log(f"fetch: {e}; downloading again")
            path.unlink()
    link = url(name, mirror)
    log(f"fetch: {link}")
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", dir=dest)
    try:
        with os.fdopen(fd, "wb") as out:
            try:
                with urllib.request.urlopen(link, timeout=timeout) as resp:
                    while True:
                        block = resp.read(1 << 16)
                        if not block:
                            break
                        out.write(block)
            except urllib.error.HTTPError as e:  # the mirror answered: not a network problem
                raise FetchError(f"{link}: HTTP {e.code} {e.reason}") from e
            except (urllib.error.URLError, OSError) as e:
                raise MirrorUnreachable(f"{link}: {getattr(e, 'reason', e)}") from e
        verify(tmp, name)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return path


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dir", type=Path, default=DOWNLOADS, help=f"download directory (default {DOWNLOADS})")
    ap.add_argument("--mirror", help="Debian archive URL (default: env DEBIAN_MIRROR, else the one apt uses)")
    ap.add_argument("names", nargs="*", metavar="NAME",
                    help=f"what to fetch: {', '.join(SOURCES)} (default: all)")
    args = ap.parse_args(argv)
    unknown = [n for n in args.names if n not in SOURCES]
    if unknown:
        ap.error(f"unknown source {', '.join(unknown)} (known: {', '.join(SOURCES)})")
    try:
        for name in args.names or SOURCES:
            print(f"{name}: {fetch(name, args.dir, args.mirror)} (sha256 ok)")
    except FetchError as e:
        print(f"fetch: error: {e}", file=sys.stderr)
        return 2 if isinstance(e, MirrorUnreachable) else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
