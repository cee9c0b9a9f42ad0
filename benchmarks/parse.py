"""Parsers for the output of this repository's benchmark programs.

    parse_imb(stdout)       -> list of rows, one per (benchmark, processes, bytes)
    parse_hpcg(stdout)      -> dict from the final `HPCG-style result:` line
    parse_timings(stderr)   -> list of dicts, one per `embedder: timings ...` line
    parse_hpcc(text)        -> dict from HPCC 1.5.0's hpccoutf.txt
    parse_netpipe(text)     -> list of rows, one per message size of NetPIPE's np.out
    parse_unsupported(text) -> MPI functions the embedder reported as not supported
    parse_bridge(stdout)    -> dict from benchmarks/bridge/overhead.c's two lines
    parse_kernels(stdout)   -> list of rows, one per benchmarks/kernels/kernels.c kernel

They read the real output formats of benchmarks/imb/imb.c (IMB-MPI1 tables),
benchmarks/hpcg (its machine-readable last line and CHECK lines), the
external HPCC and NetPIPE (benchmarks/external) and the embedder's
`--timings` option and error messages. Lines they do not recognise (mpirun notices,
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


# ---------------------------------------------------------------------------
# HPCC 1.5.0 (hpccoutf.txt)

# Summary-section keys reported per run: key -> (test, metric, unit, scale, better).
# value = summary value * scale; better says which direction is faster.
HPCC_METRICS = [
    ("HPL_Tflops", "HPL", "HPL", "GFLOP/s", 1000.0, "higher"),
    ("StarDGEMM_Gflops", "DGEMM", "StarDGEMM", "GFLOP/s", 1.0, "higher"),
    ("SingleDGEMM_Gflops", "DGEMM", "SingleDGEMM", "GFLOP/s", 1.0, "higher"),
    ("StarSTREAM_Copy", "STREAM", "StarSTREAM Copy", "GB/s", 1.0, "higher"),
    ("StarSTREAM_Scale", "STREAM", "StarSTREAM Scale", "GB/s", 1.0, "higher"),
    ("StarSTREAM_Add", "STREAM", "StarSTREAM Add", "GB/s", 1.0, "higher"),
    ("StarSTREAM_Triad", "STREAM", "StarSTREAM Triad", "GB/s", 1.0, "higher"),
    ("SingleSTREAM_Triad", "STREAM", "SingleSTREAM Triad", "GB/s", 1.0, "higher"),
    ("PTRANS_GBs", "PTRANS", "PTRANS", "GB/s", 1.0, "higher"),
    ("MPIRandomAccess_GUPs", "RandomAccess", "MPIRandomAccess", "GUP/s", 1.0, "higher"),
    ("MPIRandomAccess_LCG_GUPs", "RandomAccess", "MPIRandomAccess_LCG", "GUP/s", 1.0, "higher"),
    ("StarRandomAccess_GUPs", "RandomAccess", "StarRandomAccess", "GUP/s", 1.0, "higher"),
    ("SingleRandomAccess_GUPs", "RandomAccess", "SingleRandomAccess", "GUP/s", 1.0, "higher"),
    ("MPIFFT_Gflops", "FFT", "MPIFFT", "GFLOP/s", 1.0, "higher"),
    ("StarFFT_Gflops", "FFT", "StarFFT", "GFLOP/s", 1.0, "higher"),
    ("SingleFFT_Gflops", "FFT", "SingleFFT", "GFLOP/s", 1.0, "higher"),
    ("MinPingPongLatency_usec", "b_eff", "PingPong latency (min)", "µs", 1.0, "lower"),
    ("AvgPingPongLatency_usec", "b_eff", "PingPong latency (avg)", "µs", 1.0, "lower"),
    ("NaturallyOrderedRingLatency_usec", "b_eff", "natural ring latency", "µs", 1.0, "lower"),
    ("RandomlyOrderedRingLatency_usec", "b_eff", "random ring latency", "µs", 1.0, "lower"),
    ("MaxPingPongBandwidth_GBytes", "b_eff", "PingPong bandwidth (max)", "GB/s", 1.0, "higher"),
    ("AvgPingPongBandwidth_GBytes", "b_eff", "PingPong bandwidth (avg)", "GB/s", 1.0, "higher"),
    ("NaturallyOrderedRingBandwidth_GBytes", "b_eff", "natural ring bandwidth", "GB/s", 1.0, "higher"),
    ("RandomlyOrderedRingBandwidth_GBytes", "b_eff", "random ring bandwidth", "GB/s", 1.0, "higher"),
]
HPCC_BANNER = "This is the DARPA/DOE HPC Challenge Benchmark"
_HPCC_SECTION = re.compile(r"^(Begin|End) of (\S+) section\.\s*$", re.M)
_HPCC_HPL_ROW = re.compile(r"^(W\S+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+([0-9.eE+-]+)\s+([0-9.eE+-]+)\s*$", re.M)
_HPCC_HPL_RESID = re.compile(r"^\|\|Ax-b\|\|_oo/\(eps\*.*=\s*([0-9.eE+-]+|nan|inf)\s*\.+\s*(PASSED|FAILED)\s*$",
                             re.M | re.I)
_HPCC_NODE_ERRORS = re.compile(r"^Node\(s\) with error (\d+)", re.M)
_HPCC_RA_ERRORS = re.compile(r"^Found (\d+) errors in (\d+) locations \((passed|failed)\)", re.M)
_HPCC_PTRANS_ROW = re.compile(r"^WALL\s.*\s(PASSED|FAILED)\s", re.M)


def _number(text):
    try:
        return int(text)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            return text


def _hpcc_section_check(name, body):
    """PASSED / FAILED / None (nothing to check) for one section's text,
    from the markers HPCC prints there."""
    failed = passed = False
    for m in _HPCC_NODE_ERRORS.finditer(body):  # DGEMM, STREAM, RandomAccess, FFT (Star/Single)
        failed |= int(m.group(1)) != 0
        passed = True
    for m in _HPCC_RA_ERRORS.finditer(body):  # RandomAccess verification (HPCC allows 1 %)
        failed |= m.group(3) == "failed"
        passed = True
    if "Solution Validates" in body:  # STREAM
        passed = True
    if "Failed Validation" in body:
        failed = True
    if name == "PTRANS":
        checks = _HPCC_PTRANS_ROW.findall(body)
        failed |= "FAILED" in checks
        passed |= bool(checks)
    if name == "HPL":
        checks = [c.upper() for _, c in _HPCC_HPL_RESID.findall(body)]
        failed |= "FAILED" in checks or not checks
        passed |= bool(checks)
    return "FAILED" if failed else ("PASSED" if passed else None)


def parse_hpcc(text):
    """HPCC 1.5.0's hpccoutf.txt (the last run in it: HPCC appends).

    Returns a dict: summary (key -> int/float/str of the `Begin of Summary
    section`, {} if the run did not get there), success (its Success=1 as a
    bool; None without summary), complete (the closing banner is there),
    sections (names in the order they began), finished (names that ended),
    checks ({section: PASSED|FAILED} for sections with a verification marker),
    hpl (the HPL result row and residual check, or None) and metrics (one dict
    per HPCC_METRICS key in the summary: test, metric, unit, better, key,
    value). Raises ValueError if `text` is not HPCC output."""
    at = text.rfind(HPCC_BANNER)
    if at < 0:
        raise ValueError("not HPCC output (no banner)")
    text = text[at:]
    sections, finished, bodies, start = [], [], {}, {}
    for m in _HPCC_SECTION.finditer(text):
        kind, name = m.groups()
        if kind == "Begin":
            sections.append(name)
            start[name] = m.end()
        elif name in start:
            finished.append(name)
            bodies[name] = text[start[name]:m.start()]
    for name in sections:  # the section the run died in: check what it printed
        if name not in bodies and name != "Summary":
            bodies[name] = text[start[name]:]
    summary = {}
    if "Summary" in bodies:
        for line in bodies["Summary"].splitlines():
            key, eq, value = line.partition("=")
            if eq and key.strip():
                summary[key.strip()] = _number(value.strip())
    checks = {}
    for name, body in bodies.items():
        if name == "Summary":
            continue
        verdict = _hpcc_section_check(name, body)
        if verdict:
            checks[name] = verdict
    hpl = None
    if "HPL" in bodies:
        rows = _HPCC_HPL_ROW.findall(bodies["HPL"])
        res = _HPCC_HPL_RESID.findall(bodies["HPL"])
        if rows:
            tv, n, nb, p, q, t, gf = rows[-1]
            hpl = {"tv": tv, "n": int(n), "nb": int(nb), "p": int(p), "q": int(q), "time_s": float(t),
                   "gflops": float(gf), "residual": float(res[-1][0]) if res else None,
                   "check": res[-1][1].upper() if res else None}
    metrics = []
    for key, test, metric, unit, scale, better in HPCC_METRICS:
        value = summary.get(key)
        if isinstance(value, (int, float)) and value >= 0:  # HPCC prints -1 for a test it did not run
            metrics.append({"test": test, "metric": metric, "unit": unit, "better": better, "key": key,
                            "value": value * scale})
    return {"summary": summary, "success": (summary.get("Success") == 1) if "Success" in summary else None,
            "complete": "End of HPC Challenge tests." in text, "sections": sections, "finished": finished,
            "checks": checks, "hpl": hpl, "metrics": metrics}


# ---------------------------------------------------------------------------
# NetPIPE 3.7.2 (np.out)

_NUMBER = r"[-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?"
_NETPIPE_ROW = re.compile(rf"^\s*(\d+)\s+({_NUMBER})\s+({_NUMBER})\s*$")


def parse_netpipe(text):
    """NetPIPE's output file (np.out, `-o FILE`): one line per message size,
    `bytes  Mbps  seconds` (Mbps = 10^6 bits/s; seconds = one-way time, half
    the measured round trip). Rows: bytes, mbps, mbytes_per_sec (10^6 B/s),
    usec (one-way time in µs). A line in another format is an error."""
    rows = []
    for line in text.splitlines():
        if not line.strip():
            continue
        m = _NETPIPE_ROW.match(line)
        if not m:
            raise ValueError(f"NetPIPE: unexpected line {line!r}")
        mbps, sec = float(m.group(2)), float(m.group(3))
        rows.append({"bytes": int(m.group(1)), "mbps": mbps, "mbytes_per_sec": mbps / 8.0, "usec": sec * 1e6})
    return rows


_UNSUPPORTED = re.compile(r"\b(MPI_[A-Za-z0-9_]+) is not supported by this embedder")


def parse_unsupported(text):
    """Sorted MPI functions named in the embedder's `MPI_X is not supported by
    this embedder` messages (stderr of a wasm run)."""
    return sorted(set(_UNSUPPORTED.findall(text)))


# benchmarks/bridge/overhead.c and benchmarks/kernels/kernels.c

BRIDGE_KEYS = ("comm_rank_ns", "allreduce_1double_ns")
# printed by overhead.c since it also polls with MPI_Testany and exchanges
# with itself (MPI_Irecv, MPI_Isend, MPI_Waitall); older runs lack them
BRIDGE_OPTIONAL_KEYS = ("testany_pending_ns", "exchange_self_ns")
_BRIDGE_LINE = re.compile(rf"^({'|'.join(BRIDGE_KEYS + BRIDGE_OPTIONAL_KEYS)}) ({_NUMBER})\s*$", re.M)
_KERNEL_LINE = re.compile(r"^kernel (\S+) ([0-9.]+) (\S+) checksum ([0-9a-f]+)\s*$", re.M)


def parse_bridge(text):
    """overhead.c's `comm_rank_ns X`, `allreduce_1double_ns Y` and, if
    printed, `testany_pending_ns Z` and `exchange_self_ns W` (rank 0 prints
    them) as {key: float};
    ValueError if either of the first two is missing."""
    out = {k: float(v) for k, v in _BRIDGE_LINE.findall(text)}
    missing = [k for k in BRIDGE_KEYS if k not in out]
    if missing:
        raise ValueError(f"overhead: no {', '.join(missing)} line")
    return out


def parse_kernels(text):
    """kernels.c's `kernel NAME RATE UNIT checksum HEX` lines: rows with
    kernel, rate, unit, checksum, in the order printed."""
    return [{"kernel": k, "rate": float(r), "unit": u, "checksum": c} for k, r, u, c in _KERNEL_LINE.findall(text)]
