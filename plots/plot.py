#!/usr/bin/env python3
"""Figures, tables and a Markdown report from one benchmarks/run.py results
directory.

    python3 plots/plot.py results/<timestamp>

Writes RESULTS/plots/ (imb_<Benchmark>.png/.svg, hpcg_gflops.png/.svg,
backends.png/.svg, hpcc_ratio.png/.svg, netpipe.png/.svg and the aggregated
tables as CSV, including bridge_summary.csv, kernels_summary.csv and
model_projection.csv) and RESULTS/report.md.
See plots/README.md for what each figure shows.
"""
import argparse
import json
import math
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.ticker  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks" / "model"))
import calls as model_calls  # noqa: E402  benchmarks/model/calls.py
import project as model_project  # noqa: E402  benchmarks/model/project.py
from parse import HPCC_METRICS, IMB_BENCHMARKS  # noqa: E402

KINDS = ("native", "wasm")
STYLE = {"native": {"linestyle": "-", "marker": "o"}, "wasm": {"linestyle": "--", "marker": "s"}}
SLOWDOWN_FORMULA = "slowdown = GM over message sizes s of (t_wasm(s) / t_native(s)) − 1"


def read(results, name):
    path = results / name
    if not path.exists() or path.stat().st_size == 0:
        return pd.DataFrame()
    return pd.read_csv(path)


# ---------------------------------------------------------------------------
# Aggregation


def imb_aggregate(imb):
    """Per (benchmark, ranks, processes, kind, bytes): t = median of t_avg over
    the repetitions, lo = min of t_min, hi = max of t_max, reps = count."""
    if imb.empty:
        return pd.DataFrame(columns=["benchmark", "ranks", "processes", "kind", "bytes", "t", "lo", "hi", "reps"])
    g = imb.groupby(["benchmark", "ranks", "processes", "kind", "bytes"], as_index=False)
    return g.agg(t=("t_avg", "median"), lo=("t_min", "min"), hi=("t_max", "max"), reps=("t_avg", "size"))


def geomean(values):
    values = np.asarray(values, dtype=float)
    return float(np.exp(np.log(values).mean())) if len(values) else float("nan")


def slowdown_table(agg):
    """One row per (benchmark, ranks, processes) with native and wasm data:
    slowdown over all sizes where both medians are > 0, the same without the
    0-byte sample, the number of sizes used and skipped, and the range of the
    per-size ratio t_wasm/t_native; and the slowdown against the native runs
    made with the embedder's transport settings (kind native-contained, NaN
    when there are none)."""
    def paired(grp, reference):
        """The sizes both `reference` and wasm have, and those of them where
        both medians are > 0."""
        def times(kind):
            return grp[grp.kind == kind].set_index("bytes")["t"]
        both = pd.concat([times(reference).rename("native"), times("wasm").rename("wasm")], axis=1, join="inner")
        return both, both[(both.native > 0) & (both.wasm > 0)]

    rows = []
    pairs, contained_pairs = [], []
    for (bench, ranks, procs), grp in agg.groupby(["benchmark", "ranks", "processes"]):
        _, vs_contained = paired(grp, "native-contained")
        contained = vs_contained.wasm / vs_contained.native
        if len(contained):
            contained_pairs.append(contained)
        both, usable = paired(grp, "native")
        if both.empty:
            continue
        ratio = usable.wasm / usable.native
        nonzero = ratio[ratio.index > 0]
        pairs.append(ratio)
        rows.append({
            "benchmark": bench, "ranks": ranks, "processes": procs,
            "sizes": len(usable), "skipped": len(both) - len(usable),
            "slowdown": geomean(ratio) - 1 if len(ratio) else float("nan"),
            "slowdown_no_0B": geomean(nonzero) - 1 if len(nonzero) else float("nan"),
            # the paper's formula, GM(t_native / t_wasm) - 1 = 1 / GM(t_wasm / t_native) - 1
            "paper": 1 / geomean(ratio) - 1 if len(ratio) else float("nan"),
            "ratio_min": ratio.min() if len(ratio) else float("nan"),
            "ratio_max": ratio.max() if len(ratio) else float("nan"),
            "contained": geomean(contained) - 1 if len(contained) else float("nan"),
        })
    table = pd.DataFrame(rows, columns=["benchmark", "ranks", "processes", "sizes", "skipped", "slowdown",
                                        "slowdown_no_0B", "paper", "ratio_min", "ratio_max", "contained"])
    order = {b: i for i, b in enumerate(IMB_BENCHMARKS)}
    table["order"] = table.benchmark.map(lambda b: order.get(b, len(order)))
    table = table.sort_values(["order", "processes", "ranks"]).drop(columns="order").reset_index(drop=True)
    if pairs:
        everything = pd.concat(pairs)
        table.attrs["overall"] = geomean(everything) - 1
        table.attrs["overall_sizes"] = len(everything)
    if contained_pairs:
        everything = pd.concat(contained_pairs)
        table.attrs["overall_contained"] = geomean(everything) - 1
        table.attrs["overall_contained_sizes"] = len(everything)
    return table


def spread(series):
    """median, min, max of a numeric series (NaN if empty)."""
    s = pd.to_numeric(series, errors="coerce").dropna()
    if s.empty:
        return float("nan"), float("nan"), float("nan")
    return float(s.median()), float(s.min()), float(s.max())


def hpcg_summary(hpcg):
    rows = []
    if hpcg.empty:
        return pd.DataFrame(columns=["ranks", "kind", "gflops", "gflops_min", "gflops_max", "gbs", "runs", "passed"])
    for (ranks, kind), grp in hpcg.groupby(["ranks", "kind"]):
        med, lo, hi = spread(grp.gflops)
        rows.append({"ranks": ranks, "kind": kind, "gflops": med, "gflops_min": lo, "gflops_max": hi,
                     "gbs": spread(grp.gbs)[0], "runs": len(grp),
                     "passed": int((grp.validation == "PASSED").sum())})
    return pd.DataFrame(rows)


def hpcc_ratios(hpcc):
    """One row per HPCC metric with native and/or wasm values: the median
    over repetitions of each (min, max, runs), value ratio wasm/native, the
    relative speed of wasm (wasm/native for rates, native/wasm for
    latencies: > 1 means wasm is faster) and the slowdown 1/speed − 1
    (positive = wasm slower). In HPCC_METRICS order."""
    cols = ["test", "metric", "unit", "better", "native", "native_min", "native_max", "wasm", "wasm_min",
            "wasm_max", "runs_native", "runs_wasm", "ratio", "speed", "slowdown"]
    if hpcc.empty:
        return pd.DataFrame(columns=cols)
    order = {m[2]: i for i, m in enumerate(HPCC_METRICS)}
    rows = []
    for (test, metric, unit, better), grp in hpcc.groupby(["test", "metric", "unit", "better"]):
        row = {"test": test, "metric": metric, "unit": unit, "better": better}
        for kind in KINDS:
            med, lo, hi = spread(grp[grp.kind == kind].value)
            row.update({kind: med, f"{kind}_min": lo, f"{kind}_max": hi,
                        f"runs_{kind}": int((grp.kind == kind).sum())})
        n, w = row["native"], row["wasm"]
        ratio = w / n if n > 0 and w > 0 else float("nan")
        speed = ratio if better == "higher" else 1 / ratio
        row.update({"ratio": ratio, "speed": speed, "slowdown": 1 / speed - 1})
        rows.append(row)
    out = pd.DataFrame(rows, columns=cols)
    out["o"] = out.metric.map(lambda m: order.get(m, len(order)))
    return out.sort_values("o").drop(columns="o").reset_index(drop=True)


def netpipe_aggregate(netpipe):
    """Per (kind, bytes): median one-way time (µs) and bandwidth (MB/s) over
    the repetitions, with their min and max."""
    cols = ["kind", "bytes", "usec", "usec_min", "usec_max", "mbytes_per_sec", "mbs_min", "mbs_max", "reps"]
    if netpipe.empty:
        return pd.DataFrame(columns=cols)
    g = netpipe.groupby(["kind", "bytes"], as_index=False)
    return g.agg(usec=("usec", "median"), usec_min=("usec", "min"), usec_max=("usec", "max"),
                 mbytes_per_sec=("mbytes_per_sec", "median"), mbs_min=("mbytes_per_sec", "min"),
                 mbs_max=("mbytes_per_sec", "max"), reps=("usec", "size"))[cols]


BRIDGE_CALLS = (("comm_rank_ns", "`MPI_Comm_rank`"), ("allreduce_1double_ns", "`MPI_Allreduce`, 1 double"),
                ("testany_pending_ns", "`MPI_Testany`, 1 pending receive"),
                ("exchange_self_ns", "`MPI_Irecv` + `MPI_Isend` + `MPI_Waitall`, with itself"))


def bridge_summary(bridge):
    """Per (call, ranks): median ns per call natively and as wasm, the
    difference (what the bridge adds) and the number of runs."""
    cols = ["call", "ranks", "native_ns", "wasm_ns", "added_ns", "runs"]
    rows = []
    for col, _label in BRIDGE_CALLS:
        if bridge.empty or col not in bridge or bridge[col].isna().all():
            continue
        for ranks, grp in bridge.groupby("ranks"):
            n = spread(grp[grp.build == "native"][col])[0]
            w = spread(grp[grp.build == "wasm"][col])[0]
            rows.append({"call": col, "ranks": ranks, "native_ns": n, "wasm_ns": w, "added_ns": w - n,
                         "runs": int(len(grp) / 2)})
    return pd.DataFrame(rows, columns=cols)


def kernels_summary(kernels):
    """Per kernel: median rate natively and as wasm, wasm/native, and
    whether every run printed the same checksum."""
    cols = ["kernel", "unit", "native", "wasm", "ratio", "rounds", "checksums_equal"]
    rows = []
    if kernels.empty:
        return pd.DataFrame(columns=cols)
    for name in dict.fromkeys(kernels.kernel):
        grp = kernels[kernels.kernel == name]
        n = spread(grp[grp.build == "native"].rate)[0]
        w = spread(grp[grp.build == "wasm"].rate)[0]
        rows.append({"kernel": name, "unit": grp.unit.iloc[0], "native": n, "wasm": w,
                     "ratio": w / n if n > 0 else float("nan"), "rounds": int((grp.build == "native").sum()),
                     "checksums_equal": grp.checksum.astype(str).nunique() == 1})
    return pd.DataFrame(rows, columns=cols)


# ---------------------------------------------------------------------------
# Figures


def save(fig, outdir, stem):
    fig.tight_layout()
    for ext in ("png", "svg"):
        fig.savefig(outdir / f"{stem}.{ext}", dpi=120 if ext == "png" else None)
    plt.close(fig)
    return f"{stem}.png"


def group_label(ranks, procs):
    return f"{procs} proc" if ranks == procs else f"{procs} of {ranks} ranks"


def size_label(b, _pos=None):
    for unit, scale in (("MiB", 2 ** 20), ("KiB", 2 ** 10)):
        if b >= scale:
            return f"{b / scale:g} {unit}"
    return f"{b:g} B"


def plain_log_axis(ax):
    """y tick labels 0.5, 2, 10 instead of 5x10^-1; minor ticks labelled too
    when the axis spans less than ~a decade (else there would be no label)."""
    fmt_plain = matplotlib.ticker.FuncFormatter(lambda y, _pos: f"{y:g}")
    ax.yaxis.set_major_formatter(fmt_plain)
    lo, hi = ax.get_ylim()
    narrow = lo > 0 and hi / lo < 20
    ax.yaxis.set_minor_formatter(fmt_plain if narrow else matplotlib.ticker.NullFormatter())


def plot_imb(agg, outdir):
    """One log-log figure per benchmark; returns {benchmark: png name}.
    Barrier has no message size: its figure is time vs processes."""
    files = {}
    present = [b for b in IMB_BENCHMARKS if b in set(agg.benchmark)]
    present += sorted(set(agg.benchmark) - set(present))
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for bench in present:
        data = agg[agg.benchmark == bench]
        fig, ax = plt.subplots(figsize=(6.4, 4.4))
        barrier = bool((data.bytes == 0).all())
        if barrier:  # one line per kind over the process counts
            series = [(kind, colors[i], data[(data.kind == kind) & (data.t > 0)].sort_values("processes"))
                      for i, kind in enumerate(KINDS)]
            series = [(kind, color, d, d.processes, kind) for kind, color, d in series]
        else:  # one line per (rank count, kind) over the message sizes
            series = []
            for gi, (ranks, procs) in enumerate(sorted(data.groupby(["ranks", "processes"]).groups)):
                for kind in KINDS:
                    d = data[(data.ranks == ranks) & (data.processes == procs) & (data.kind == kind)
                             & (data.bytes > 0) & (data.t > 0)].sort_values("bytes")
                    series.append((kind, colors[gi % len(colors)], d, d.bytes,
                                   f"{kind}, {group_label(ranks, procs)}"))
        for kind, color, d, x, label in series:
            if d.empty:
                continue
            lo = d.lo.where(d.lo > 0, d.t)  # a 0.00 minimum cannot be drawn on a log axis
            ax.errorbar(x, d.t, yerr=[d.t - lo, d.hi - d.t], capsize=2, markersize=4, color=color,
                        label=label, **STYLE[kind])
        ax.set_yscale("log")
        ax.set_xscale("log", base=2)
        if barrier:
            ax.set_xlabel("processes")
            ax.set_xticks(sorted(data.processes.unique()))
            ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _pos: f"{v:g}"))
            ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
        else:
            ax.set_xlabel("message size")
            ax.xaxis.set_major_locator(matplotlib.ticker.LogLocator(base=4))
            ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(size_label))
            ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
        plain_log_axis(ax)
        ax.set_ylabel("time per iteration [µs]")
        ax.set_title(f"IMB {bench}: native vs wasm (median of reps; bars: min t_min – max t_max)", fontsize=9)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
        files[bench] = save(fig, outdir, f"imb_{bench}")
    return files


def plot_hpcg(summary, outdir):
    if summary.empty:
        return None
    fig, ax = plt.subplots(figsize=(5.6, 4.0))
    for kind in KINDS:
        d = summary[summary.kind == kind].sort_values("ranks")
        if d.empty:
            continue
        ax.errorbar(d.ranks, d.gflops, yerr=[d.gflops - d.gflops_min, d.gflops_max - d.gflops], capsize=3,
                    label=kind, **STYLE[kind])
    ax.set_xlabel("ranks")
    ax.set_xticks(sorted(summary.ranks.unique()))
    ax.set_ylabel("GFLOP/s (all ranks)")
    ax.set_ylim(bottom=0)
    ax.set_title("HPCG-style: GFLOP/s vs ranks (median; bars: min–max)", fontsize=9)
    ax.grid(True, alpha=0.3)
    ax.legend()
    return save(fig, outdir, "hpcg_gflops")


def backend_summary(backends):
    if backends.empty:
        return pd.DataFrame(columns=["backend", "module", "simd", "compile_s", "compile_min", "compile_max",
                                     "gflops", "gflops_min", "gflops_max", "runs", "passed"])
    rows = []
    order = {"llvm": 0, "cranelift": 1, "singlepass": 2}
    for (backend, module, simd), grp in backends.groupby(["backend", "module", "simd"]):
        c, cl, ch = spread(grp.compile_s)
        g, gl, gh = spread(grp.gflops)
        rows.append({"backend": backend, "module": module, "simd": simd, "compile_s": c, "compile_min": cl,
                     "compile_max": ch, "gflops": g, "gflops_min": gl, "gflops_max": gh, "runs": len(grp),
                     "passed": int((grp.validation == "PASSED").sum())})
    out = pd.DataFrame(rows)
    out["o"] = out.backend.map(lambda b: order.get(b, 9))
    return out.sort_values(["o", "simd"], ascending=[True, False]).drop(columns="o").reset_index(drop=True)


def plot_backends(summary, outdir, native_gflops=float("nan")):
    if summary.empty:
        return None
    labels = [f"{b}\n{'SIMD' if s == 'yes' else 'no SIMD'}" for b, s in zip(summary.backend, summary.simd)]
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(9, 3.8))
    x = np.arange(len(summary))
    a1.bar(x, summary.compile_s, yerr=[summary.compile_s - summary.compile_min,
                                       summary.compile_max - summary.compile_s], capsize=3, color="tab:orange")
    a1.set_yscale("log")
    a1.set_ylabel("cold compile of hpcg module [s]")
    a2.bar(x, summary.gflops, yerr=[summary.gflops - summary.gflops_min, summary.gflops_max - summary.gflops],
           capsize=3, color="tab:blue")
    if native_gflops > 0:
        a2.axhline(native_gflops, color="black", linestyle=":", label="native (main runs, median)")
        a2.legend(fontsize=8, loc="upper right")
    a2.set_ylabel("HPCG-style GFLOP/s, 1 rank")
    for a in (a1, a2):
        a.set_xticks(x)
        a.set_xticklabels(labels, fontsize=8)
        a.grid(True, axis="y", alpha=0.3)
    fig.suptitle("Compiler backends (median; bars: min–max)", fontsize=10)
    return save(fig, outdir, "backends")


def plot_hpcc(ratios, outdir):
    """Horizontal bars: relative speed of wasm per HPCC metric (1 = native)."""
    d = ratios.dropna(subset=["speed"])
    if d.empty:
        return None
    fig, ax = plt.subplots(figsize=(7.2, 0.32 * len(d) + 1.4))
    y = np.arange(len(d))[::-1]
    colors = ["tab:green" if v >= 1 else "tab:red" for v in d.speed]
    ax.barh(y, d.speed, color=colors, alpha=0.8)
    ax.axvline(1.0, color="black", linewidth=1)
    ax.set_yticks(y)
    ax.set_yticklabels([f"{t}: {m}" if m != t else t for t, m in zip(d.test, d.metric)], fontsize=8)
    ax.set_xscale("log", base=2)
    lo, hi = float(d.speed.min()), float(d.speed.max())
    ax.set_xlim(min(0.25, lo / 1.3), max(4.0, hi * 1.3))
    ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _pos: f"{v:g}"))
    for yi, v in zip(y, d.speed):
        ax.text(v * (1.04 if v >= 1 else 0.96), yi, f"{v:.2f}", va="center", ha="left" if v >= 1 else "right",
                fontsize=7)
    ax.set_xlabel("relative speed of wasm (rates: wasm/native, latencies: native/wasm); > 1: wasm faster",
                  fontsize=8)
    ax.set_title("HPCC 1.5.0, 2 ranks: wasm relative to native (medians)", fontsize=9)
    ax.grid(True, axis="x", which="both", alpha=0.3)
    return save(fig, outdir, "hpcc_ratio")


def plot_netpipe(agg, outdir):
    """NetPIPE: bandwidth and one-way latency vs message size, native vs wasm."""
    if agg.empty:
        return None
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(10, 4.0))
    for kind in KINDS:
        d = agg[(agg.kind == kind) & (agg.usec > 0)].sort_values("bytes")
        if d.empty:
            continue
        a1.errorbar(d.bytes, d.mbytes_per_sec, yerr=[d.mbytes_per_sec - d.mbs_min, d.mbs_max - d.mbytes_per_sec],
                    capsize=2, markersize=3, label=kind, **STYLE[kind])
        a2.errorbar(d.bytes, d.usec, yerr=[d.usec - d.usec_min, d.usec_max - d.usec], capsize=2, markersize=3,
                    label=kind, **STYLE[kind])
    for ax, ylabel in ((a1, "bandwidth [MB/s] (10^6 B/s)"), (a2, "one-way time [µs] (half round trip)")):
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.xaxis.set_major_locator(matplotlib.ticker.LogLocator(base=16))
        ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(size_label))
        ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
        plain_log_axis(ax)
        ax.set_xlabel("message size")
        ax.set_ylabel(ylabel)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle("NetPIPE 3.7.2 (MPI module), 2 ranks: native vs wasm (median of reps; bars: min–max)",
                 fontsize=10)
    return save(fig, outdir, "netpipe")


# ---------------------------------------------------------------------------
# Markdown


def fmt(value, spec):
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    if callable(spec):
        return spec(value)
    return format(value, spec)


def md_table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def pct(x):
    return f"{x * 100:+.1f} %"


def kib(x):
    return f"{x / 1024:.0f} KiB" if x != "" and not pd.isna(x) else "–"


def meta_section(meta):
    flags = meta.get("flags", {})
    params = meta.get("parameters", {})
    rows = [
        ("date (UTC)", meta.get("date_utc")), ("host", meta.get("hostname")), ("nproc", meta.get("nproc")),
        ("CPU", meta.get("cpu_model")), ("kernel", meta.get("kernel")), ("MPI library", meta.get("mpi_library")),
        ("native compiler", meta.get("mpicc")), ("wasm compiler (clang)", meta.get("clang")),
        ("embedder", meta.get("embedder")),
        ("git commit", f"{meta.get('git_commit')}{' (uncommitted changes)' if meta.get('git_dirty') else ''}"),
        ("native flags", " ".join(flags.get("native_cflags", []))),
        ("wasm flags", f"`{' '.join(flags.get('wasm_cflags', []))}`; module for Singlepass: "
         f"`{' '.join(flags.get('wasm_nosimd_cflags', []))}`"),
        ("mpirun", " ".join(flags.get("mpirun", []))),
        ("ranks × repetitions", f"{params.get('ranks')} × {params.get('reps')}"
         + (" (--quick)" if params.get("quick") else "")),
        ("IMB options", params.get("imb_args")), ("HPCG options", params.get("hpcg_args")),
        ("command", meta.get("command")), ("duration", f"{meta.get('duration_s', '?')} s"),
    ]
    return md_table(["", ""], [(k, f"`{v}`" if k in ("command", "IMB options", "HPCG options", "mpirun",
                                                    "native flags") else v) for k, v in rows])


def size_rows(grp):
    """Per-size table rows (bytes, native t, range, wasm t, range, ratio) of one
    (benchmark, ranks, processes) group of the aggregated IMB data."""
    by_kind = {kind: grp[grp.kind == kind].set_index("bytes") for kind in KINDS}
    rows = []
    for size in sorted(set(grp.bytes)):
        cells = [size]
        t = {}
        for kind in KINDS:
            d = by_kind[kind]
            if size in d.index:
                t[kind] = d.at[size, "t"]
                cells += [fmt(t[kind], ".2f"), f"{fmt(d.at[size, 'lo'], '.2f')} – {fmt(d.at[size, 'hi'], '.2f')}"]
            else:
                t[kind] = float("nan")
                cells += ["–", "–"]
        ratio = t["wasm"] / t["native"] if t["native"] > 0 and t["wasm"] > 0 else float("nan")
        rows.append(cells + [fmt(ratio, ".2f")])
    return rows


def report(results, meta, agg, slow, hpcg_sum, hpcg_png, back_sum, back_png, imb_pngs, sizes, startup,
           ext=None, short=None):
    L = []
    add = L.append
    add(f"# Benchmarks: native vs WebAssembly ({results.name})\n")
    add("Generated by `plots/plot.py` from the CSVs of `benchmarks/run.py` in this directory "
        "(raw program output in `raw/`, one row per run in `runs.csv`).\n")
    add("## Machine and software\n")
    add(meta_section(meta) + "\n")
    if meta.get("failures"):
        add("**Failures during the run:**\n")
        add("\n".join(f"- `{f}`" for f in meta["failures"]) + "\n")
    add("## Method\n")
    add("- Every program is built natively (`mpicc`) and to wasm32-wasi (`wasm-mpicc`), `-O3` both. "
        "For each rank count and repetition the native and the wasm run follow each other "
        "(imb native, imb wasm, hpcg native, hpcg wasm), so slow drifts of the machine hit both alike.")
    add("- Wasm runs use the LLVM backend with a warm compile cache, so compilation is not in the "
        "measured numbers (it is in *Start-up* below).")
    add("- IMB: each (benchmark, processes, size) is aggregated over the repetitions: the point is the "
        "median of `t_avg`; the error bar runs from the smallest `t_min` to the largest `t_max`. "
        "The 0-byte sample cannot be drawn on a log axis; it is in the tables and in the slowdown.")
    add(f"- Slowdown (positive = wasm slower): **{SLOWDOWN_FORMULA}**, with t the median `t_avg` "
        "(PingPong/PingPing: their one time column), printed to the nanosecond (before 2026-11-28 to "
        "0.01 µs, which made 1-process collectives' ratios 1, 2 or 3). Sizes where either median is 0 (below "
        "the printed resolution) are skipped and counted. MPIWasm (Chadha et al., PPoPP '23) defines the "
        "slowdown as the GM over sizes of t_native/t_wasm, minus one: that is the column *paper's formula*, "
        "1/(1 + slowdown) − 1, negative when wasm is slower. The paper's reported values (0.05–0.14) are "
        "positive, so it reports the magnitude; for small values the two columns agree up to sign.")
    add("- On Open MPI, IMB also runs natively with the transport settings the embedder makes before "
        "`MPI_Init` (*native-contained*: `btl self` without RDMA, no single copy in `btl vader`/`smsc`), "
        "right after the plain native run: the slowdown against it is the embedder's own cost, the rest is "
        "the price of containing truncated receives (docs/security.md).")
    add("- Open MPI binds each rank to a core when np ≤ 2 (to a socket above), unless `--mpirun-args` "
        "changes it: a rank compiling a module on a cold cache then compiles on one core.\n")

    add("## IMB: slowdown per benchmark\n")
    if slow.empty:
        add("No benchmark has both native and wasm results.\n")
    else:
        with_contained = "overall_contained" in slow.attrs
        rows = [(r.benchmark, r.processes if r.ranks == r.processes else f"{r.processes} (of {r.ranks})",
                 fmt(r.slowdown, pct), fmt(r.slowdown_no_0B, pct), fmt(r.paper, '+.3f'),
                 f"{r.sizes}" + (f" (+{r.skipped} skipped)" if r.skipped else ""),
                 f"{fmt(r.ratio_min, '.2f')} – {fmt(r.ratio_max, '.2f')}")
                + ((fmt(r.contained, pct),) if with_contained else ()) for r in slow.itertuples()]
        add(md_table(["benchmark", "processes", "slowdown", "without 0 B", "paper's formula", "sizes",
                      "t_wasm/t_native range"] + (["slowdown vs native-contained"] if with_contained else []),
                     rows) + "\n")
        if "overall" in slow.attrs:
            add(f"Geometric mean over all {slow.attrs['overall_sizes']} (benchmark, processes, size) samples: "
                f"**{pct(slow.attrs['overall'])}**.\n")
        if with_contained:
            add(f"Against native runs with the embedder's Open MPI transport settings (native-contained: no "
                f"single-copy or self-RDMA transport, which the embedder turns off to contain truncated "
                f"receives), over {slow.attrs['overall_contained_sizes']} samples: "
                f"**{pct(slow.attrs['overall_contained'])}**.\n")

    add("## IMB: time per iteration vs message size\n")
    for bench, png in imb_pngs.items():
        add(f"### {bench}\n")
        add(f"![IMB {bench}](plots/{png})\n")
        data = agg[agg.benchmark == bench]
        for (ranks, procs), grp in data.groupby(["ranks", "processes"]):
            rows = size_rows(grp)
            add(f"<details><summary>{bench}, {group_label(ranks, procs)}: table (µs)</summary>\n")
            add(md_table(["bytes", "native t", "native min–max", "wasm t", "wasm min–max", "wasm/native"], rows))
            add("\n</details>\n")

    add("## HPCG-style\n")
    if hpcg_png:
        add(f"![HPCG GFLOP/s vs ranks](plots/{hpcg_png})\n")
    if hpcg_sum.empty:
        add("No HPCG results.\n")
    else:
        rows = []
        for ranks, grp in hpcg_sum.groupby("ranks"):
            n = grp[grp.kind == "native"]
            w = grp[grp.kind == "wasm"]
            ng = float(n.gflops.iloc[0]) if len(n) else float("nan")
            wg = float(w.gflops.iloc[0]) if len(w) else float("nan")
            val = ", ".join(f"{k} {int(g.passed.iloc[0])}/{int(g.runs.iloc[0])}"
                            for k, g in (("native", n), ("wasm", w)) if len(g))
            rows.append((ranks, fmt(ng, ".3f"), fmt(wg, ".3f"), fmt(wg / ng if ng > 0 else float("nan"), ".3f"),
                         fmt(ng / wg - 1 if wg > 0 else float("nan"), pct), val))
        add(md_table(["ranks", "native GFLOP/s", "wasm GFLOP/s", "wasm/native", "slowdown (t_wasm/t_native − 1)",
                      "validation PASSED"], rows) + "\n")
        add(f"Options: `{meta.get('parameters', {}).get('hpcg_args', '?')}`; GFLOP/s is the median over the "
            "repetitions; time per unit of work is 1/GFLOP/s, so the slowdown column is GFLOP/s native / wasm − 1.\n")

    add("## Compiler backends (HPCG-style, 1 rank, cold cache)\n")
    if back_png:
        add(f"![backends](plots/{back_png})\n")
    if back_sum.empty:
        add("No backend results.\n")
    else:
        native1 = hpcg_sum[(hpcg_sum.ranks == 1) & (hpcg_sum.kind == "native")]
        n1 = float(native1.gflops.iloc[0]) if len(native1) else float("nan")
        rows = [(r.backend, r.module, r.simd, f"{fmt(r.compile_s, '.3f')} ({fmt(r.compile_min, '.3f')} – "
                 f"{fmt(r.compile_max, '.3f')})", fmt(r.gflops, ".3f"),
                 fmt(r.gflops / n1 if n1 > 0 else float("nan"), ".2f"), f"{r.passed}/{r.runs}")
                for r in back_sum.itertuples()]
        add(md_table(["backend", "module", "SIMD", "cold compile s, median (min – max)", "GFLOP/s",
                      "vs native 1 rank", "validation PASSED"], rows) + "\n")
        add("Compile time is the embedder's own `load` time (`--timings`) of a run on an empty cache: "
            "compiling the module and storing it. Singlepass has no SIMD, so it runs the module built with "
            "`-mno-simd128`; LLVM and Cranelift run both modules.\n")

    add("## Binary sizes\n")
    if sizes.empty:
        add("No size data.\n")
    else:
        rows = []
        for r in sizes.itertuples():
            ratio = r.wasm_bytes / r.native_dynamic_bytes if r.native_dynamic_bytes else float("nan")
            rows.append((r.program, kib(r.native_dynamic_bytes), kib(r.native_static_bytes), kib(r.wasm_bytes),
                         kib(r.wasm_nosimd_bytes), fmt(ratio, ".1f")))
        add(md_table(["program", "native, dynamic", "native, static", "wasm", "wasm, no SIMD",
                      "wasm / native dynamic"], rows) + "\n")
        static = meta.get("static_link", "")
        if static and static != "ok":
            add(f"`mpicc -static` did not link here ({static}), so there is no static size.\n")
        add("Sizes of the files as built (not stripped); the native binaries link MPI and libc dynamically, "
            "the wasm modules contain libc but not MPI.\n")

    add("## Start-up\n")
    if startup.empty:
        add("No start-up data.\n")
    else:
        add(startup_markdown(startup, meta))
    if short is not None:
        L += bridge_markdown(short["bridge"], meta)
        L += kernels_markdown(short["kernels"], meta)
        L += model_markdown(short["calls"], short["projection"], meta)
    if ext is not None:
        L += external_markdown(meta, **ext)
    (results / "report.md").write_text("\n".join(L) + "\n")


def bridge_markdown(summary, meta):
    L = ["## Bridge: cost per MPI call\n"]
    if summary.empty:
        return L + ["Not run (no `bridge.csv`).\n"]
    labels = dict(BRIDGE_CALLS)
    rows = [(labels[r.call], r.ranks, fmt(r.native_ns, ".1f"), fmt(r.wasm_ns, ".1f"), fmt(r.added_ns, "+.1f"),
             r.runs) for r in summary.itertuples()]
    L.append(md_table(["per call", "ranks", "native ns", "wasm ns", "added ns", "runs"], rows) + "\n")
    loops = meta.get("parameters", {}).get("bridge_calls", "?")
    L.append(f"`benchmarks/bridge/overhead.c` natively and as wasm, interleaved per rank count and repetition: "
             f"a loop of `MPI_Comm_rank`, one of 1-double `MPI_Allreduce` and one of `MPI_Testany` polling a "
             f"receive that never completes (lengths `{loops}`), each the best of 3 passes (the Allreduce's the "
             "slowest rank's); medians over the repetitions. *Added* is wasm − "
             "native: what crossing the bridge costs per call.\n")
    return L


def kernels_markdown(summary, meta):
    L = ["## Compute kernels (1 process)\n"]
    if summary.empty:
        return L + ["Not run (no `kernels.csv`).\n"]
    rows = [(r.kernel, r.unit, fmt(r.native, ".3f"), fmt(r.wasm, ".3f"), fmt(r.ratio, ".2f"),
             "same" if r.checksums_equal else "**DIFFER**") for r in summary.itertuples()]
    L.append(md_table(["kernel", "unit", "native", "wasm", "wasm/native", "checksums"], rows) + "\n")
    bad = [r.kernel for r in summary.itertuples() if not r.checksums_equal]
    if bad:
        L.append(f"**Checksums differ between the builds for {', '.join(bad)}: the wasm build computed something "
                 "else, so its rate is not comparable.**\n")
    L.append("`benchmarks/kernels/kernels.c` (+ `benchmarks/external/cblas/cblas.c`), one process, native and wasm "
             "interleaved; each run prints every kernel's best rate over its own repetitions, the table shows "
             f"medians over {int(summary.rounds.max())} round(s). Both builds must print the same checksum "
             "(`benchmarks/kernels/run.py` does the same standalone).\n")
    return L


def model_calls_table(calls):
    """Calls per CG iteration of the busiest rank: measured (PMPI counter)
    and analytic at the counted rank counts, analytic at the paper's."""
    measured = model_calls.measured_per_iteration(calls.to_dict("records")) if not calls.empty else {}
    fns = ["MPI_Irecv", "MPI_Isend", "MPI_Waitall", "MPI_Allreduce", "MPI_Wtime"]
    rows = []
    for ranks, m in measured.items():
        a = model_calls.at_scale(ranks)
        rows.append((ranks, m["grid"], m["neighbours"], *(fmt(m["measured"].get(f, 0), ".2f") for f in fns),
                     fmt(sum(m["measured"].values()), ".2f"), fmt(a["busiest_total"], ".2f"),
                     "yes" if m["exact"] else "**NO**"))
    for ranks in model_calls.SCALE_RANKS:
        a = model_calls.at_scale(ranks)
        rows.append((ranks, a["grid"], a["max_neighbours"], *(fmt(a["busiest"].get(f, 0), ".2f") for f in fns),
                     "–", fmt(a["busiest_total"], ".2f"), "(analytic only)"))
    return md_table(["ranks", "grid", "neighbours", *(f"`{f}`" for f in fns), "measured total",
                     "analytic total", "every count equal"], rows)


def model_markdown(calls, projection, meta):
    params = meta.get("parameters", {})
    L = ["## At-scale model: HPCG-style at 96–6144 ranks\n",
         "This machine cannot run the MPIWasm paper's 6144 ranks, so the ratio is projected from what it can "
         "measure (details: `benchmarks/model/README.md`).\n",
         "### MPI calls per CG iteration, busiest rank\n"]
    if calls.empty:
        L.append("The counted runs were not made (no `calls.csv`); analytic counts only.\n")
    L.append(model_calls_table(calls) + "\n")
    L.append("Measured: the native HPCG-style build with `benchmarks/model/mpi_count.c` (a PMPI interposer, "
             f"`LD_PRELOAD`) at {params.get('model_ranks', '?')} ranks, `{params.get('model_args', '?')}`, the timed "
             "phase's calls / (sets × 50). Analytic: `benchmarks/model/calls.py`, from the code: 11 halo exchanges "
             "(3 per finer multigrid level, 1 on the coarsest, 1 SpMV) of nnbr `MPI_Irecv` + nnbr `MPI_Isend` + 1 "
             "`MPI_Waitall` + 2 `MPI_Wtime`, and 3 dot products of 1 `MPI_Allreduce` + 2 `MPI_Wtime`, per iteration, "
             "plus one of each per set of 50; *every count equal* compares every function of every rank.\n")
    L.append("### Projection\n")
    if isinstance(projection, str):
        L.append(f"No projection: {projection}.\n")
    else:
        inp, rows = projection
        L.append(model_project.markdown(inp, rows))
    return L


def _num(v):
    """A value for a table: 3 significant digits, plain notation where possible."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "–"
    return f"{v:.3g}" if abs(v) < 1e5 else f"{v:.3e}"


def external_markdown(meta, ratios, hpcc_png, np_agg, np_png, runs):
    """The report section of the external codes (HPCC, NetPIPE)."""
    L = []
    add = L.append
    info = meta.get("external", {})
    params = meta.get("parameters", {})
    add("## External codes: HPCC 1.5.0 and NetPIPE 3.7.2\n")
    status = info.get("status")
    if status is None and runs.empty:
        add("Not run (`--external off`).\n")
        return L
    if status and status != "built":
        add(f"**External codes {status}**\n")
    add("Unmodified upstream sources from Debian bookworm's source packages, fetched and SHA-256-checked by "
        "`benchmarks/external/fetch.py`, built natively and to wasm by `benchmarks/external/build.py` "
        "(see `benchmarks/external/README.md`). Both builds use the same small C BLAS "
        "(`benchmarks/external/cblas/`). Runs on "
        f"{params.get('external_ranks', 2)} ranks, native and wasm interleaved, "
        f"{params.get('external_reps', 1)} repetition(s); wasm on the LLVM backend with a warm cache, "
        "each run in a fresh working directory (`--mapdir /:DIR` for the wasm runs).\n")
    rows = []
    for name, src in info.get("sources", {}).items():
        rows.append((name, src.get("debian_source", ""), f"`{src.get('tarball', '')}`", f"`{src.get('sha256', '')}`"))
    if rows:
        add(md_table(["code", "Debian source package", "tarball", "SHA-256"], rows) + "\n")
    fl = info.get("flavours", {})
    if fl:
        add(md_table(["build", "compiler", "flags", "libraries"], [
            (k, f"`{v.get('cc', '')}` ({v.get('cc_version', '')})", f"`{' '.join(v.get('cflags', []))}`",
             f"`{' '.join(v.get('libs', []) + v.get('compat', []))}`") for k, v in fl.items()]) + "\n")
        add(f"HPL options: `{' '.join(info.get('hpl_opts', []))}`; HPCC input: N = {params.get('hpcc_n')}, "
            f"NB = {params.get('hpcc_nb')}, P×Q = {params.get('hpcc_grid')}; NetPIPE options: "
            f"`{params.get('netpipe_args')} -o np.out`.\n")
    not_provided = {k: v for k, v in info.get("imports_not_provided", {}).items() if v}
    hit = sorted({f for v in runs.get("unsupported_mpi", pd.Series(dtype=str)).dropna() for f in str(v).split()})
    if not_provided or hit:
        add("**MPI functions the embedder does not provide:** "
            + "; ".join(f"`{k}` imports {', '.join(v)}" for k, v in not_provided.items())
            + (f"; called (job ended): {', '.join(hit)}" if hit else "") + "\n")
    elif info.get("imports_not_provided") is not None:
        add("The embedder provides every MPI function the two wasm modules import.\n")

    add("### HPCC\n")
    hruns = runs[runs.program == "hpcc"] if not runs.empty else runs
    if not hruns.empty:
        rows = []
        for r in hruns.itertuples():
            rows.append((r.kind, r.rep, r.rc, {1: "1", 0: "0"}.get(r.success, "–") if not pd.isna(r.success) else "–",
                         f"{r.hpl_check if isinstance(r.hpl_check, str) else '–'}"
                         + (f" ({r.hpl_residual:.3g})" if not pd.isna(r.hpl_residual) else ""),
                         r.failed_checks if isinstance(r.failed_checks, str) else "–",
                         r.unsupported_mpi if isinstance(r.unsupported_mpi, str) else "–",
                         fmt(float(r.wall_s), ".1f")))
        add(md_table(["run", "rep", "exit", "HPCC Success", "HPL residual check", "failed checks",
                      "unsupported MPI", "wall s"], rows) + "\n")
    if hpcc_png:
        add(f"![HPCC wasm/native](plots/{hpcc_png})\n")
    if ratios.empty:
        add("No HPCC results.\n")
    else:
        rows = [(r.test, r.metric, r.unit, _num(r.native), _num(r.wasm), fmt(r.ratio, ".3f"), fmt(r.speed, ".2f"),
                 fmt(r.slowdown, pct)) for r in ratios.itertuples()]
        add(md_table(["test", "metric", "unit", "native", "wasm", "wasm/native (value)", "relative speed",
                      "slowdown"], rows) + "\n")
        speeds = ratios.speed.dropna()
        if len(speeds):
            add(f"Geometric mean of the relative speed over the {len(speeds)} metrics: "
                f"**{geomean(speeds):.2f}** (slowdown {pct(1 / geomean(speeds) - 1)}).\n")
        add("Values are the medians over repetitions of HPCC's own summary (`hpccoutf.txt`, Summary section). "
            "Relative speed = wasm/native for rates and native/wasm for latencies (> 1: wasm faster); "
            "slowdown = 1/speed − 1. Star = every rank alone at once, Single = one rank alone, MPI = all ranks "
            "together. The native build is gcc (`mpicc`), the wasm build clang; kernels that the two compilers "
            "vectorise differently (e.g. FFTE's complex arithmetic) can make wasm faster.\n")

    add("### NetPIPE\n")
    if np_png:
        add(f"![NetPIPE](plots/{np_png})\n")
    if np_agg.empty:
        add("No NetPIPE results.\n")
    else:
        n = np_agg[np_agg.kind == "native"].set_index("bytes")
        w = np_agg[np_agg.kind == "wasm"].set_index("bytes")
        both = pd.merge(n, w, left_index=True, right_index=True, suffixes=("_n", "_w"))
        if not both.empty:
            small = both[both.index <= 8]
            big = both[both.index >= 1 << 20]
            rows = []
            if len(small):
                rows.append(("latency, 1–8 B (median of sizes)", "µs", _num(small.usec_n.median()),
                             _num(small.usec_w.median()), fmt(small.usec_w.median() / small.usec_n.median(), ".2f")))
            rows.append(("peak bandwidth", "MB/s", _num(both.mbytes_per_sec_n.max()), _num(both.mbytes_per_sec_w.max()),
                         fmt(both.mbytes_per_sec_w.max() / both.mbytes_per_sec_n.max(), ".2f")))
            if len(big):
                rows.append(("bandwidth, ≥ 1 MiB (median of sizes)", "MB/s", _num(big.mbytes_per_sec_n.median()),
                             _num(big.mbytes_per_sec_w.median()),
                             fmt(big.mbytes_per_sec_w.median() / big.mbytes_per_sec_n.median(), ".2f")))
            ratio = both.usec_w / both.usec_n
            rows.append(("time wasm/native, GM over all sizes", "", "", "", fmt(geomean(ratio[ratio > 0]), ".2f")))
            add(md_table(["", "unit", "native", "wasm", "wasm/native"], rows) + "\n")
            add("<details><summary>NetPIPE per message size</summary>\n")
            add(md_table(["bytes", "native µs", "wasm µs", "native MB/s", "wasm MB/s", "time wasm/native"],
                         [(int(b), _num(r.usec_n), _num(r.usec_w), _num(r.mbytes_per_sec_n),
                           _num(r.mbytes_per_sec_w), fmt(r.usec_w / r.usec_n if r.usec_n > 0 else float("nan"),
                                                         ".2f")) for b, r in both.iterrows()]))
            add("\n</details>\n")
        add("NetPIPE's output file `np.out`: for each size the best of its trials; time is half the round trip, "
            "MB/s = 10^6 bytes/s (NetPIPE prints Mbps = 10^6 bits/s).\n")
    return L


def startup_markdown(startup, meta):
    out = []
    rows = []
    for prog, grp in startup.groupby("program", sort=False):
        comp = grp[grp["mode"] == "compile"]
        c_wall = spread(comp.wall_s)[0]
        c_load = spread(comp.load_s)[0]
        warm1 = spread(grp[(grp["mode"] == "wasm-warm") & (grp.ranks == 1)].wall_s)[0]
        rows.append((prog, "`embedder compile`, cold cache", "–", fmt(c_wall, ".3f"), fmt(c_load, ".3f"), "–"))
        for ranks in sorted(grp.ranks.dropna().unique()):
            for mode, label in (("native", "native"), ("wasm-warm", "wasm, cached"), ("wasm-cold", "wasm, cold cache")):
                d = grp[(grp["mode"] == mode) & (grp.ranks == ranks)]
                if d.empty:
                    continue
                wall = spread(d.wall_s)[0]
                load = spread(d.load_s)[0]
                rel = fmt(wall / warm1 if warm1 > 0 else float("nan"), ".2f") if mode != "native" else "–"
                rows.append((prog, label, int(ranks), fmt(wall, ".3f"), fmt(load, ".3f"), rel))
    out.append(md_table(["program", "start", "ranks", "wall s (median)", "load s (max over ranks)",
                         "wall / 1-rank cached start"], rows) + "\n")
    args = meta.get("parameters", {}).get("startup_args", {})
    out.append("Wall time of the whole `mpirun` (or `embedder compile`) with almost no work "
               + (f"(`{args.get('imb', '')}`, `{args.get('hpcg', '')}`)" if args else "")
               + "; load is the embedder's `--timings` load (compile+store on a cold cache, where one rank "
               "compiles and the others wait for it; a read from the cache when cached). Medians over repetitions.\n")
    return "\n".join(out)


def model_projection(results):
    """(inputs, rows) of benchmarks/model/project.py from this results
    directory, or why there is none (a string)."""
    try:
        inp = model_project.inputs_from_results(results)
    except ValueError as e:
        return str(e)
    return inp, model_project.projection(inp)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("results", type=Path, help="a directory written by benchmarks/run.py")
    args = ap.parse_args(argv)
    results = args.results
    if not (results / "runs.csv").exists() and not (results / "imb.csv").exists():
        ap.error(f"{results} is not a benchmarks/run.py results directory")
    outdir = results / "plots"
    outdir.mkdir(exist_ok=True)
    meta = json.loads((results / "meta.json").read_text()) if (results / "meta.json").exists() else {}

    agg = imb_aggregate(read(results, "imb.csv"))
    slow = slowdown_table(agg)
    imb_pngs = plot_imb(agg, outdir)
    hpcg_sum = hpcg_summary(read(results, "hpcg.csv"))
    hpcg_png = plot_hpcg(hpcg_sum, outdir)
    back_sum = backend_summary(read(results, "backends.csv"))
    native1 = hpcg_sum[(hpcg_sum.ranks == 1) & (hpcg_sum.kind == "native")].gflops
    back_png = plot_backends(back_sum, outdir, float(native1.iloc[0]) if len(native1) else float("nan"))
    sizes = read(results, "sizes.csv")
    startup = read(results, "startup.csv")

    agg.to_csv(outdir / "imb_summary.csv", index=False)
    slow.to_csv(outdir / "imb_slowdown.csv", index=False)
    hpcg_sum.to_csv(outdir / "hpcg_summary.csv", index=False)
    back_sum.to_csv(outdir / "backends_summary.csv", index=False)
    ratios = hpcc_ratios(read(results, "hpcc.csv"))
    hpcc_png = plot_hpcc(ratios, outdir)
    np_agg = netpipe_aggregate(read(results, "netpipe.csv"))
    np_png = plot_netpipe(np_agg, outdir)
    ratios.to_csv(outdir / "hpcc_ratios.csv", index=False)
    np_agg.to_csv(outdir / "netpipe_summary.csv", index=False)
    ext = {"ratios": ratios, "hpcc_png": hpcc_png, "np_agg": np_agg, "np_png": np_png,
           "runs": read(results, "external_runs.csv")}
    short = {"bridge": bridge_summary(read(results, "bridge.csv")),
             "kernels": kernels_summary(read(results, "kernels.csv")),
             "calls": read(results, "calls.csv"), "projection": model_projection(results)}
    short["bridge"].to_csv(outdir / "bridge_summary.csv", index=False)
    short["kernels"].to_csv(outdir / "kernels_summary.csv", index=False)
    if not isinstance(short["projection"], str):
        pd.DataFrame([{k: v for k, v in r.items() if k != "calls_by_kind"}
                      | {f"calls_{k}": r["calls_by_kind"][k] for k in model_calls.KINDS}
                      for r in short["projection"][1]]).to_csv(outdir / "model_projection.csv", index=False)
    report(results, meta, agg, slow, hpcg_sum, hpcg_png, back_sum, back_png, imb_pngs, sizes, startup, ext, short)
    print(f"plot.py: {len(imb_pngs)} IMB figures, report in {results / 'report.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
