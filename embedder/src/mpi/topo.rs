//! Virtual topologies and neighbourhood collectives: the parts with
//! semantics beyond their parameters (the functions themselves are
//! generated, see `gen_bridge.py`; Neighbor_alltoallw is with the other
//! w-collectives in `coll.rs`).
//!
//! - Array lengths the API leaves to the topology (a Cartesian
//!   communicator's dimensions, a graph's edges, a neighbourhood's in/out
//!   degrees) are queried on the host, so every guest array and buffer is
//!   checked for all the bytes the host will touch. An output array sized
//!   by the caller's `max*` gets at most `max*` entries (`bounded_out`):
//!   some MPIs (MPICH's MPI_Graph_neighbors) write the real length
//!   whatever `max*` says, into the guest's next variables.
//! - MPI_UNWEIGHTED / MPI_WEIGHTS_EMPTY, MPI_CART / MPI_GRAPH /
//!   MPI_DIST_GRAPH / MPI_UNDEFINED are translated between guest and host.
//! - Every argument the host would trust is validated here first (the
//!   generated functions call the `check_*` helpers just before the host
//!   call): a graph's index must be non-decreasing from 0 and its edges
//!   nodes of the graph, a grid's dimensions positive with a product that
//!   fits the communicator, ranks in a dist graph ranks of the
//!   communicator, weights and `max*` sizes non-negative. Some MPIs (Open
//!   MPI for Graph_create) store what they are given and later copy
//!   `index[i] - index[i-1]` entries from their own heap into the guest.
use std::sync::OnceLock;

use super::{
    call::Ctx, state::CommEntry,
    errors::{MpiError, MpiResult},
};
use crate::{abi, host_mpi, host_mpi::ffi};

/// An output array of `bounded_out`: what the host writes into, and
/// `finish` after the host call gives the guest its `max` entries.
pub struct BoundedOut {
    guest: *mut i32,
    max: usize,
    spill: Vec<i32>,
}

impl BoundedOut {
    /// Where the host writes.
    pub fn host(&mut self) -> *mut i32 {
        if self.spill.is_empty() {
            self.guest
        } else {
            self.spill.as_mut_ptr()
        }
    }

    /// Copies the first `max` entries to the guest when the host wrote
    /// into the copy.
    pub fn finish(self) {
        if !self.spill.is_empty() {
            // Safety: `guest` was checked for `max` ints, `spill` holds more
            unsafe { std::ptr::copy_nonoverlapping(self.spill.as_ptr(), self.guest, self.max) };
        }
    }
}

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

/// What `CommEntry::new` learns of a communicator's topology once (it
/// cannot change): this rank's (in-degree, out-degree), `None` without a
/// topology, and the blocks of `Ctx::self_neighbor_blocks`.
#[derive(Default)]
pub struct Neighbourhood {
    pub degrees: Option<(i32, i32)>,
    pub to_self: Vec<usize>,
    pub from_self: Vec<usize>,
}

/// The `Neighbourhood` of communicator `host` at `rank`, from the host
/// alone; a failed host call's code.
pub fn neighbourhood(host: host_mpi::Comm, rank: i32) -> Result<Neighbourhood, i32> {
    let ok = |rc: i32| if rc == host_mpi::SUCCESS { Ok(()) } else { Err(rc) };
    let own = |list: &[i32]| list.iter().enumerate().filter(|(_, &r)| r == rank).map(|(i, _)| i).collect::<Vec<_>>();
    let t = host_topo();
    let (mut kind, mut n) = (0, 0);
    ok(unsafe { ffi::MPI_Topo_test(host.0, &mut kind) })?;
    if kind == t.cart {
        ok(unsafe { ffi::MPI_Cartdim_get(host.0, &mut n) })?;
        let n = n.max(0) as usize;
        let (mut dims, mut periods, mut coords) = (vec![0; n], vec![0; n], vec![0; n]);
        ok(unsafe { ffi::MPI_Cart_get(host.0, n as i32, dims.as_mut_ptr(), periods.as_mut_ptr(), coords.as_mut_ptr()) })?;
        let blocks: Vec<usize> = (0..n).filter(|&d| dims[d] == 1 && periods[d] != 0).flat_map(|d| [2 * d, 2 * d + 1]).collect();
        let degree = i32::try_from(2 * n).unwrap_or(i32::MAX);
        Ok(Neighbourhood { degrees: Some((degree, degree)), to_self: blocks.clone(), from_self: blocks })
    } else if kind == t.graph {
        ok(unsafe { ffi::MPI_Graph_neighbors_count(host.0, rank, &mut n) })?;
        let n = n.max(0);
        let mut neighbors = vec![0; n as usize];
        ok(unsafe { ffi::MPI_Graph_neighbors(host.0, rank, n, neighbors.as_mut_ptr()) })?;
        let blocks = own(&neighbors);
        Ok(Neighbourhood { degrees: Some((n, n)), to_self: blocks.clone(), from_self: blocks })
    } else if kind == t.dist_graph {
        let (mut ins, mut outs, mut weighted) = (0, 0, 0);
        ok(unsafe { ffi::MPI_Dist_graph_neighbors_count(host.0, &mut ins, &mut outs, &mut weighted) })?;
        let (ins, outs) = (ins.max(0), outs.max(0));
        let (mut sources, mut destinations) = (vec![0; ins as usize], vec![0; outs as usize]);
        // real weight arrays: the host writes them when the graph is weighted
        let (mut source_weights, mut dest_weights) = (vec![0; ins as usize + 1], vec![0; outs as usize + 1]);
        ok(unsafe {
            ffi::MPI_Dist_graph_neighbors(host.0, ins, sources.as_mut_ptr(), source_weights.as_mut_ptr(), outs, destinations.as_mut_ptr(), dest_weights.as_mut_ptr())
        })?;
        Ok(Neighbourhood { degrees: Some((ins, outs)), to_self: own(&destinations), from_self: own(&sources) })
    } else {
        Ok(Neighbourhood::default())
    }
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

/// Whether `n` (below 2^32) is prime, by trial division.
fn is_prime(n: u64) -> bool {
    n >= 2 && (2..).take_while(|d| d * d <= n).all(|d| n % d != 0)
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
        if let Some((ins, outs)) = c.degrees {
            return Ok((ins as i64, outs as i64));
        }
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

    /// Where this process is its own neighbour in `c`'s topology: the
    /// indices of the send blocks that go to itself and of the receive
    /// blocks that come from itself. A Cartesian dimension of one process
    /// that is periodic makes both neighbours this process; a graph or
    /// distributed graph may list it among its neighbours (self-loops).
    pub fn self_neighbor_blocks(&self, c: &CommEntry) -> MpiResult<(Vec<usize>, Vec<usize>)> {
        match neighbourhood(c.host, c.rank) {
            Ok(n) => Ok((n.to_self, n.from_self)),
            Err(rc) => self.host(rc).map(|()| Default::default()),
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
    /// (the index array is checked before; `check_graph` validates it).
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
    pub fn weights(&mut self, ptr: u32, len: i64, output: bool) -> MpiResult<Weights> {
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
            None if output => Ok(Weights { ptr: self.int_array_out(ptr, len)?, _scratch: None }),
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


/// Validation of topology arguments, before the host sees them (see the
/// module comment). Arrays are read through `int_at`: from the call's host
/// copies, which the generated code makes before it checks (so the host
/// gets the values checked), and from guest memory for in-out arrays.
impl Ctx<'_> {
    /// The guest int array at `ptr` that holds `max` entries, for a host
    /// call that writes `real` of them (`max` of them by the standard, all
    /// of them in some MPIs): checked for `max` entries, and written through
    /// a host copy when `real` is larger. A negative `max` is left to
    /// `check_max`.
    pub fn bounded_out(&self, ptr: u32, max: i32, real: i64) -> MpiResult<BoundedOut> {
        let max = max.max(0) as usize;
        let guest = self.int_array_out(ptr, max as i64)?;
        let spill = if real > max as i64 { vec![0; real as usize] } else { Vec::new() };
        Ok(BoundedOut { guest, max, spill })
    }

    /// A `max*` array size the caller gives.
    pub fn check_max(&self, name: &str, value: i32) -> MpiResult {
        if value < 0 {
            return Err(arg_error(format!("negative {name} {value}")));
        }
        Ok(())
    }

    /// Graph_create/Graph_map: 0 <= nnodes <= the communicator's size,
    /// index non-decreasing from index[0] >= 0, every edge a node.
    pub fn check_graph(&self, c: &CommEntry, nnodes: i32, index: u32, edges: u32) -> MpiResult {
        if nnodes < 0 || nnodes as i64 > c.peers {
            return Err(arg_error(format!("nnodes {nnodes} outside 0..={}", c.peers)));
        }
        let mut previous = 0;
        for i in 0..nnodes {
            let x = self.int_at(index, i)?;
            if x < previous {
                return Err(arg_error(format!("index[{i}] = {x} is below index[{}] = {previous} (or 0)", i - 1)));
            }
            previous = x;
        }
        for i in 0..previous {
            let e = self.int_at(edges, i)?;
            if !(0..nnodes).contains(&e) {
                return Err(arg_error(format!("edges[{i}] = {e} is not a node of the graph (0..{nnodes})")));
            }
        }
        Ok(())
    }

    /// Cart_create/Cart_map: ndims >= 0, dimensions > 0 whose product is at
    /// most the communicator's size.
    pub fn check_cart(&self, c: &CommEntry, ndims: i32, dims: u32) -> MpiResult {
        if ndims < 0 {
            return Err(MpiError::new(abi::c::MPI_ERR_DIMS, format!("negative ndims {ndims}")));
        }
        let mut product = 1i64;
        for i in 0..ndims {
            let d = self.int_at(dims, i)?;
            if d <= 0 {
                return Err(MpiError::new(abi::c::MPI_ERR_DIMS, format!("dims[{i}] = {d} is not positive")));
            }
            product = product.saturating_mul(d as i64);
        }
        if product > c.peers {
            return Err(arg_error(format!("the grid has {product} nodes, the communicator {}", c.peers)));
        }
        Ok(())
    }

    /// Dims_create: nnodes > 0, ndims >= 0, no negative dims entry.
    pub fn check_dims_create(&self, nnodes: i32, ndims: i32, dims: u32) -> MpiResult {
        if nnodes < 0 {
            return Err(arg_error(format!("negative nnodes {nnodes}")));
        }
        // No grid of positive dimensions has no nodes. Open MPI says so;
        // MPICH searched for one forever (natively too) when two or more
        // entries were free.
        if nnodes == 0 {
            return Err(MpiError::new(abi::c::MPI_ERR_DIMS, "nnodes 0: no grid of positive dimensions has 0 nodes"));
        }
        if ndims < 0 {
            return Err(MpiError::new(abi::c::MPI_ERR_DIMS, format!("negative ndims {ndims}")));
        }
        // nnodes must be a multiple of the entries already set (MPI-4.1
        // 8.5.2); MPICH multiplies them in a C int and divides by the
        // product, which 65536 * 65536 makes 0 (SIGFPE, natively too)
        let mut fixed: u64 = 1;
        for i in 0..ndims {
            let d = self.int_at(dims, i)?;
            if d < 0 {
                return Err(MpiError::new(abi::c::MPI_ERR_DIMS, format!("dims[{i}] = {d} is negative")));
            }
            if d > 0 {
                fixed = (fixed * d as u64).min(1 << 32);
            }
        }
        if nnodes as u64 % fixed != 0 {
            return Err(MpiError::new(abi::c::MPI_ERR_DIMS, format!("nnodes {nnodes} is not a multiple of the product of the dims set")));
        }
        Ok(())
    }

    /// Dims_create: what the host is left to choose. At most FREE_DIMS
    /// entries: Open MPI's time grows with the square of their number
    /// (16,000 took 0.2 s, a guest's 2^20 a quarter of an hour), yet past
    /// 31 of them the rest are 1 whatever nnodes (< 2^31) is: so those are
    /// set to 1 here, fixed, and the host fills the first FREE_DIMS as it
    /// would have. And no prime above 46337² spread over two or more free
    /// entries: MPICH's trial division stops at its table's last prime,
    /// 46337, then squares a C int past 2^31 and divides by zero (SIGFPE,
    /// natively too, for a legal call); the only grid of such a prime is
    /// the prime itself and ones, which is set here.
    pub fn fix_free_dims(&mut self, nnodes: i32, ndims: i32, dims: u32) -> MpiResult {
        const FREE_DIMS: usize = 64;
        let (mut free, mut fixed, mut first_free) = (0, 1u64, None);
        for i in 0..ndims {
            let at = dims.wrapping_add(4 * i as u32);
            match self.int_at(dims, i)? {
                0 => {
                    free += 1;
                    first_free.get_or_insert(at);
                    if free > FREE_DIMS {
                        self.mem.write_i32(at, 1)?;
                    }
                }
                d => fixed = (fixed * d.max(1) as u64).min(1 << 32),
            }
        }
        // `check_dims_create` made nnodes a multiple of `fixed`
        let rest = nnodes.max(1) as u64 / fixed;
        if let Some(first) = first_free.filter(|_| free >= 2 && rest > 46_337 * 46_337 && is_prime(rest)) {
            for i in 0..ndims {
                let at = dims.wrapping_add(4 * i as u32);
                if self.int_at(dims, i)? == 0 {
                    self.mem.write_i32(at, if at == first { rest as i32 } else { 1 })?;
                }
            }
        }
        Ok(())
    }

    /// The grid of a Cartesian communicator: (dims, periods).
    fn cart_grid(&self, c: &CommEntry) -> MpiResult<(Vec<i32>, Vec<i32>)> {
        let n = self.cartdim(c)? as usize;
        let (mut dims, mut periods, mut coords) = (vec![0; n], vec![0; n], vec![0; n]);
        self.host(unsafe { ffi::MPI_Cart_get(c.host.0, n as i32, dims.as_mut_ptr(), periods.as_mut_ptr(), coords.as_mut_ptr()) })?;
        Ok((dims, periods))
    }

    /// Cart_rank: a coordinate of a non-periodic dimension inside it.
    pub fn check_cart_coords(&self, c: &CommEntry, coords: u32) -> MpiResult {
        let (dims, periods) = self.cart_grid(c)?;
        for (i, (&d, &p)) in dims.iter().zip(&periods).enumerate() {
            let x = self.int_at(coords, i as i32)?;
            if p == 0 && !(0..d).contains(&x) {
                return Err(arg_error(format!("coords[{i}] = {x} outside the non-periodic dimension 0..{d}")));
            }
        }
        Ok(())
    }

    /// Cart_shift: a dimension of the grid.
    pub fn check_direction(&self, c: &CommEntry, direction: i32) -> MpiResult {
        if self.topo_kind(c)? != host_topo().cart {
            return Err(MpiError::new(abi::c::MPI_ERR_TOPOLOGY, "the communicator has no Cartesian topology"));
        }
        let n = self.cartdim(c)?;
        if !(0..n).contains(&(direction as i64)) {
            return Err(arg_error(format!("direction {direction} outside 0..{n}")));
        }
        Ok(())
    }

    /// `len` ranks of `c` at guest `ptr`.
    fn check_ranks(&self, c: &CommEntry, what: &str, ptr: u32, len: i64) -> MpiResult {
        for i in 0..len.max(0) as i32 {
            let r = self.int_at(ptr, i)?;
            if !(0..c.peers).contains(&(r as i64)) {
                return Err(MpiError::new(abi::c::MPI_ERR_RANK, format!("{what}[{i}] = {r} is not a rank of the communicator")));
            }
        }
        Ok(())
    }

    /// `len` weights at guest `ptr` (unless a sentinel): non-negative.
    fn check_weights(&self, what: &str, ptr: u32, len: i64) -> MpiResult {
        if matches!(ptr as i32, abi::c::MPI_UNWEIGHTED | abi::c::MPI_WEIGHTS_EMPTY) {
            return Ok(());
        }
        for i in 0..len.max(0) as i32 {
            let w = self.int_at(ptr, i)?;
            if w < 0 {
                return Err(arg_error(format!("{what}[{i}] = {w} is negative")));
            }
        }
        Ok(())
    }

    /// Dist_graph_create: n >= 0, sources and destinations ranks of `c`,
    /// weights non-negative (degrees are checked by `degree_sum`).
    pub fn check_dist_graph(&self, c: &CommEntry, n: i32, sources: u32, degrees: u32, destinations: u32, weights: u32) -> MpiResult {
        if n < 0 {
            return Err(arg_error(format!("negative n {n}")));
        }
        let edges = self.degree_sum(degrees, n)?;
        self.check_ranks(c, "sources", sources, n as i64)?;
        self.check_ranks(c, "destinations", destinations, edges)?;
        self.check_weights("weights", weights, edges)
    }

    /// Dist_graph_create_adjacent: degrees >= 0, neighbours ranks of `c`,
    /// weights non-negative.
    #[allow(clippy::too_many_arguments)]
    pub fn check_adjacent(
        &self, c: &CommEntry, indegree: i32, sources: u32, sourceweights: u32, outdegree: i32, destinations: u32, destweights: u32,
    ) -> MpiResult {
        if indegree < 0 || outdegree < 0 {
            return Err(arg_error(format!("negative degree (indegree {indegree}, outdegree {outdegree})")));
        }
        self.check_ranks(c, "sources", sources, indegree as i64)?;
        self.check_ranks(c, "destinations", destinations, outdegree as i64)?;
        self.check_weights("sourceweights", sourceweights, indegree as i64)?;
        self.check_weights("destweights", destweights, outdegree as i64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{guest_memory::GuestMemory, mpi::state::Bridge};

    /// A context over `mem` (no MPI needed: these helpers read guest memory
    /// and host constants only).
    fn with_ctx(mem: &mut [u8], f: impl FnOnce(&mut Ctx)) {
        let mut bridge = Bridge::new();
        let mut cx = Ctx::for_test(unsafe { GuestMemory::from_raw(mem.as_mut_ptr(), mem.len() as u64) }, &mut bridge);
        f(&mut cx);
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
            // a real input array: a checked host copy (guest code may run
            // before the host has read it); an output: in place, checked
            cx.mem.write_bytes(64, &[7, 0, 0, 0, 9, 0, 0, 0]).unwrap();
            let input = cx.weights(64, 2, false).unwrap().as_ptr();
            assert!(!(base..base + 256).contains(&(input as usize)));
            assert_eq!(unsafe { [*input, *input.add(1)] }, [7, 9]);
            assert_eq!(cx.weights(64, 4, true).unwrap().as_ptr() as usize, base + 64);
            assert_eq!(cx.weights(250, 4, true).err().unwrap().class, abi::c::MPI_ERR_BUFFER);
            assert_eq!(cx.weights(250, 4, false).err().unwrap().class, abi::c::MPI_ERR_BUFFER);
        });
    }

    #[test]
    fn a_max_sized_output_gets_max_entries_whatever_the_host_writes() {
        let mut mem = vec![0x5au8; 64];
        with_ctx(&mut mem, |cx| {
            let base = cx.mem.range(0, 0).unwrap() as usize;
            // the real length fits: the host writes in place
            let mut fits = cx.bounded_out(16, 4, 3).unwrap();
            assert_eq!(fits.host() as usize, base + 16);
            // more than max: the host gets a copy of the real length, the
            // guest the first max entries and nothing after them
            let mut over = cx.bounded_out(56, 2, 5).unwrap();
            let host = over.host();
            assert!(!(base..base + 64).contains(&(host as usize)));
            unsafe { std::slice::from_raw_parts_mut(host, 5) }.copy_from_slice(&[1, 2, 3, 4, 5]);
            over.finish();
            // max 0 at the very end of memory: nothing to check or write
            let mut none = cx.bounded_out(64, 0, 2).unwrap();
            unsafe { std::slice::from_raw_parts_mut(none.host(), 2) }.fill(9);
            none.finish();
            // the array itself must hold max entries; a negative max is check_max's
            assert_eq!(cx.bounded_out(60, 2, 1).err().unwrap().class, abi::c::MPI_ERR_BUFFER);
            assert!(cx.bounded_out(0, -1, 2).is_ok());
            assert_eq!(cx.check_max("maxdims", -1).err().unwrap().class, abi::c::MPI_ERR_ARG);
        });
        assert_eq!(&mem[56..64], &[1, 0, 0, 0, 2, 0, 0, 0]);
        assert!(mem[..56].iter().all(|&b| b == 0x5a), "nothing else written");
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

    #[test]
    fn graph_and_dist_graph_arguments_are_validated_before_the_host_sees_them() {
        let mut mem = vec![0u8; 128];
        put(&mut mem, 0, &[0x400, 1]); // non-monotonic index
        put(&mut mem, 8, &[-1]); // negative index
        put(&mut mem, 16, &[1, 2]); // valid index for two nodes
        put(&mut mem, 24, &[1, 0]); // edges inside the graph
        put(&mut mem, 32, &[1, 2]); // edge 2 outside a graph of two nodes
        put(&mut mem, 40, &[0, 1, 3]); // ranks: 3 is outside a comm of 3
        put(&mut mem, 52, &[4, -1]); // weights
        put(&mut mem, 60, &[2, 3, 0]); // grid dims; 0 is not a dimension
        let comm = CommEntry { host: host_mpi::null_communicator(), errhandler: 0, rank: 0, inter: false, peers: 3, local: 3, own_neighbor: false, own_unbalanced: false, degrees: None };
        with_ctx(&mut mem, |cx| {
            let class = |r: MpiResult| r.err().map(|e| e.class);
            assert_eq!(class(cx.check_graph(&comm, 2, 16, 24)), None);
            assert_eq!(class(cx.check_graph(&comm, 2, 0, 24)), Some(abi::c::MPI_ERR_ARG));
            assert_eq!(class(cx.check_graph(&comm, 1, 8, 24)), Some(abi::c::MPI_ERR_ARG));
            assert_eq!(class(cx.check_graph(&comm, 2, 16, 32)), Some(abi::c::MPI_ERR_ARG));
            assert_eq!(class(cx.check_graph(&comm, 4, 16, 24)), Some(abi::c::MPI_ERR_ARG));
            assert_eq!(class(cx.check_graph(&comm, -1, 16, 24)), Some(abi::c::MPI_ERR_ARG));
            assert_eq!(class(cx.check_ranks(&comm, "sources", 40, 2)), None);
            assert_eq!(class(cx.check_ranks(&comm, "sources", 40, 3)), Some(abi::c::MPI_ERR_RANK));
            assert_eq!(class(cx.check_weights("weights", 52, 1)), None);
            assert_eq!(class(cx.check_weights("weights", 52, 2)), Some(abi::c::MPI_ERR_ARG));
            assert_eq!(class(cx.check_weights("weights", abi::c::MPI_UNWEIGHTED as u32, 2)), None);
            assert_eq!(class(cx.check_cart(&comm, 1, 64)), None);
            assert_eq!(class(cx.check_cart(&comm, 2, 60)), Some(abi::c::MPI_ERR_ARG)); // 6 nodes > 3
            assert_eq!(class(cx.check_cart(&comm, 3, 60)), Some(abi::c::MPI_ERR_DIMS));
            assert_eq!(class(cx.check_cart(&comm, -1, 60)), Some(abi::c::MPI_ERR_DIMS));
            assert_eq!(class(cx.check_dims_create(6, 3, 60)), None);
            assert_eq!(class(cx.check_max("maxdims", -1)), Some(abi::c::MPI_ERR_ARG));
        });
    }
}
