#!/usr/bin/env python3
"""Generate embedder/src/mpi/generated/ (one file per family): the MPI host
functions whose translation follows from their parameters' kinds.

Each function is described once: its C prototype comes from the guest
mpi-header/mpi.h (which fixes the wasm signature), its parameters' kinds and
directions from the MPI Forum's machine-readable API (pympistandard), and the
few facts the API does not state (how many elements a collective's buffer
holds, which rank/tag wildcards a parameter accepts) from the tables below.
Functions with semantics beyond their parameters (Wait/Test families, Alloc_mem,
...) are written by hand in the family files.

    python3 embedder/gen/gen_bridge.py          # rewrites generated/*.rs
"""
import json
import re
import sys
from pathlib import Path

import pympistandard

ROOT = Path(__file__).resolve().parents[2]
HEADER = ROOT / "mpi-header" / "mpi.h"
OUT = ROOT / "embedder" / "src" / "mpi" / "generated"

sys.path.insert(0, str(Path(__file__).resolve().parent))
import functions  # noqa: E402  (the table of every provided function)

NEIGHBOR = functions.NEIGHBOR
COLL = functions.COLL
TOPO = functions.TOPO
P2P = functions.P2P
COMM = functions.COMM
GROUP = functions.GROUP
FAMILIES = functions.GENERATED

SENDBUF_IN_PLACE = "sendbuf == abi::c::MPI_IN_PLACE as u32"
# recvcounts name the processes of the local group, also on an
# intercommunicator (MPI-3.1 5.10: "of length group size"; Open MPI and
# MPICH read that many, and size the input vector by their sum)
LOCAL_GROUP_COUNTS = {"Reduce_scatter", "Reduce_scatter_block"}
# Elements a collective buffer holds, as a Rust expression over the
# translated parameters (n = the number of ranks the arrays are indexed by).
SPANS = {
    ("Gather", "recvbuf"): "recvcount as i64 * n", ("Scatter", "sendbuf"): "sendcount as i64 * n",
    ("Allgather", "recvbuf"): "recvcount as i64 * n", ("Alltoall", "sendbuf"): "sendcount as i64 * n",
    ("Alltoall", "recvbuf"): "recvcount as i64 * n",
    ("Reduce_scatter_block", "sendbuf"): "recvcount as i64 * n",
    # partitioned: `partitions` partitions of `count` elements each
    ("Psend", "buf"): "cx.partitioned(partitions, count)?", ("Precv", "buf"): "cx.partitioned(partitions, count)?",
    ("Reduce_scatter", "sendbuf"): "recvcounts_.sum",
    # with MPI_IN_PLACE the input, the whole vector, is in recvbuf
    ("Reduce_scatter", "recvbuf"): f"if {SENDBUF_IN_PLACE} {{ recvcounts_.sum }} else {{ recvcounts_.at(comm_.rank) }}",
    ("Reduce_scatter_block", "recvbuf"): f"if {SENDBUF_IN_PLACE} {{ recvcount as i64 * n }} else {{ recvcount as i64 }}",
    # neighbourhood collectives: one block per in-neighbour received, per
    # out-neighbour sent (in_n, out_n: the degrees of the comm's topology)
    ("Neighbor_allgather", "recvbuf"): "recvcount as i64 * in_n",
    ("Neighbor_alltoall", "sendbuf"): "sendcount as i64 * out_n",
    ("Neighbor_alltoall", "recvbuf"): "recvcount as i64 * in_n",
    # one element of `datatype` each
    ("Fetch_and_op", "origin_addr"): "1", ("Fetch_and_op", "result_addr"): "1",
    ("Compare_and_swap", "origin_addr"): "1", ("Compare_and_swap", "compare_addr"): "1",
    ("Compare_and_swap", "result_addr"): "1",
}
# Counts arrays that size buffers by their sum and by this rank's entry
# (SPANS above): copied once, before the buffers (`Ctx::summed_ints`).
SUMMED = {"Reduce_scatter": "recvcounts"}
# RMA target ranges: (element count, datatype) at the target, checked
# against the target's window (`Ctx::target`).
TARGET = {"Fetch_and_op": ("1", "datatype"), "Compare_and_swap": ("1", "datatype")}
TARGET_DEFAULT = ("target_count as i64", "target_datatype")
# v-collective buffers: (counts array, displacements array)
VSPANS = {
    ("Gatherv", "recvbuf"): ("recvcounts", "displs"), ("Scatterv", "sendbuf"): ("sendcounts", "displs"),
    ("Allgatherv", "recvbuf"): ("recvcounts", "displs"),
    ("Alltoallv", "sendbuf"): ("sendcounts", "sdispls"), ("Alltoallv", "recvbuf"): ("recvcounts", "rdispls"),
    ("Neighbor_allgatherv", "recvbuf"): ("recvcounts", "displs"),
    ("Neighbor_alltoallv", "sendbuf"): ("sendcounts", "sdispls"),
    ("Neighbor_alltoallv", "recvbuf"): ("recvcounts", "rdispls"),
}
# Where MPI_IN_PLACE is accepted (MPI-4.0, chapter 6), on intracommunicators
# only: "root" at the root, "all" at every rank. Nowhere else: not on
# intercommunicators, not in Bcast, Reduce_local, neighbourhood collectives
# or point-to-point calls, where the buffer translators (cx.buffer,
# cx.vbuffer) refuse it like any other address. Alltoallw's rule is in coll.rs.
IN_PLACE = {
    ("Gather", "sendbuf"): "root", ("Gatherv", "sendbuf"): "root",
    ("Scatter", "recvbuf"): "root", ("Scatterv", "recvbuf"): "root",
    ("Reduce", "sendbuf"): "root",
    **{(c, "sendbuf"): "all" for c in """Allgather Allgatherv Alltoall Alltoallv Allreduce
       Reduce_scatter Reduce_scatter_block Scan Exscan""".split()},
}
# Generated, but registered by a hand-written wrapper in the family file
# (attribute copy callbacks run after the host call).
WRAPPED = functions.WRAPPED
# How many entries a neighbourhood collective's per-neighbour arrays hold
# (the others' arrays hold one entry per rank, n).
NEIGHBOR_ARRAYS = {"sendcounts": "out_n", "sdispls": "out_n", "recvcounts": "in_n", "displs": "in_n", "rdispls": "in_n"}
# Lengths of topology arrays the parameters alone do not give, as Rust i64
# expressions (helpers in topo.rs query the communicator's topology or sum
# the degrees; arrays they read are checked first, in parameter order).
CART_DIMS, GRAPH_DIMS, DEGREES = "cx.cartdim(&comm_)?", "cx.graphdims(&comm_)?", "cx.neighbor_degrees(&comm_)?"
# Each is a host call: asked once per function, at its first use, and bound
# to this name for the other arrays.
TOPOLOGY_QUERIES = {CART_DIMS: "topo_cartdim", GRAPH_DIMS: "topo_graphdims", DEGREES: "topo_degrees"}
LENGTHS = {
    ("Cart_rank", "coords"): CART_DIMS,
    ("Cart_sub", "remain_dims"): CART_DIMS,
    ("Graph_create", "edges"): "cx.graph_edges(index, nnodes)?",
    ("Graph_map", "edges"): "cx.graph_edges(index, nnodes)?",
    ("Dist_graph_create", "destinations"): "cx.degree_sum(degrees, n)?",
    ("Dist_graph_create", "weights"): "cx.degree_sum(degrees, n)?",
    ("Dist_graph_create_adjacent", "sourceweights"): "indegree as i64",
    ("Dist_graph_create_adjacent", "destweights"): "outdegree as i64",
    ("Dist_graph_neighbors", "sourceweights"): f"{DEGREES}.0.max(maxindegree as i64)",
    ("Dist_graph_neighbors", "destweights"): f"{DEGREES}.1.max(maxoutdegree as i64)",
}
# Int outputs sized by a `max*` argument: (real length, the `max*`
# parameter). The guest's array holds `max*` entries, and some MPIs (MPICH's
# MPI_Graph_neighbors) write the real length whatever `max*` says, so the
# host writes into a copy when the real length is larger
# (`Ctx::bounded_out`, topo.rs) and the guest gets `max*` entries.
BOUNDED = {
    **{("Cart_get", a): (CART_DIMS, "maxdims") for a in ("dims", "periods", "coords")},
    ("Cart_coords", "coords"): (CART_DIMS, "maxdims"),
    ("Graph_get", "index"): (f"{GRAPH_DIMS}.0", "maxindex"),
    ("Graph_get", "edges"): (f"{GRAPH_DIMS}.1", "maxedges"),
    ("Graph_neighbors", "neighbors"): ("cx.graph_degree(&comm_, rank_)?", "maxneighbors"),
    ("Dist_graph_neighbors", "sources"): (f"{DEGREES}.0", "maxindegree"),
    ("Dist_graph_neighbors", "destinations"): (f"{DEGREES}.1", "maxoutdegree"),
}
# Arguments the host MPI trusts blindly, validated by helpers (topology in
# topo.rs, groups in group.rs) just before the host call (after every array
# is bounds-checked).
ARG_CHECKS = {
    "Comm_create": ["cx.check_subgroup(&comm_, group_)?"],
    "Get_elements": ["cx.check_element_count(&status_, datatype, &datatype_)?"],
    "Get_elements_x": ["cx.check_element_count(&status_, datatype, &datatype_)?"],
    "Status_set_elements": ["cx.check_set_elements(&datatype_, count as i64)?"],
    "Status_set_elements_x": ["cx.check_set_elements(&datatype_, count)?"],
    # the block a process sends itself: (function, which processes have
    # both sides, send count, receive count)
    **{form.format(f, f[0].lower() + f[1:]): [f"cx.check_self_block(&comm_, {both}, sendbuf_, recvbuf_, ({send}, sendtype_), ({recv}, recvtype_))?"]
       for f, both, send, recv in (("Allgather", "true", "sendcount", "recvcount"), ("Gather", "root_args", "sendcount", "recvcount"),
                                   ("Scatter", "root_args", "sendcount", "recvcount"), ("Alltoall", "true", "sendcount", "recvcount"),
                                   ("Allgatherv", "true", "sendcount", "recvcounts_"), ("Gatherv", "root_args", "sendcount", "recvcounts_"),
                                   ("Scatterv", "root_args", "sendcounts_", "recvcount"), ("Alltoallv", "true", "sendcounts_", "recvcounts_"))
       for form in ("{0}", "I{1}", "{0}_init")},
    # a reduction's send and receive buffers: (function, both significant
    # here, send elements, receive elements)
    **{form.format(f, f[0].lower() + f[1:]): [f"cx.check_disjoint_equal({both}, sendbuf_, recvbuf_, count as i64, &datatype_)?"]
       for f, both in (("Reduce", "root_args && other_args"), ("Allreduce", "true"), ("Scan", "true"), ("Exscan", "true"))
       for form in ("{0}", "I{1}", "{0}_init")},
    # and MPICH's non-commutative reduce-scatter (`Ctx::check_host_reduce_scatter`)
    **{form.format(f, f[0].lower() + f[1:]): [f"cx.check_disjoint(true, sendbuf_, {send}, recvbuf_, {recv}, &datatype_)?",
                                               f"cx.check_host_reduce_scatter(&comm_, op_, {send}, &datatype_)?"]
       for f, send, recv in (("Reduce_scatter_block", "recvcount as i64 * n", "recvcount as i64"),
                             ("Reduce_scatter", "recvcounts_.sum", "recvcounts_.at(comm_.rank)"))
       for form in ("{0}", "I{1}", "{0}_init")},
    # the blocks a process that is its own neighbour sends itself
    **{form.format(f, f[0].lower() + f[1:]): [f"cx.check_neighbor_self_blocks(&comm_, ({send}, sendtype_), ({recv}, recvtype_))?"]
       for f, send, recv in (("Neighbor_allgather", "sendcount", "recvcount"), ("Neighbor_alltoall", "sendcount", "recvcount"),
                             ("Neighbor_allgatherv", "sendcount", "recvcounts_"), ("Neighbor_alltoallv", "sendcounts_", "recvcounts_"))
       for form in ("{0}", "I{1}", "{0}_init")},
    # a one-sided transfer: (what is sent, what receives it); a fetch's
    # target sends to its result buffer; MPI_NO_OP ignores the origin
    **{f: ["cx.check_rma_transfer((origin_count as i64, &origin_datatype_), (target_count as i64, &target_datatype_))?"]
       for f in ("Put", "Rput", "Accumulate", "Raccumulate")},
    **{f: ["cx.check_rma_transfer((target_count as i64, &target_datatype_), (origin_count as i64, &origin_datatype_))?"]
       for f in ("Get", "Rget")},
    **{f: ["if op != abi::c::MPI_NO_OP { cx.check_rma_transfer((origin_count as i64, &origin_datatype_), (target_count as i64, &target_datatype_))? }",
           "cx.check_rma_transfer((target_count as i64, &target_datatype_), (result_count as i64, &result_datatype_))?"]
       for f in ("Get_accumulate", "Rget_accumulate")},
    "Comm_create_group": ["cx.check_subgroup(&comm_, group_)?"],
    "Win_post": ["cx.check_win_subgroup(&win_, group_)?"],
    "Win_start": ["cx.check_win_subgroup(&win_, group_)?"],
    "Intercomm_merge": ["cx.check_intercomm(&comm_)?"],
    # MPICH 5.0.2 asserts on an intracommunicator (Open MPI 4: MPI_ERR_COMM,
    # MPICH 4.0: success)
    "Comm_remote_group": ["cx.check_intercomm(&comm_)?"],
    "Dims_create": ["cx.check_dims_create(nnodes, ndims, dims)?", "cx.fix_free_dims(nnodes, ndims, dims)?"],
    "File_sync": ["cx.finish_file_requests(fh)?"],
    "Cart_create": ["cx.check_cart(&comm_, ndims, dims)?"],
    "Cart_map": ["cx.check_cart(&comm_, ndims, dims)?"],
    "Cart_get": ['cx.check_max("maxdims", maxdims)?'],
    "Cart_coords": ['cx.check_max("maxdims", maxdims)?'],
    "Cart_rank": ["cx.check_cart_coords(&comm_, coords)?"],
    "Cart_shift": ["cx.check_direction(&comm_, direction)?"],
    "Graph_create": ["cx.check_graph(&comm_, nnodes, index, edges)?"],
    "Graph_map": ["cx.check_graph(&comm_, nnodes, index, edges)?"],
    "Graph_get": ['cx.check_max("maxindex", maxindex)?', 'cx.check_max("maxedges", maxedges)?'],
    "Graph_neighbors": ['cx.check_max("maxneighbors", maxneighbors)?'],
    "Dist_graph_create": ["cx.check_dist_graph(&comm_, n, sources, degrees, destinations, weights)?"],
    "Dist_graph_create_adjacent": ["cx.check_adjacent(&comm_, indegree, sources, sourceweights, outdegree, destinations, destweights)?"],
    "Dist_graph_neighbors": ['cx.check_max("maxindegree", maxindegree)?', 'cx.check_max("maxoutdegree", maxoutdegree)?'],
    # (true: the peer is MPI_PROC_NULL, nothing to tell the host: PROC_NULL_PARTITIONED)
    "Pready": ["if cx.check_partitions(request, [partition])? { return Ok(()); }"],
    "Pready_range": ["if cx.check_partition_range(request, partition_low, partition_high)? { return Ok(()); }"],
    "Pready_list": ["if cx.check_partitions(request, unsafe { std::slice::from_raw_parts(array_of_partitions_, length.max(0) as usize) }.iter().copied())? { return Ok(()); }"],
    "Parrived": ["if cx.check_partitions(request, [partition])? { return cx.write_int(flag, 1i32); }"],
}
# Calls whose send and receive buffers may not share a byte (`Ctx::check_apart`,
# types whose data fill their buffers): each buffer binds `<name>_span`, its host bytes. Keys as
# `base` gives them (every form: nonblocking, persistent, large-count). The
# reductions have `check_disjoint` (ARG_CHECKS); the w-collectives are coll.rs.
APART = {"Sendrecv", "Isendrecv", "Allgather", "Allgatherv", "Alltoall", "Alltoallv", "Gather", "Gatherv", "Scatter", "Scatterv",
         "Neighbor_allgather", "Neighbor_allgatherv", "Neighbor_alltoall", "Neighbor_alltoallv"}
# A partitioned communication with MPI_PROC_NULL has no effect (MPI-4.1
# 4.10), and MPICH crashes on one: the host gets a persistent send or receive
# with MPI_PROC_NULL instead (count 0: the same completion and status), and
# Pready/Parrived do nothing on it. Function -> (that call, the peer).
PROC_NULL_PARTITIONED = {"Psend_init": ("MPI_Send_init", "dest"), "Precv_init": ("MPI_Recv_init", "source")}
# An MPI_Isendrecv whose two peers are MPI_PROC_NULL has no effect and
# completes at once with an empty status (MPI-4.1 3.10, 3.11); MPICH 4.0
# crashes on one (SIGSEGV in UCX's send on two processes, a hang on one) and
# MPICH 5 leaves its status unwritten: the host gets the receive from
# MPI_PROC_NULL instead (the same completion and status). Function -> that
# receive's buffer, count and type.
PROC_NULL_SENDRECV = {"Isendrecv": ("recvbuf", "recvcount", "recvtype"), "Isendrecv_replace": ("buf", "count", "datatype")}
# Arguments significant only at a leader rank (the standard's "significant
# only at local_leader"): function -> (the leader parameter, the parameters
# only it reads). Other ranks may pass anything there (-1, MPI_COMM_NULL), so
# they are not checked; the host gets neutral values (0, its MPI_COMM_NULL).
LEADER_ONLY = {
    "Intercomm_create": ("local_leader", {"peer_comm", "remote_leader"}),
}
# Scalar kinds whose guest values the bridge translates to the host's with
# one checked helper (`Ctx::<helper>`): kind -> helper.
TRANSLATED = {"LOCK_TYPE": "lock_type", "ASSERT": "rma_assert", "UPDATE_MODE": "whence", "SPLIT_TYPE": "split_type"}
# Parameters that are C int arrays (ranks, dimensions, flags, coordinates,
# graph indices, degrees): handed to the host in place.
INT_ARRAYS = {"RANK", "RANK_NNI", "DIMENSION", "LOGICAL", "COORDINATE", "INDEX", "DEGREE", "PARTITION"}
# Source ranks and receive tags accept the wildcards.
WILDCARD_PARAMS = {"source", "recvtag"}
RECEIVE_FUNCS = {"Recv", "Irecv", "Recv_init", "Probe", "Iprobe", "Mprobe", "Improbe"}


def base(name):
    """'MPI_Igather' -> 'Gather' (the blocking form's table key); the
    large-count and persistent forms share it ('MPI_Igather_c',
    'MPI_Gather_init' -> 'Gather')."""
    n = plain(name[4:])
    if n.startswith("I") and n[1:2].islower() and n not in ("Iprobe", "Improbe", "Imrecv", "Isend", "Irecv", "Ibsend", "Issend", "Irsend", "Intercomm_create", "Intercomm_merge", "Isendrecv", "Isendrecv_replace"):
        n = n[1].upper() + n[2:]
    return n.removesuffix("_init")


def plain(short):
    """'Recv_c' -> 'Recv': a large-count form follows its int form's rules."""
    return short.removesuffix("_c")


def prototypes():
    text = HEADER.read_text()
    protos = {}
    for m in re.finditer(r"^(int|double) (MPI_\w+)\(([^;]*)\);", text, re.M):
        params = [p.strip() for p in " ".join(m.group(3).split()).split(",")] if m.group(3).strip() != "void" else []
        protos[m.group(2)] = (m.group(1), params)
    return protos


def wasm_type(cdecl):
    if "*" in cdecl or "[" in cdecl:
        return "u32"
    ctype = cdecl.rsplit(" ", 1)[0].replace("const ", "").strip()
    return {"MPI_Count": "i64", "MPI_Offset": "i64", "double": "f64"}.get(ctype, "i32")


def api():
    with open(Path(pympistandard.__file__).parent / "data" / "apis.json") as f:
        return json.load(f)


class Fn:
    def __init__(self, name, spec, proto):
        self.name, self.short = name, name[4:]
        self.key = base(name)
        self.params = [p for p in spec["parameters"] if "c_parameter" not in p["suppress"]]
        self.ret, cparams = proto
        assert len(cparams) == len(self.params), name
        for p, c in zip(self.params, cparams):
            p["wasm"] = wasm_type(c)
            p["cdecl"] = c
        self.by_name = {p["name"]: p for p in self.params}
        self.neighbor = self.key in NEIGHBOR
        self.collective = name in {"MPI_" + c for c in COLL} or self.neighbor

    def first(self, kind, direction=None):
        for p in self.params:
            if p["kind"] == kind and (direction is None or p["param_direction"] == direction) and not p["length"]:
                return p
        return None


def rust_ident(n):
    return {"type": "type_", "ref": "ref_"}.get(n, n)


def gen_fn(f):
    P = f.params
    comm = f.first("COMMUNICATOR", "in")
    errcomm = comm["name"] if comm else "abi::c::MPI_COMM_WORLD"
    # MPI-IO: errors go to the file's handler (call_file)
    fh = f.first("FILE", "in")
    # RMA: errors go to the window's handler (call_win)
    wn = f.first("WINDOW", "in")
    sig = ", ".join(f"{rust_ident(p['name'])}: {p['wasm']}" for p in P)
    # `always`: after the host call whatever it returned (a message the host
    # consumed is gone even when the receive fails, e.g. truncated)
    body, args, after, always = [], [], [], []
    asked = set()

    def queried_once(expr):
        """`expr` with its topology queries (TOPOLOGY_QUERIES) bound before
        it, the first time each is used."""
        for query, var in TOPOLOGY_QUERIES.items():
            if query in expr:
                if query not in asked:
                    asked.add(query)
                    body.append(f"let {var} = {query};")
                expr = expr.replace(query, var)
        return expr

    rooted = f.collective and "root" in f.by_name
    if comm:
        body.append(f"let comm_ = cx.comm({comm['name']})?;")
    if fh and f.key.endswith("_end"):
        return split_end(f, fh, sig)
    if fh:
        body.append(f"let {fh['name']}_ = cx.file({fh['name']})?;")
    if fh and f.key.endswith("_begin"):
        body.append(f"cx.split_free({fh['name']})?;")
    if wn:
        body.append(f"let {wn['name']}_ = cx.win({wn['name']})?;")
    if f.neighbor:
        body.append("let (in_n, out_n) = cx.neighbor_degrees(&comm_)?;")
    elif f.collective and any(p["length"] for p in P) or (f.key, "recvbuf") in SPANS or (f.key, "sendbuf") in SPANS:
        body.append(f"let n = comm_.{'local' if f.key in LOCAL_GROUP_COUNTS else 'peers'};")
    if f.key in SUMMED:
        a = SUMMED[f.key]
        summed = "summed_counts" if "MPI_Count" in f.by_name[a]["cdecl"] else "summed_ints"
        body.append(f"let {a}_ = cx.{summed}({a}, n)?;")
    if rooted:
        body.append("let root_ = cx.root(root)?;")
        # which of this rank's arguments MPI reads: root-only ones at the
        # root, the others everywhere on an intracommunicator (on an
        # intercommunicator, only in the non-root group)
        body.append("let (root_args, other_args) = comm_.root_roles(root);")
    leader, leader_only = LEADER_ONLY.get(plain(f.short), (None, set()))
    if leader:
        body.append(f"let at_leader = comm_.rank == {leader};")
    done, spanned = set(), set()
    # datatypes shared by several buffers (or outside collectives) are
    # translated up front; a collective buffer's own type only where MPI
    # reads it (not with MPI_IN_PLACE, not at ranks that ignore it)
    for p in P:
        if p["kind"] == "DATATYPE" and not p["length"] and p["param_direction"] == "in":
            users = [q for q in P if q["kind"] == "BUFFER" and pair(f, q, "DATATYPE") is p]
            if len(users) != 1 or not f.collective:
                body.append(f"let {p['name']}_ = cx.datatype({p['name']})?;")
                done.add(p["name"])
    for p in P:
        k, d, n = p["kind"], p["param_direction"], rust_ident(p["name"])
        if k == "BUFFER" and f.key.endswith("_end"):
            # a split collective's end: the buffer its begin checked
            body.append(f"let {n}_ = cx.split_end({fh['name']}, {n})?;")
            args.append(f"{n}_ as _")
        elif k == "BUFFER":
            dt = pair(f, p, "DATATYPE")
            cond = significance(f, p, rooted)
            own = dt["name"] not in done
            dt_ref = "&dt" if own else f"&{dt['name']}_"
            vspan = None
            if (f.key, p["name"]) in VSPANS:
                counts, displs = VSPANS[(f.key, p["name"])]
                # large-count forms: MPI_Count counts, 32-bit guest MPI_Aint displacements
                vbuffer = "vbuffer_c" if f.short.endswith("_c") else "vbuffer"
                translate = f"cx.{vbuffer}({n}, {counts}, {displs}, {peers(f, counts)}, {dt_ref})?"
                # the arrays' host copies come with the buffer (`VBuffer`)
                assert f.collective and own, f.name
                for a in (counts, displs):
                    assert significance(f, f.by_name[a], rooted) == cond, (f.name, a)
                    spanned.add(a)
                vspan = (counts, displs, [array_copy(f, f.by_name[a]) for a in (counts, displs)])
            else:
                count = SPANS.get((f.key, p["name"])) or f"{pair(f, p, 'POLYXFER_NUM_ELEM_NNI')['name']} as i64"
                # a count read from a guest array first (that reading borrows cx)
                translate = (f"{{ let len = {count}; cx.buffer({n}, len, {dt_ref})? }}" if "cx." in count
                             else f"cx.buffer({n}, {count}, {dt_ref})?")
                if f.key in APART and f.collective:
                    assert own and "cx." not in count, f.name
            if not f.collective:
                body.append(f"let {n}_ = {translate};")
                if f.key in APART:
                    body.append(f"let {n}_span = SolidSpan::of({n}_, {count}, {dt_ref});")
            else:
                apart = (count if not vspan else True) if f.key in APART else None
                body.append(collective_buffer(f, p, dt, cond, translate, own, vspan, apart))
            args.append(f"{n}_ as _")
            if f.key.endswith("_begin"):
                after.append(f"cx.split_begin({fh['name']}, {n}, status_)?;")
        elif k == "DATATYPE" and not p["length"] and fh and f.short.endswith("_c") and any(q["name"] == "count" for q in P):
            args.append("large_.host.0")
        elif k == "DATATYPE" and not p["length"]:
            args.append(f"{n}_.host.0" if p["name"] in done else f"{n}_")
        elif k in ("POLYXFER_NUM_ELEM_NNI", "POLYDISPLACEMENT") and p["length"]:
            # inputs: host copies (guest code may run before the host is
            # done), a v-collective buffer's made with its check
            if SUMMED.get(f.key) == p["name"]:
                args.append(f"{n}_.host as _")
                continue
            if p["name"] not in spanned:
                cond = significance(f, p, rooted)
                body.append(f"let {n}_ = if {cond} {{ {array_copy(f, p)} }} else {{ std::ptr::null() }};")
            args.append(f"{n}_ as _")
        elif k in INT_ARRAYS and p["length"]:
            # rank lists, [n][3] range triples, topology arrays: inputs as
            # host copies, outputs in place (C `int` is the same on both sides)
            if d != "in" and (f.key, p["name"]) in BOUNDED:
                real, bound = BOUNDED[(f.key, p["name"])]
                body.append(f"let mut {n}_ = cx.bounded_out({n}, {bound}, {queried_once(real)})?;")
                args.append(f"{n}_.host()")
                after.append(f"{n}_.finish();")
            else:
                fn_ = "int_array" if d == "in" else "int_array_out"
                body.append(f"let {n}_ = cx.{fn_}({n}, {queried_once(array_length(f, p))})?;")
                args.append(f"{n}_ as _")
        elif k == "WEIGHT":
            # the standard ABI's MPI_UNWEIGHTED/MPI_WEIGHTS_EMPTY become the host's
            out = "true" if d == "out" else "false"
            body.append(f"let {n}_ = cx.weights({n}, {queried_once(array_length(f, p))}, {out})?;")
            args.append(f"{n}_.as_ptr() as _")
        elif k in ("POLYXFER_NUM_ELEM_NNI", "XFER_NUM_ELEM_NNI", "POLYXFER_NUM_ELEM", "XFER_NUM_ELEM") and d == "in" and fh:
            # MPI-IO of a datatype that carries no data moves nothing: the
            # host gets count 0 (Open MPI's OMPIO divides by the type's size
            # and dies of SIGFPE for any other count)
            assert "datatype" in done, f.name
            # elements that all lie on the same bytes are refused (`Ctx::io_elements`)
            body.append(f"cx.io_elements({n} as i64, &datatype_)?;")
            moved = f"if datatype_.true_extent() <= 0 {{ 0 }} else {{ {n} }}"
            if f.short.endswith("_c"):
                # past INT_MAX elements, ROMIO's large-count calls assert()
                # and abort the process: `Ctx::large_file_count`
                body.append(f"let large_ = cx.large_file_count({moved}, &datatype_)?;")
                args.append("large_.count")
            else:
                args.append(moved)
        elif k in ("POLYXFER_NUM_ELEM_NNI", "XFER_NUM_ELEM_NNI") and d == "in":
            args.append(n)
        elif k == "RANK" and d == "in" and not p["length"]:
            if p["name"] == "root" and rooted:
                args.append("root_")
            elif f.short in TOPO:
                # a rank whose place in the grid/graph is looked up: one of comm's
                body.append(f"let {n}_ = cx.topo_rank(&comm_, {n})?;")
                args.append(f"{n}_")
            else:
                # no wildcards in partitioned receives (MPI-4.1 4.2.2):
                # MPICH refuses MPI_ANY_SOURCE, Open MPI 5 takes it
                wild = "true" if p["name"] in WILDCARD_PARAMS and f.short != "Precv_init" else "false"
                # partitioned: Open MPI 5 does not check the peer's range
                check = f"cx.peer(&comm_, {n}, {wild})?" if f.short in ("Psend_init", "Precv_init") else f"cx.rank({n}, {wild})?"
                body.append(f"let {n}_ = {at_leader(p, leader_only, check, '0')};")
                args.append(f"{n}_")
        elif k == "RANK_NNI" and d == "in" and not p["length"] and wn:
            # a rank of the window's group; MPI_PROC_NULL only as a
            # communication call's target (MPI-4.1 12.3), not to lock or flush
            proc_null = "true" if p["name"] == "target_rank" else "false"
            body.append(f"let {n}_ = cx.win_rank({wn['name']}_, {n}, {proc_null})?;")
            args.append(f"{n}_")
        elif k == "RANK_NNI" and d == "in" and not p["length"]:
            body.append(f"let {n}_ = cx.rank({n}, false)?;")
            args.append(f"{n}_")
        elif k == "RMA_DISPLACEMENT_NNI" and d == "in":
            count, dt = TARGET.get(f.key, TARGET_DEFAULT)
            body.append(f"let {n}_ = cx.target({wn['name']}_, target_rank_, {n}, {count}, &{dt}_)?;")
            args.append(f"{n}_ as _")
        elif k in TRANSLATED and d == "in":
            body.append(f"let {n}_ = cx.{TRANSLATED[k]}({n})?;")
            args.append(f"{n}_")
        elif k == "WINDOW" and d == "in":
            args.append(f"{n}_.host.0")
        elif k == "TAG" and d == "in":
            wild = "true" if (p["name"] == "recvtag" or (p["name"] == "tag" and plain(f.short) in RECEIVE_FUNCS)) else "false"
            body.append(f"let {n}_ = {at_leader(p, leader_only, f'cx.tag({n}, {wild})?', '0')};")
            args.append(f"{n}_")
        elif k == "COMMUNICATOR" and d == "in":
            # a second communicator (peer_comm, comm2) may be MPI_COMM_NULL where MPI ignores it
            other = at_leader(p, leader_only, f"cx.comm_or_null({n})?", "host_mpi::null_communicator().0")
            args.append("comm_.host.0" if p is comm else other)
        elif k == "OPERATION" and d == "in":
            body.append(f"let {n}_ = cx.op({n})?;")
            if "datatype" in f.by_name and not wn:
                # predefined operations on long double are the bridge's (binary128.rs)
                body.append(f"let {n}_ = cx.bridge.reduction_op({n}, {n}_, datatype, &datatype_)?;")
            args.append(f"{n}_.0")
        elif k == "STATUS" and d == "out" and not p["length"]:
            body.append(f"cx.check_status_ptr({n})?;")
            body.append(f"let mut {n}_ = host_mpi::empty_status();")
            args.append(f"&mut {n}_")
            after.append(f"cx.write_status({n}, &{n}_)?;")
        elif k == "STATUS" and d == "in":
            body.append(f"let {n}_ = cx.read_status({n})?;")
            args.append(f"&{n}_")
        elif k == "STATUS" and d == "inout":
            body.append(f"let mut {n}_ = cx.read_status({n})?;")
            args.append(f"&mut {n}_ as *mut _ as *mut _")
            after.append(f"cx.write_status({n}, &{n}_)?;")
        elif k == "REQUEST" and d == "out":
            persistent = "true" if plain(f.short).endswith("_init") else "false"
            # a collective's request holds its user operation and derived
            # datatypes, which the guest may free before it is done (held.rs;
            # point-to-point requests have the host's own hold)
            objects = [f"held::Of::Type({q['name']})" for q in P if q["kind"] == "DATATYPE" and not q["length"]]
            objects += [f"held::Of::Op({q['name']})" for q in P if q["kind"] == "OPERATION"]
            if f.collective and objects:
                finish = f"cx.out_request_holding({n}, {n}_, {persistent}, &[{', '.join(objects)}])?;"
            elif "fh" in f.by_name:
                # a file's operations complete before it closes (file.rs)
                finish = f"cx.out_file_request({n}, {n}_, fh)?;"
            else:
                finish = f"cx.out_request({n}, {n}_, {persistent})?;"
            out_handle(body, args, after, n, "null_request", finish)
            if "partitions" in f.by_name:
                after.append(f"cx.set_partitions({n}, partitions, null_peer)?;")
        elif k == "REQUEST" and d == "in":
            handle = f"cx.mem.read_i32({n})?" if p["wasm"] == "u32" else n
            body.append(f"let {n}_ = cx.request({handle})?;")
            args.append(f"&{n}_.0 as *const _ as *mut _" if "*" in p["cdecl"] else f"{n}_.0")
        elif k == "MESSAGE" and d == "out":
            out_handle(body, args, after, n, "null_message", f"cx.out_message({n}, {n}_)?;")
        elif k == "MESSAGE" and d == "inout":
            body.append(f"let mut {n}_ = cx.message({n})?;")
            args.append(f"&mut {n}_.0")
            always.append(f"cx.done_message({n}, {n}_)?;")
        elif k == "FILE" and d == "in":
            args.append(f"{n}_.0")
        elif k == "OFFSET" and d == "in" and "_at" in f.short:
            # an explicit offset: Open MPI takes a negative one and then
            # writes where it should not (natively: SIGSEGV in the wait);
            # ROMIO aborts the job for one whose access ends past 2^63
            body.append(f"cx.explicit_offset(fh, {n}, count as i64, &datatype_)?;")
            args.append(n)
        elif k == "OFFSET" and d == "in":
            args.append(n)
        elif k == "ACCESS_MODE" and d == "out":
            out_int(body, args, after, n, f"cx.write_amode({n}, {n}_)?;")
        elif k in ("LOGICAL", "POLYXFER_NUM_ELEM", "XFER_NUM_ELEM", "POLYDTYPE_NUM_ELEM", "NUM_BYTES", "COMM_SIZE", "COMM_SIZE_PI",
                   "NUM_DIMS", "ARRAY_LENGTH", "DEGREE", "OFFSET") and d == "out" and not p["length"]:
            ty = "i64" if "MPI_Count" in p["cdecl"] or "MPI_Offset" in p["cdecl"] else "i32"
            body.append(f"cx.mem.range({n}, std::mem::size_of::<{ty}>() as u64)?;")
            body.append(f"let mut {n}_: {ty} = 0;")
            args.append(f"&mut {n}_")
            after.append(f"cx.write_int({n}, {n}_)?;")
        elif k in ("POLYXFER_NUM_ELEM", "XFER_NUM_ELEM", "POLYDTYPE_NUM_ELEM") and d == "in":
            args.append(n)
        elif k in ("LOGICAL", "KEY", "ARRAY_LENGTH", "ARRAY_LENGTH_NNI", "COMM_SIZE", "NUM_DIMS", "INDEX", "DIMENSION", "DEGREE", "PARTITION") and d == "in" and not p["length"]:
            args.append(n)
        elif k == "RANK" and d == "out" and not p["length"]:
            out_int(body, args, after, n, f"cx.write_rank({n}, {n}_)?;")
        elif k == "TOPOLOGY_TYPE" and d == "out":
            out_int(body, args, after, n, f"cx.write_topology({n}, {n}_)?;")
        elif k in ("COMM_COMPARISON", "GROUP_COMPARISON") and d == "out":
            out_int(body, args, after, n, f"cx.write_comparison({n}, {n}_)?;")
        elif k == "COLOR" and d == "in":
            body.append(f"let {n}_ = cx.color({n});")
            args.append(f"{n}_")
        elif k in ("GROUP", "INFO") and d == "in" and not p["length"]:
            body.append(f"let {n}_ = cx.{k.lower()}({n})?;")
            args.append(f"{n}_.0")
        elif k in ("GROUP", "INFO", "COMMUNICATOR") and d == "out" and not p["length"]:
            kind = k.lower()
            finish = f"cx.out_comm({n}, {n}_, {errcomm})?;" if k == "COMMUNICATOR" else f"cx.out_{kind}({n}, {n}_)?;"
            out_handle(body, args, after, n, f"null_{kind}", finish)
        else:
            raise SystemExit(f"{f.name}: no rule for parameter {p['name']} ({k}, {d}, length {p['length']})")
    if f.key in APART:
        body.append("cx.check_apart(sendbuf_span, recvbuf_span)?;")
    body += [f"{c};" for c in ARG_CHECKS.get(plain(f.short), [])]
    host_fn = f.name
    if fh and f.key.endswith("_begin"):
        # a split collective runs whole at its begin, as the standard allows
        # (MPI-4.1 14.4.5); its status waits for the end (Open MPI's split
        # reads never complete past the end of the file: file_nonblocking.rs)
        host_fn = f.name.replace("_begin", "")
        body.append("let mut status_ = host_mpi::empty_status();")
        args.append("&mut status_")
    call = f"host_mpi::ffi::{host_fn}({', '.join(args)})"
    if plain(f.short) in PROC_NULL_PARTITIONED:
        plain_init, peer = PROC_NULL_PARTITIONED[plain(f.short)]
        body.append(f"let null_peer = cx.is_proc_null({peer}_);")
        call = (f"if null_peer {{ host_mpi::ffi::{plain_init}(buf_ as _, 0, datatype_.host.0, {peer}_, tag_, comm_.host.0, &mut request_.0) }} "
                f"else {{ {call} }}")
    if plain(f.short) in PROC_NULL_SENDRECV:
        buf, count, dtype = PROC_NULL_SENDRECV[plain(f.short)]
        irecv = "MPI_Irecv_c" if f.short.endswith("_c") else "MPI_Irecv"
        assert "&mut request_.0" in call and f"{dtype}_.host.0" in call, f.name
        call = (f"if cx.is_proc_null(dest_) && cx.is_proc_null(source_) {{ "
                f"host_mpi::ffi::{irecv}({buf}_ as _, {count}, {dtype}_.host.0, source_, recvtag_, comm_.host.0, &mut request_.0) }} "
                f"else {{ {call} }}")
    if base(f.name) in ("Alltoall", "Alltoallv"):
        # a one-process communicator's alltoall on MPICH (coll::alltoall_comm)
        assert call.count("comm_.host.0") == 1, f.name
        call = call.replace("comm_.host.0", "super::super::coll::alltoall_comm(&comm_)")
    access = NONBLOCKING_DATA.get(plain(f.short))
    if access:
        # nonblocking data calls the host does not complete right
        # (file_nonblocking.rs)
        large = f.short.endswith("_c")
        count = "large_.count" if large else next(a for a in args if "true_extent" in a)
        body.append(f"let access = file_nonblocking::Access {{ guest: {fh['name']}, file: {fh['name']}_, kind: file_nonblocking::Kind::{access}, "
                    f"buf: buf_ as _, count: ({count}) as i64, datatype: {'large_.host' if large else 'datatype_.host'}, large: {str(large).lower()}, "
                    f"collective: {str('_all' in f.short).lower()}, write: {str('write' in f.short).lower()} }};")
        assert "&mut request_.0" in call, f.name
        call = f"cx.nonblocking_access(&access, &mut request_.0, |r| unsafe {{ {call.replace('&mut request_.0', 'r')} }})"
        assert after and not always, f.name
        lines = ["#[inline]", f"pub fn {f.name.lower()}(mut env: FunctionEnvMut<MpiEnv>, {sig}) -> Result<i32, Fatal> {{",
                 f"    call_file(&mut env, \"{f.name}\", {fh['name']}, |cx| {{"]
        lines += [f"        {b}" for b in body] + [f"        {call}?;"] + [f"        {a}" for a in after]
        return "\n".join(lines + ["        Ok(())", "    })", "}"])
    epochs = EPOCHS.get(plain(f.short))
    if epochs:
        # rma::free_left_windows
        change = f"cx.bridge.open_epochs {'+' if epochs > 0 else '-'}= 1;"
        after.append(change if f.short != "Win_test" else f"if flag_ != 0 {{ {change} }}")
    # inline into Wasmer's wrapper, its one caller: a Result<i32, Fatal>
    # returned from a call goes through memory, and reading it back stalls
    lines = ["#[inline]", f"pub fn {f.name.lower()}(mut env: FunctionEnvMut<MpiEnv>, {sig}) -> Result<i32, Fatal> {{"]
    if fh:
        lines.append(f"    call_file(&mut env, \"{f.name}\", {fh['name']}, |cx| {{")
    elif wn:
        lines.append(f"    call_win(&mut env, \"{f.name}\", {wn['name']}, |cx| {{")
    else:
        lines.append(f"    call(&mut env, \"{f.name}\", {errcomm}, |cx| {{")
    lines += [f"        {b}" for b in body]
    if always:
        lines.append(f"        let rc = unsafe {{ {call} }};")
        lines += [f"        {a}" for a in always]
        lines.append("        cx.host(rc)?;")
        lines += [f"        {a}" for a in after]
        lines.append("        Ok(())")
    elif after:
        lines.append(f"        cx.host(unsafe {{ {call} }})?;")
        lines += [f"        {a}" for a in after]
        lines.append("        Ok(())")
    else:
        lines.append(f"        cx.host(unsafe {{ {call} }})")
    lines.append("    })")
    lines.append("}")
    return "\n".join(lines)


# The synchronisation calls that open (1) or close (-1) an access or
# exposure epoch; MPI_Win_test closes one when its flag is set.
EPOCHS = {"Win_lock": 1, "Win_unlock": -1, "Win_lock_all": 1, "Win_unlock_all": -1, "Win_start": 1, "Win_complete": -1,
          "Win_post": 1, "Win_wait": -1, "Win_test": -1}

# The nonblocking reads and writes (large-count forms too) and where
# file_nonblocking.rs reads or writes in their place when it does: the
# collective ones as this rank's own part.
NONBLOCKING_DATA = {f"File_i{rw}{form}": kind for rw in ("read", "write") for form, kind in (
    ("", "Individual"), ("_all", "Individual"), ("_at", "At(offset)"), ("_at_all", "At(offset)"), ("_shared", "Shared"))}


def split_end(f, fh, sig):
    """A split collective's end: the status its begin's whole operation
    left (see gen_fn), for the buffer that begin was given."""
    assert [p["kind"] for p in f.params] == ["FILE", "BUFFER", "STATUS"], f.name
    buf, status = (rust_ident(p["name"]) for p in f.params[1:])
    return "\n".join([
        "#[inline]", f"pub fn {f.name.lower()}(mut env: FunctionEnvMut<MpiEnv>, {sig}) -> Result<i32, Fatal> {{",
        f"    call_file(&mut env, \"{f.name}\", {fh['name']}, |cx| {{",
        f"        cx.check_status_ptr({status})?;",
        f"        let {status}_ = cx.split_end({fh['name']}, {buf})?;",
        f"        cx.write_status({status}, &{status}_)",
        "    })", "}"])


def array_copy(f, p):
    """The host copy of input array `p` of a collective: the large-count
    forms' MPI_Count arrays are 64-bit on both sides, their MPI_Aint
    displacements widened."""
    copy = "count_array" if "MPI_Count" in p["cdecl"] else "aint_array" if "MPI_Aint" in p["cdecl"] else "int_array"
    return f"cx.{copy}({rust_ident(p['name'])}, {peers(f, p['name'])})?"


def collective_buffer(f, p, dt, cond, translate, own, vspan=None, apart=None):
    """A collective's buffer argument: checked where MPI reads it at this
    rank (`cond`), passed unchecked but harmless elsewhere (an address inside
    the guest memory, the type if it is valid); MPI_IN_PLACE only where
    IN_PLACE accepts it. A buffer with its own datatype translates both; a
    v-collective buffer (`vspan`) also binds its counts and displacements
    (null where ignored, copied on their own with MPI_IN_PLACE, which the
    host still checks). `apart`: also bind its bytes (`<name>_span`,
    APART; none where ignored or in place): the count expression of a
    buffer with one, True for a v-collective buffer."""
    n, dn = rust_ident(p["name"]), rust_ident(dt["name"])
    rule = IN_PLACE.get((f.key, p["name"]))
    span, no_span, span_name = (", span", ", SolidSpan::NONE", f", {n}_span") if apart else ("", "", "")
    if vspan:
        counts, displs, copies = vspan
        ignored = f"(cx.mem.unchecked_empty({n}), cx.datatype_or_null({dn}), std::ptr::null(), std::ptr::null(){no_span})"
        in_place = f"(cx.in_place(), cx.datatype_or_null({dn}), {copies[0]}, {copies[1]}{no_span})"
        translate = f"{{ let dt = cx.datatype({dn})?; let v = {translate}; (v.buf, dt.host.0, v.counts, v.displs{span.replace('span', 'v.span')}) }}"
        name = f"({n}_, {dn}_, {rust_ident(counts)}_, {rust_ident(displs)}_{span_name})"
    elif own:
        ignored = f"(cx.mem.unchecked_empty({n}), cx.datatype_or_null({dn}){no_span})"
        in_place = f"(cx.in_place(), cx.datatype_or_null({dn}){no_span})"
        buffer = f"let b = {translate}; (b, dt.host.0, SolidSpan::of(b, {apart}, &dt))" if apart else f"({translate}, dt.host.0)"
        translate = f"{{ let dt = cx.datatype({dn})?; {buffer} }}"
        name = f"({n}_, {dn}_{span_name})"
    else:
        ignored, in_place, name = f"cx.mem.unchecked_empty({n})", "cx.in_place()", f"{n}_"
    branches = [] if cond == "true" else [(f"!({cond})" if " " in cond else f"!{cond}", ignored)]
    if rule:
        allowed = "!comm_.inter && root_args" if rule == "root" else "!comm_.inter"
        branches.append((f"cx.in_place_arg({n}, {allowed})?", in_place))
    if not branches:
        return f"let {name} = {translate};"
    chain = " else ".join(f"if {c} {{ {v} }}" for c, v in branches)
    last = translate if own else f"{{ {translate} }}"
    return f"let {name} = {chain} else {last};"


def at_leader(p, leader_only, translate, neutral):
    """`translate` where MPI reads the argument, else a neutral host value."""
    if p["name"] not in leader_only:
        return translate
    return f"if at_leader {{ {translate} }} else {{ {neutral} }}"


def out_int(body, args, after, n, finish):
    """An int the host returns that needs translating (a rank, a comparison)."""
    body.append(f"cx.mem.range({n}, 4)?;")
    body.append(f"let mut {n}_ = 0;")
    args.append(f"&mut {n}_")
    after.append(finish)


def out_handle(body, args, after, n, null, finish):
    """A handle the host creates: check the guest slot first, let the host
    write a local, then record it and write the guest handle."""
    body.append(f"cx.mem.range({n}, 4)?;")
    body.append(f"let mut {n}_ = host_mpi::{null}();")
    args.append(f"&mut {n}_.0")
    after.append(finish)


def array_length(f, p):
    """Rust i64 expression: how many ints array parameter `p` holds."""
    if (f.key, p["name"]) in LENGTHS:
        return LENGTHS[(f.key, p["name"])]
    if p["length"] == "*":
        raise SystemExit(f"{f.name}: length of {p['name']} unknown: add it to LENGTHS")
    # each factor widened first: `n*3` in i32 wraps (and then passed the
    # check as a tiny array while the host read n triples)
    factors = [p["length"]] if isinstance(p["length"], str) else p["length"]
    return "*".join(f"({f}) as i64" for f in factors)


def peers(f, name):
    """How many entries a collective's per-rank (per-neighbour) array holds."""
    return NEIGHBOR_ARRAYS[name] if f.neighbor else "n"


def significance(f, p, rooted):
    """Rust condition: does MPI read this collective argument at this rank?"""
    if not rooted:
        return "true"
    if f.key == "Bcast":
        return "root_args || other_args"  # the root sends from it, the others receive into it
    return "root_args" if p["root_only"] else "other_args"


def pair(f, buf, kind):
    """The count or datatype parameter that describes BUFFER `buf`: the first
    one of that kind after it."""
    i = f.params.index(buf)
    for p in f.params[i + 1:]:
        if p["kind"] == kind or (kind == "POLYXFER_NUM_ELEM_NNI" and p["kind"] in ("XFER_NUM_ELEM_NNI", "POLYXFER_NUM_ELEM")):
            return p
    raise SystemExit(f"{f.name}: no {kind} after {buf['name']}")


HEADER_LINES = [
    "// Generated by embedder/gen/gen_bridge.py from mpi-header/mpi.h and the MPI",
    "// Forum's API description (pympistandard); do not edit by hand.",
]


def main():
    check = "--check" in sys.argv[1:]  # compare with the committed files instead of writing
    protos, spec = prototypes(), api()
    params = lambda fn: {q["name"] for q in spec["mpi_" + fn.lower()]["parameters"]}
    unknown = [k for k in IN_PLACE if k[0] not in COLL or k[1] not in params(k[0])]
    if unknown:
        raise SystemExit(f"IN_PLACE names unknown functions or arguments: {unknown}")
    files = {}
    registry = []
    for family, fns in FAMILIES.items():
        out = HEADER_LINES + [
            "#![allow(unused_variables, unused_mut, unused_imports, clippy::too_many_arguments)]",
            "use wasmer::FunctionEnvMut;", "",
            "use crate::{", "    abi, host_mpi,", "    mpi::{call::{call, call_file, call_win}, errors::Fatal, file_nonblocking, held, translate::SolidSpan, MpiEnv},", "};", ""]
        for short in fns:
            name = "MPI_" + short
            # a large-count form has its int form's parameters (the header
            # gives their MPI_Count and MPI_Aint types)
            described = "mpi_" + plain(short).lower()
            if described not in spec or name not in protos:
                raise SystemExit(f"unknown function {name}")
            out.append(gen_fn(Fn(name, spec[described], protos[name])) + "\n")
            if name not in WRAPPED:
                registry.append((family, name))
        files[f"{family}.rs"] = "\n".join(out).rstrip() + "\n"
    functions.check()
    any_return = {m.group(2): (m.group(1), [p.strip() for p in " ".join(m.group(3).split()).split(",")] if m.group(3).strip() != "void" else [])
                  for m in re.finditer(r"^(\w+) (MPI_\w+)\(([^;]*)\);", HEADER.read_text(), re.M)}

    def raising(name):
        """The adapter for the function's arity (mpi/errors.rs)."""
        return f"raising{len(any_return[name][1])}"

    mod = HEADER_LINES + [""] + [f"pub(super) mod {f};" for f in FAMILIES] + [
        "", "use super::{Maker, MpiEnv};", "",
        "/// Every generated function, for registration and the inventory.",
        "pub const FUNCTIONS: &[(&str, Maker)] = &["]
    for family, name in registry:
        mod.append(f"    (\"{name}\", host_fn!({raising(name)} {family}::{name.lower()})),")
    mod.append("];")
    mod += ["", "/// The functions written by hand (embedder/gen/functions.py).",
            "pub const HAND_WRITTEN: &[(&str, Maker)] = &["]
    for module, fns in functions.HAND_WRITTEN.items():
        for name, rust in fns.items():
            mod.append(f"    (\"{name}\", host_fn!({raising(name)} super::{module}::{rust})),")
    mod.append("];")
    mod += ["", "/// (name, family, generated) of every provided function.",
            "pub const INVENTORY: &[(&str, &str, bool)] = &["]
    rows = [(n, fam, True) for fam, n in registry]
    rows += [(n, module, False) for module, fns in functions.HAND_WRITTEN.items() for n in fns]
    for n, fam, gen in sorted(rows):
        mod.append(f"    (\"{n}\", \"{fam}\", {'true' if gen else 'false'}),")
    mod.append("];")
    mod += ["", "/// Functions that need no host function of their name.",
            "pub const NO_HOST_FUNCTION: &[&str] = &["]
    mod += [f"    \"{n}\"," for n in sorted(functions.NO_HOST_FUNCTION)]
    mod.append("];")
    mod += ["", "/// The wasm signature (params, results) the guest mpi.h gives each",
            "/// hand-written function, to check the Rust functions against.",
            "#[cfg(test)]",
            "pub const SIGNATURES: &[(&str, &[wasmer::Type], &[wasmer::Type])] = &["]
    wt = {"i32": "I32", "i64": "I64", "u32": "I32", "f64": "F64"}
    for module, fns in functions.HAND_WRITTEN.items():
        for name in fns:
            ret, cparams = any_return[name]
            ps = ", ".join(f"wasmer::Type::{wt[wasm_type(c)]}" for c in cparams)
            res = f"wasmer::Type::{wt[wasm_type(ret + ' r')]}"
            mod.append(f"    (\"{name}\", &[{ps}], &[{res}]),")
    mod.append("];")
    files["mod.rs"] = "\n".join(mod) + "\n"
    if check:
        stale = [f for f, text in files.items() if not (OUT / f).exists() or (OUT / f).read_text() != text]
        if stale:
            raise SystemExit(f"generated files out of date: {stale}; run python3 embedder/gen/gen_bridge.py")
        print(f"{OUT.relative_to(ROOT)}/ is up to date ({len(registry)} functions)")
        return
    OUT.mkdir(exist_ok=True)
    for f, text in files.items():
        (OUT / f).write_text(text)
    print(f"wrote {OUT.relative_to(ROOT)}/: {len(registry)} functions")


if __name__ == "__main__":
    main()
