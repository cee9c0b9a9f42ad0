#!/usr/bin/env python3
"""The package archives this machine's apt is configured with, read as apt
reads them: sources.list, then sources.list.d/*.list and *.sources (other
names are ignored, as apt ignores them); deb822 stanzas with continuation
lines, comments and `Enabled: no`; one-line entries with their [options].
The project takes every Debian download from here (benchmarks/external,
docker/make-base-image.sh), so no archive host is built in.

    python3 scripts/apt_sources.py [--apt-dir DIR] [--deb-src] SUITE

prints "URI<TAB>COMPONENTS<TAB>SIGNED-BY" of the first enabled `deb` source
(with --deb-src: `deb` or `deb-src`) serving SUITE; exits 1 if there is none.
"""
import argparse
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

APT_DIR = Path("/etc/apt")


@dataclass
class Source:
    types: list
    uris: list
    suites: list
    components: list
    signed_by: str = ""
    options: dict = field(default_factory=dict)


def _files(apt_dir):
    listed = sorted(f for f in (apt_dir / "sources.list.d").glob("*") if f.suffix in (".list", ".sources"))
    return [f for f in [apt_dir / "sources.list", *listed] if f.is_file()]


def _deb822(text):
    for stanza in re.split(r"\n[ \t]*\n", text):
        fields, key = {}, None
        for line in stanza.splitlines():
            if line.lstrip().startswith("#"):
                continue
            if line[:1] in (" ", "\t") and key:  # a continuation of the field above
                fields[key] += " " + line.strip()
            elif ":" in line:
                key, value = line.split(":", 1)
                key = key.strip().lower()
                fields[key] = value.strip()
        if fields and fields.get("enabled", "yes").lower() != "no":
            yield Source(fields.get("types", "").split(), fields.get("uris", "").split(),
                         fields.get("suites", "").split(), fields.get("components", "").split(),
                         fields.get("signed-by", "").strip())


def _one_line(text):
    for line in text.splitlines():
        words = line.split("#", 1)[0].split()
        if len(words) < 3 or words[0] not in ("deb", "deb-src"):
            continue
        kind, rest, options = words[0], words[1:], {}
        if rest[0].startswith("["):  # options run to the word that ends with "]"
            opts = []
            while rest:
                word = rest.pop(0)
                opts.append(word)
                if word.endswith("]"):
                    break
            for opt in " ".join(opts).strip("[] ").split():
                if "=" in opt:
                    k, v = opt.split("=", 1)
                    options[k] = v
        if len(rest) >= 2:
            yield Source([kind], [rest[0]], [rest[1]], rest[2:], options.get("signed-by", ""), options)


def sources(apt_dir=APT_DIR):
    """Every enabled source, in apt's order."""
    for f in _files(Path(apt_dir)):
        text = f.read_text(errors="replace")
        yield from (_deb822(text) if f.suffix == ".sources" else _one_line(text))


def first(suite, apt_dir=APT_DIR, types=("deb",), component=None):
    """The first enabled source of one of `types` serving `suite` (and
    `component`, if given), or None."""
    for s in sources(apt_dir):
        if suite in s.suites and s.uris and set(types) & set(s.types) and (component is None or component in s.components):
            return s
    return None


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--apt-dir", type=Path, default=APT_DIR, help=f"apt's configuration (default {APT_DIR})")
    ap.add_argument("--deb-src", action="store_true", help="accept deb-src sources too")
    ap.add_argument("suite")
    args = ap.parse_args(argv)
    s = first(args.suite, args.apt_dir, ("deb", "deb-src") if args.deb_src else ("deb",))
    if s is None:
        return 1
    print("\t".join([s.uris[0], " ".join(s.components), s.signed_by]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
