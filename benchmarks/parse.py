"""Parsers for the output of this repository's benchmark programs.

    parse_imb(stdout)       -> list of rows, one per (benchmark, processes, bytes)
    parse_hpcg(stdout)      -> dict from the final `HPCG-style result:` line
    parse_timings(stderr)   -> list of dicts, one per `embedder: timings ...` line

They read the real output formats of benchmarks/imb/imb.c (IMB-MPI1 tables),
benchmarks/hpcg (its machine-readable last line and CHECK lines) and the
embedder's `--timings` option. Lines they do not recognise (mpirun notices,
the programs' '#' comments) are ignored; a table row whose number of fields
does not match its header is an error, not something to skip silently.
"""
import re

IMB_BENCHMARKS = ["PingPong", "PingPing", "Sendrecv", "Exchange", "Allreduce", "Reduce",
                  "Reduce_scatter", "Allgather", "Allgatherv", "Gather", "Gatherv", "Scatter",
                  "Scatterv", "Alltoall", "Alltoallv", "Bcast", "Barrier"]
IMB_PAIR = ("PingPong", "PingPing")  # need exactly 2 active processes
IMB_COLUMNS = ["benchmark", "processes", "bytes", "repetitions", "t_min", "t_max", "t_avg",
               "mbytes_per_sec"]

# imb.c column headings -> row keys.  PingPong/PingPing print one time, t[usec].
_IMB_HEADINGS = {
    "#bytes": "bytes",
    "#repetitions": "repetitions",
    "t[usec]": "t",
    "t_min[usec]": "t_min",
    "t_max[usec]": "t_max",
    "t_avg[usec]": "t_avg",
    "Mbytes/sec": "mbytes_per_sec",
}
_BENCHMARKING = re.compile(r"^#\s*Benchmarking\s+(\S+)\s*$")
_PROCESSES = re.compile(r"^#\s*#processes\s*=\s*(\d+)")


def parse_imb(text):
    """Rows of every IMB table in `text`: dicts with the keys of IMB_COLUMNS.

    `bytes` is 0 for Barrier (its table has no #bytes column); `mbytes_per_sec`
    is None where the table has no Mbytes/sec column. For the single-time
    tables (PingPong, PingPing) t_min = t_max = t_avg = t[usec]."""
    rows = []
    bench = procs = columns = None
    for line in text.splitlines():
        stripped = line.strip()
        m = _BENCHMARKING.match(stripped)
        if m:
            bench, procs, columns = m.group(1), None, None
            continue
        if bench is None:
            continue
        m = _PROCESSES.match(stripped)
        if m:
            procs = int(m.group(1))
            continue
        if stripped.startswith("#repetitions") or stripped.startswith("#bytes"):
            fields = stripped.split()
            unknown = [f for f in fields if f not in _IMB_HEADINGS]
            if unknown:
                raise ValueError(f"IMB {bench}: unknown column(s) {unknown} in {line!r}")
            columns = [_IMB_HEADINGS[f] for f in fields]
            continue
        if stripped.startswith("#---"):
            columns = None  # a rule: the table (if any) has ended
            continue
        if not stripped or stripped.startswith("#") or columns is None:
            continue
        fields = stripped.split()
        if not all(re.fullmatch(r"-?[0-9]+(\.[0-9]*)?([eE][-+]?[0-9]+)?", f) for f in fields):
            continue  # not a table row (e.g. a launcher message on stdout)
        if len(fields) != len(columns):
            raise ValueError(f"IMB {bench}: row {line!r} has {len(fields)} fields, "
                             f"header has {len(columns)}")
        if procs is None:
            raise ValueError(f"IMB {bench}: data row before '# #processes = N'")
        raw = dict(zip(columns, fields))
        if "t" in raw:
            t_min = t_max = t_avg = float(raw["t"])
        else:
            t_min, t_max, t_avg = float(raw["t_min"]), float(raw["t_max"]), float(raw["t_avg"])
        rows.append({
            "benchmark": bench,
            "processes": procs,
            "bytes": int(raw.get("bytes", 0)),
            "repetitions": int(raw["repetitions"]),
            "t_min": t_min,
            "t_max": t_max,
            "t_avg": t_avg,
            "mbytes_per_sec": float(raw["mbytes_per_sec"]) if "mbytes_per_sec" in raw else None,
        })
    return rows


_HPCG_RESULT = re.compile(r"^HPCG-style result:(.*)$", re.M)
_HPCG_CHECK = re.compile(r"^CHECK\s+(\S+)\s.*\b(PASSED|FAILED)\s*$", re.M)
_HPCG_KEYS = {  # key in the result line -> (dict key, type)
    "GFLOP/s": ("gflops", float),
    "GB/s": ("gbs", float),
    "ranks": ("ranks", int),
    "local": ("local", str),
    "time": ("time_s", float),
    "sets": ("sets", int),
    "validation": ("validation", str),
    "procgrid": ("procgrid", str),
    "global": ("global", str),
}


def parse_hpcg(text):
    """The last `HPCG-style result: K=V ...` line of `text` as a dict (gflops,
    gbs, ranks, local, time_s, sets, validation, procgrid, global), plus
    `checks`: {check name: "PASSED"|"FAILED"} from the CHECK lines.
    Raises ValueError if there is no result line."""
    found = _HPCG_RESULT.findall(text)
    if not found:
        raise ValueError("no 'HPCG-style result:' line")
    out = {}
    for key, value in re.findall(r"(\S+?)=(\S+)", found[-1]):
        if key in _HPCG_KEYS:
            name, conv = _HPCG_KEYS[key]
            out[name] = conv(value)
    missing = [name for name, _ in _HPCG_KEYS.values() if name not in out
               and name not in ("procgrid", "global")]
    if missing:
        raise ValueError(f"HPCG result line lacks {missing}: {found[-1]!r}")
    out["checks"] = dict(_HPCG_CHECK.findall(text))
    return out


_TIMINGS = re.compile(
    r"^embedder: timings(?: rank (?P<rank>\d+))?: load (?P<load>[0-9.]+) s "
    r"\((?P<how>[^,()]+), (?P<backend>\S+) backend\), "
    r"instantiate (?P<inst>[0-9.]+) s, run (?P<run>[0-9.]+) s\s*$", re.M)
# How the compiled module was obtained, as printed -> a short name.
CACHE_OUTCOMES = {
    "cache hit": "hit",
    "cache filled by another process": "waited",
    "compiled and cached": "compiled",
    "compiled, not cached": "uncached",
}


def parse_timings(stderr):
    """One dict per `embedder: timings[ rank R]: load X s (HOW, BACKEND backend),
    instantiate Y s, run Z s` line: rank (None outside mpirun), load_s, how
    (as printed), cache (hit|waited|compiled|uncached), backend (lower case),
    instantiate_s, run_s. Sorted by rank."""
    out = []
    for m in _TIMINGS.finditer(stderr):
        how = m.group("how").strip()
        out.append({
            "rank": int(m.group("rank")) if m.group("rank") is not None else None,
            "load_s": float(m.group("load")),
            "how": how,
            "cache": CACHE_OUTCOMES.get(how, how),
            "backend": m.group("backend").lower(),
            "instantiate_s": float(m.group("inst")),
            "run_s": float(m.group("run")),
        })
    out.sort(key=lambda t: -1 if t["rank"] is None else t["rank"])
    return out


_COMPILE = re.compile(r"^(?P<module>\S.*?): (?P<how>compiled and cached|cache hit|cache filled by another process|"
                      r"compiled) \((?P<backend>\S+) backend, (?P<seconds>[0-9.]+) s\)\s*$", re.M)


def parse_compile(stderr):
    """One dict per `MODULE: HOW (BACKEND backend, X s)` line of `embedder
    compile`: module, how, cache (as in parse_timings), backend, seconds."""
    return [{"module": m.group("module"), "how": m.group("how"),
             "cache": CACHE_OUTCOMES.get(m.group("how"), m.group("how")),
             "backend": m.group("backend").lower(), "seconds": float(m.group("seconds"))}
            for m in _COMPILE.finditer(stderr)]
