#!/usr/bin/env python3
"""Generate the MPI-call fuzzer's call table (C) for every MPI function the
embedder provides: one `case` per function that draws each argument from the
generator of its class (harness.h) and makes the call.

Prototypes come from the guest mpi-header/mpi.h and parameter kinds (rank,
tag, keyval) from the MPI Forum's API description, both read through the
bridge generator's own parser (embedder/gen/gen_bridge.py). The table is
generated at build time (tests/fuzz/mpi_fuzz.py) from the running embedder's
`inspect --provided`, so it always covers exactly what the embedder provides.

    python3 tests/fuzz/gen_harness.py PROVIDED.txt OUT.c
"""
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "embedder" / "gen"))
import gen_bridge  # noqa: E402  (the one parser of mpi.h and pympistandard)

# Functions never called, and why.
EXCLUDED = {
    "MPI_Finalize": "ends MPI: every later call would fail",
    "MPI_Abort": "ends the job by design",
    "MPI_File_preallocate": "writes every byte up to a fuzzed size (terabytes): fills the disk, as natively",
    # one-sided synchronisation that waits for a matching call no rank will
    # make (a post without its start, a lock another epoch holds): a hang,
    # as natively
    "MPI_Win_start": "waits for a matching MPI_Win_post",
    "MPI_Win_complete": "waits for the targets' posts",
    "MPI_Win_wait": "waits for the origins' MPI_Win_complete",
    "MPI_Win_lock": "waits while another epoch holds the lock",
    "MPI_Win_lock_all": "waits while another epoch holds a lock",
}
# Calls that block until a matching message exists (or, for buffered sends
# and Intercomm_create, make a later call block): their ranks come from
# g_norank (MPI_PROC_NULL or invalid), so on one rank nothing can hang.
BLOCKING_P2P = {f"MPI_{n}" for n in """Send Bsend Ssend Rsend Recv Sendrecv Sendrecv_replace Probe Mprobe
Ibsend Bsend_init Intercomm_create""".split()}
# Collectives over the processes of a group (MPI-4): on more than one rank
# the others never make the call, so their groups come from g_group_self
# (no process but this one).
GROUP_COLLECTIVES = {"MPI_Comm_create_from_group", "MPI_Intercomm_create_from_groups"}
# Calls that block until their requests complete: their request arrays come
# from g_waitreq (complete or inactive requests, or outside memory).
WAITS = {"MPI_Wait", "MPI_Waitall", "MPI_Waitany", "MPI_Waitsome"}

# On more than one rank, a blocking collective that one rank leaves early on
# a local error (e.g. a bad buffer at the root only) blocks the others: only
# the calls below get communicators with several ranks (nonblocking ones,
# whose requests are never waited for, and local ones); the others get
# MPI_COMM_SELF and its kin (see g_comm). Not MPI_Comm_idup: the bridge
# completes a pending duplication at MPI_Finalize, which then waits for
# every rank's part, and a rank that failed its call locally has none.
MULTI_RANK_OK = {f"MPI_{n}" for n in """Isend Irecv Issend Irsend Iprobe Improbe Send_init Recv_init Ssend_init
Rsend_init Comm_size Comm_rank Comm_group Comm_compare Comm_test_inter Comm_remote_size Comm_remote_group
Comm_get_name Comm_set_name Comm_get_info Comm_get_attr Comm_set_attr Comm_delete_attr Attr_get Attr_put Attr_delete
Comm_get_errhandler Comm_set_errhandler Comm_call_errhandler Cart_get Cart_rank Cart_coords Cart_shift Cartdim_get
Graph_get Graph_neighbors Graph_neighbors_count Graphdims_get Dist_graph_neighbors Dist_graph_neighbors_count
Topo_test Cart_map Graph_map Pack Unpack Pack_size""".split()}


def base_name(fn):
    """The function whose large-count form `fn` is (MPI_Rsend_c: MPI_Rsend):
    both block alike (the `_c` forms exist only on MPI-4 hosts, where a
    missed one hung the MPICH runs)."""
    return fn[:-2] if fn.endswith("_c") else fn


def nonblocking_collective(name):
    """MPI_Ibcast, MPI_Ineighbor_alltoall, ... (not Isend/Iprobe/...)."""
    return name.startswith("MPI_I") and name[5:6].islower()


HANDLE_GEN = {"MPI_Datatype": "g_type", "MPI_Group": "g_group", "MPI_Op": "g_op",
              "MPI_Info": "g_info", "MPI_Errhandler": "g_errh", "MPI_Request": "g_request", "MPI_File": "g_file", "MPI_Win": "g_win",
              "MPI_Session": "g_session",
              # the tool interface (pools in harness.c)
              "MPI_T_enum": "g_tenum", "MPI_T_cvar_handle": "g_cvar", "MPI_T_pvar_session": "g_pvar_session",
              "MPI_T_pvar_handle": "g_pvar", "MPI_T_event_registration": "g_event_registration",
              "MPI_T_event_instance": "g_event_instance"}


def aint_prototypes():
    """Functions returning MPI_Aint (gen_bridge's parser takes int/double)."""
    text = gen_bridge.HEADER.read_text()
    return {m.group(1): ("MPI_Aint", [p.strip() for p in m.group(2).split(",")])
            for m in re.finditer(r"^MPI_Aint (MPI_\w+)\(([^;]*)\);", text, re.M)}


def split_decl(cdecl):
    """'const int ranks[]' -> ('const int *', 'ranks'); 'int r[][3]' -> ('int (*)[3]', 'r')."""
    m = re.fullmatch(r"(.*?)\s*(\w+)((?:\[[^\]]*\])*)", cdecl.strip())
    base, name, dims = m.group(1).strip(), m.group(2), re.findall(r"\[([^\]]*)\]", m.group(3))
    if not dims:
        return base, name
    if len(dims) == 1:
        return f"{base} *", name
    return f"{base} (*)" + "".join(f"[{d}]" for d in dims[1:]), name


def arg(fn, ctype, kind):
    """(C type of the local, generator expression) for one parameter."""
    if "*" in ctype or "[" in ctype:
        callback = re.fullmatch(r"(?:const )?(MPI_\w+_function)\s*\*", ctype)
        if callback:
            return "uint32_t", f"g_fn((uint32_t)(uintptr_t)&cb_{callback.group(1)})"
        if base_name(fn) in WAITS and "MPI_Request" in ctype:
            return "uint32_t", "g_waitreq()"
        return "uint32_t", "g_ptr()"
    base = ctype.replace("const ", "").strip()
    if base == "MPI_Comm":
        # an immediate, not a variable in guest memory that MPI could overwrite
        return "uint32_t", f"g_comm({int(base_name(fn) in MULTI_RANK_OK or nonblocking_collective(fn))})"
    if base == "MPI_Group" and base_name(fn) in GROUP_COLLECTIVES:
        return "uint32_t", "g_group_self()"
    if base in HANDLE_GEN:
        return "uint32_t", HANDLE_GEN[base] + "()"
    if base == "MPI_T_cb_safety":
        return "int32_t", "g_cb_safety()"
    if base == "MPI_Count" or base == "MPI_Offset":
        return "int64_t", "g_count64()"
    if base == "MPI_Aint":
        return "int32_t", "g_aint()"
    if base == "int":
        if kind in ("RANK", "RANK_NNI"):
            return "int32_t", "g_norank()" if base_name(fn) in BLOCKING_P2P else "g_rank()"
        if kind == "TAG":
            return "int32_t", "g_tag()"
        if kind == "KEYVAL":
            return "int32_t", "g_keyval()"
        return "int32_t", "g_int()"
    raise SystemExit(f"{fn}: no generator for parameter type {ctype!r}")


def case(index, name, ret, cparams, kinds):
    lines = [f"    case {index}: {{ /* {name} */"]
    call_args, locals_, indices = [], [], []
    for i, (cdecl, kind) in enumerate(zip(cparams, kinds)):
        if cdecl == "...":
            continue
        ctype, _ = split_decl(cdecl)
        if re.fullmatch(r"MPI_\w+_function", ctype):
            ctype += " *"  # a function type parameter (MPI_T's callbacks)
        local, gen = arg(name, ctype, kind)
        lines.append(f"        {local} a{i} = {gen};")
        locals_.append(local)
        indices.append(i)
        cast = f"({ctype})(uintptr_t)a{i}" if local == "uint32_t" else f"({ctype})a{i}"
        call_args.append(cast)
    # with `trace`, the call and its arguments (a crash's reproducer)
    fmt = ", ".join("%lld" if local == "int64_t" else "%#x" for local in locals_)
    vals = "".join(f", (long long)a{i}" if local == "int64_t" else f", (unsigned)a{i}" for i, local in zip(indices, locals_))
    lines.append(f"        if (trace) trace_call(\"call {name}({fmt})\"{vals});")
    call = f"{name}({', '.join(call_args)})"
    made_window = [i for i, cdecl in zip(indices, (c for c in cparams if c != "...")) if split_decl(cdecl)[0].replace(" ", "") == "MPI_Win*"]
    if ret == "int" and made_window and name != "MPI_Win_free":
        lines.append(f"        int rc = {call};")
        lines.append(f"        if (rc == MPI_SUCCESS) quiet_window(a{made_window[0]});")
        lines.append("        return rc;")
    elif ret == "int":
        lines.append(f"        return {call};")
    else:
        lines.append(f"        sink_value = (double){call};")
        lines.append("        return MPI_SUCCESS;")
    lines.append("    }")
    return lines


def generate(provided):
    protos = {**gen_bridge.prototypes(), **aint_prototypes()}
    spec = gen_bridge.api()
    names = [n for n in provided if n not in EXCLUDED]
    out = ["/* Generated by tests/fuzz/gen_harness.py from the embedder's provided functions;",
           " * do not edit. */",
           "#include <stdio.h>", "", "#include \"harness.h\"", "",
           "static volatile double sink_value;", "",
           f"const unsigned fuzz_ncalls = {len(names)};",
           "const char* const fuzz_names[] = {"]
    out += [f"    \"{n}\"," for n in names]
    out += ["};", "", "int fuzz_call(unsigned index, int trace) {", "    switch (index) {"]
    for i, name in enumerate(names):
        if name not in protos:
            raise SystemExit(f"{name} is provided but not declared in {gen_bridge.HEADER}")
        ret, cparams = protos[name]
        # a large-count form is described by its int form
        described = spec.get(name.lower()) or spec.get(base_name(name).lower(), {})
        params = [p for p in described.get("parameters", []) if "c_parameter" not in p["suppress"]]
        # kinds only where the API's list matches the C prototype (the
        # large-count polymorphic ones differ): else by C type alone
        kinds = [p["kind"] for p in params] if len(params) == len(cparams) else [None] * len(cparams)
        out += case(i, name, ret, cparams, kinds)
    out += ["    }", "    return MPI_SUCCESS;", "}"]
    return "\n".join(out) + "\n"


def main():
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    provided = [l.strip() for l in Path(sys.argv[1]).read_text().splitlines() if l.strip().startswith("MPI_")]
    Path(sys.argv[2]).write_text(generate(provided))


if __name__ == "__main__":
    main()
