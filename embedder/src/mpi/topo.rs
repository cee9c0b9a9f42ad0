//! Virtual topologies and neighbourhood collectives: the parts with
//! semantics beyond their parameters (the functions themselves are
//! generated, see `gen_bridge.py`, except Neighbor_alltoallw).
//!
//! - Array lengths the API leaves to the topology (a Cartesian
//!   communicator's dimensions, a graph's edges, a neighbourhood's in/out
//!   degrees) are queried on the host, so every guest array and buffer is
//!   checked for all the bytes the host will touch. Output arrays are
//!   checked for the larger of the caller's `max*` and the real length
//!   (some MPIs write the real length whatever `max*` says).
//! - MPI_UNWEIGHTED / MPI_WEIGHTS_EMPTY, MPI_CART / MPI_GRAPH /
//!   MPI_DIST_GRAPH / MPI_UNDEFINED are translated between guest and host.
//! - Neighbor_alltoallw's byte displacements are guest 32-bit MPI_Aint
//!   arrays, widened to host arrays; with its datatype arrays they must
//!   outlive the nonblocking form.
use std::sync::OnceLock;

use wasmer::FunctionEnvMut;

use super::{
    coll::{side, Side},
    context::{call, CommEntry, Ctx, RequestEntry},
    errors::{Fatal, MpiError, MpiResult},
    MpiEnv,
};
use crate::{abi, host_mpi, host_mpi::ffi};

/// The host's topology kinds and weight sentinels.
struct HostTopo {
    cart: i32,
    graph: i32,
    dist_graph: i32,
    unweighted: usize,
    weights_empty: usize,
}

fn host_topo() -> &'static HostTopo {
    static T: OnceLock<HostTopo> = OnceLock::new();
    T.get_or_init(|| {
        let h = host_mpi::constants();
        let (unweighted, weights_empty) = host_mpi::weight_sentinels();
        HostTopo { cart: h.int("MPI_CART"), graph: h.int("MPI_GRAPH"), dist_graph: h.int("MPI_DIST_GRAPH"), unweighted, weights_empty }
    })
}

/// A weights array for the host: the guest's array in place, the host's
/// sentinel, or scratch the host may write (an output the guest declined
/// with a sentinel; the host never sees a sentinel it could write through).
pub struct Weights {
    ptr: *mut i32,
    _scratch: Option<Box<[i32]>>,
}

impl Weights {
    pub fn as_ptr(&self) -> *mut i32 {
        self.ptr
    }
}

fn arg_error(detail: impl Into<String>) -> MpiError {
    MpiError::new(abi::c::MPI_ERR_ARG, detail)
}

/// Topology queries and translations used by the generated functions.
impl Ctx<'_> {
    /// The kind of `c`'s topology on the host (MPI_UNDEFINED if none).
    fn topo_kind(&self, c: &CommEntry) -> MpiResult<i32> {
        let mut kind = 0;
        self.host(unsafe { ffi::MPI_Topo_test(c.host.0, &mut kind) })?;
        Ok(kind)
    }

    /// The number of dimensions of a Cartesian communicator.
    pub fn cartdim(&self, c: &CommEntry) -> MpiResult<i64> {
        let mut n = 0;
        self.host(unsafe { ffi::MPI_Cartdim_get(c.host.0, &mut n) })?;
        Ok(n.max(0) as i64)
    }

    /// Nodes and edges of a graph communicator.
    pub fn graphdims(&self, c: &CommEntry) -> MpiResult<(i64, i64)> {
        let (mut nodes, mut edges) = (0, 0);
        self.host(unsafe { ffi::MPI_Graphdims_get(c.host.0, &mut nodes, &mut edges) })?;
        Ok((nodes.max(0) as i64, edges.max(0) as i64))
    }

    /// How many neighbours `rank` has in a graph communicator.
    pub fn graph_degree(&self, c: &CommEntry, rank: i32) -> MpiResult<i64> {
        let mut n = 0;
        self.host(unsafe { ffi::MPI_Graph_neighbors_count(c.host.0, rank, &mut n) })?;
        Ok(n.max(0) as i64)
    }

    /// This rank's (in-degree, out-degree) in `c`'s topology: how many
    /// blocks a neighbourhood collective receives and sends. A Cartesian
    /// topology has two neighbours per dimension (MPI_PROC_NULL included).
    pub fn neighbor_degrees(&self, c: &CommEntry) -> MpiResult<(i64, i64)> {
        let t = host_topo();
        let kind = self.topo_kind(c)?;
        if kind == t.cart {
            let n = 2 * self.cartdim(c)?;
            Ok((n, n))
        } else if kind == t.graph {
            let n = self.graph_degree(c, c.rank)?;
            Ok((n, n))
        } else if kind == t.dist_graph {
            let (mut indegree, mut outdegree, mut weighted) = (0, 0, 0);
            self.host(unsafe { ffi::MPI_Dist_graph_neighbors_count(c.host.0, &mut indegree, &mut outdegree, &mut weighted) })?;
            Ok((indegree.max(0) as i64, outdegree.max(0) as i64))
        } else {
            Err(MpiError::new(abi::c::MPI_ERR_TOPOLOGY, "the communicator has no topology"))
        }
    }

    /// A rank a topology query reads the graph or grid at: one of `c`'s.
    pub fn topo_rank(&self, c: &CommEntry, rank: i32) -> MpiResult<i32> {
        if (0..c.peers).contains(&(rank as i64)) {
            Ok(rank)
        } else {
            Err(MpiError::new(abi::c::MPI_ERR_RANK, format!("invalid rank {rank}")))
        }
    }

    /// How many edges MPI_Graph_create/MPI_Graph_map read: index[nnodes-1]
    /// (the index array is checked before).
    pub fn graph_edges(&self, index: u32, nnodes: i32) -> MpiResult<i64> {
        if nnodes <= 0 {
            return Ok(0);
        }
        Ok(self.int_at(index, nnodes - 1)?.max(0) as i64)
    }

    /// The sum of a dist graph's degrees (the length of its destinations
    /// and weights); a negative degree is an error.
    pub fn degree_sum(&self, degrees: u32, n: i32) -> MpiResult<i64> {
        let mut sum = 0i64;
        for i in 0..n.max(0) {
            let d = self.int_at(degrees, i)?;
            if d < 0 {
                return Err(arg_error(format!("negative degree {d}")));
            }
            sum += d as i64;
        }
        Ok(sum)
    }

    /// A dist-graph weights array of `len` ints (input or output).
    pub fn weights(&self, ptr: u32, len: i64, output: bool) -> MpiResult<Weights> {
        let t = host_topo();
        let sentinel = match ptr as i32 {
            abi::c::MPI_UNWEIGHTED => Some(t.unweighted),
            abi::c::MPI_WEIGHTS_EMPTY if len > 0 && !output => {
                return Err(arg_error(format!("MPI_WEIGHTS_EMPTY for {len} weights")));
            }
            abi::c::MPI_WEIGHTS_EMPTY => Some(t.weights_empty),
            _ => None,
        };
        match sentinel {
            Some(_) if output => {
                let mut scratch: Box<[i32]> = vec![0; len.max(0) as usize].into();
                Ok(Weights { ptr: scratch.as_mut_ptr(), _scratch: Some(scratch) })
            }
            Some(host) => Ok(Weights { ptr: host as *mut i32, _scratch: None }),
            None => Ok(Weights { ptr: self.int_array(ptr, len)? as *mut i32, _scratch: None }),
        }
    }

    /// MPI_Topo_test's result for the guest.
    pub fn write_topology(&self, ptr: u32, kind: i32) -> MpiResult {
        let t = host_topo();
        let guest = match kind {
            k if k == t.cart => abi::c::MPI_CART,
            k if k == t.graph => abi::c::MPI_GRAPH,
            k if k == t.dist_graph => abi::c::MPI_DIST_GRAPH,
            k if k == self.undefined() => abi::c::MPI_UNDEFINED,
            k => return Err(MpiError::new(abi::c::MPI_ERR_INTERN, format!("unknown topology kind {k}"))),
        };
        Ok(self.mem.write_i32(ptr, guest)?)
    }
}


fn sides(cx: &Ctx, comm: i32, args: [u32; 8]) -> MpiResult<(host_mpi::Comm, Side, Side)> {
    let [sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes] = args;
    cx.not_in_place(sendbuf)?;
    cx.not_in_place(recvbuf)?;
    let c = cx.comm(comm)?;
    let (ins, outs) = cx.neighbor_degrees(&c)?;
    Ok((c.host, side(cx, sendbuf, sendcounts, sdispls, sendtypes, outs, true, false)?, side(cx, recvbuf, recvcounts, rdispls, recvtypes, ins, true, false)?))
}

#[allow(clippy::too_many_arguments)]
pub fn neighbor_alltoallw(
    mut env: FunctionEnvMut<MpiEnv>,
    sendbuf: u32, sendcounts: u32, sdispls: u32, sendtypes: u32,
    recvbuf: u32, recvcounts: u32, rdispls: u32, recvtypes: u32, comm: i32,
) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Neighbor_alltoallw", comm, |cx| {
        let (c, s, r) = sides(cx, comm, [sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes])?;
        cx.host(unsafe {
            ffi::MPI_Neighbor_alltoallw(
                s.buf as _, s.counts, s.wide.as_ptr(), s.types_ptr() as _,
                r.buf as _, r.counts, r.wide.as_ptr(), r.types_ptr() as _, c.0,
            )
        })
    })
}

/// The widened displacements and the type arrays live on the request.
#[allow(clippy::too_many_arguments)]
pub fn ineighbor_alltoallw(
    mut env: FunctionEnvMut<MpiEnv>,
    sendbuf: u32, sendcounts: u32, sdispls: u32, sendtypes: u32,
    recvbuf: u32, recvcounts: u32, rdispls: u32, recvtypes: u32, comm: i32, request: u32,
) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Ineighbor_alltoallw", comm, |cx| {
        let (c, s, r) = sides(cx, comm, [sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes])?;
        cx.mem.range(request, 4)?;
        let mut req = host_mpi::null_request();
        cx.host(unsafe {
            ffi::MPI_Ineighbor_alltoallw(
                s.buf as _, s.counts, s.wide.as_ptr(), s.types_ptr() as _,
                r.buf as _, r.counts, r.wide.as_ptr(), r.types_ptr() as _, c.0, &mut req.0,
            )
        })?;
        let mut entry = RequestEntry::new(req, false);
        entry.keep = Some(Box::new((s, r)));
        let handle = cx.bridge.requests.insert(entry);
        Ok(cx.mem.write_i32(request, handle)?)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{guest_memory::GuestMemory, mpi::context::Bridge};

    /// A context over `mem` (no MPI needed: these helpers read guest memory
    /// and host constants only).
    fn with_ctx(mem: &mut [u8], f: impl FnOnce(&Ctx)) {
        let mut bridge = Bridge::new();
        let cx = Ctx::for_test(unsafe { GuestMemory::from_raw(mem.as_mut_ptr(), mem.len() as u64) }, &mut bridge);
        f(&cx);
    }

    fn put(mem: &mut [u8], at: usize, ints: &[i32]) {
        for (i, v) in ints.iter().enumerate() {
            mem[at + 4 * i..at + 4 * i + 4].copy_from_slice(&v.to_le_bytes());
        }
    }

    #[test]
    fn weight_sentinels_become_the_hosts_and_outputs_never_reach_the_host_as_sentinels() {
        let mut mem = vec![0u8; 256];
        let (unweighted, empty) = host_mpi::weight_sentinels();
        with_ctx(&mut mem, |cx| {
            let base = cx.mem.range(0, 0).unwrap() as usize;
            assert_eq!(cx.weights(abi::c::MPI_UNWEIGHTED as u32, 3, false).unwrap().as_ptr() as usize, unweighted);
            assert_eq!(cx.weights(abi::c::MPI_WEIGHTS_EMPTY as u32, 0, false).unwrap().as_ptr() as usize, empty);
            let e = cx.weights(abi::c::MPI_WEIGHTS_EMPTY as u32, 2, false).err().unwrap();
            assert_eq!(e.class, abi::c::MPI_ERR_ARG);
            // an output the guest declined: scratch, outside guest memory
            let out = cx.weights(abi::c::MPI_UNWEIGHTED as u32, 4, true).unwrap().as_ptr() as usize;
            assert!(out != unweighted && !(base..base + 256).contains(&out));
            // a real array: in place, checked
            assert_eq!(cx.weights(64, 4, false).unwrap().as_ptr() as usize, base + 64);
            assert_eq!(cx.weights(250, 4, true).err().unwrap().class, abi::c::MPI_ERR_BUFFER);
        });
    }

    #[test]
    fn topology_lengths_come_from_the_guest_arrays() {
        let mut mem = vec![0u8; 64];
        put(&mut mem, 0, &[1, 3, 4]); // graph index: 4 edges in all
        put(&mut mem, 16, &[2, 0, 5]); // dist-graph degrees
        put(&mut mem, 32, &[1, -1]);
        with_ctx(&mut mem, |cx| {
            assert_eq!(cx.graph_edges(0, 3).unwrap(), 4);
            assert_eq!(cx.graph_edges(0, 0).unwrap(), 0);
            assert_eq!(cx.graph_edges(60, 2).err().unwrap().class, abi::c::MPI_ERR_BUFFER);
            assert_eq!(cx.degree_sum(16, 3).unwrap(), 7);
            assert_eq!(cx.degree_sum(32, 2).err().unwrap().class, abi::c::MPI_ERR_ARG);
            assert_eq!(cx.degree_sum(56, 3).err().unwrap().class, abi::c::MPI_ERR_BUFFER);
            assert_eq!(cx.not_in_place(abi::c::MPI_IN_PLACE as u32).err().unwrap().class, abi::c::MPI_ERR_BUFFER);
        });
    }
}
