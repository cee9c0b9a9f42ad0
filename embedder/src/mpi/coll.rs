//! The w-collectives (the rest is generated): Alltoallw and
//! Neighbor_alltoallw in every form — blocking, nonblocking, persistent,
//! and each with MPI-4.0's large counts (`_c`). They take arrays of
//! datatype handles, which become host arrays, and displacements in bytes:
//! C ints for Alltoallw, MPI_Aint for Neighbor_alltoallw and both `_c`
//! forms (a 32-bit guest MPI_Aint widened to the host's). Every array the
//! host reads is a host copy that outlives a nonblocking or persistent call.
//! Also the check the collectives with a send and a receive side make of
//! the block a process sends to itself (`Ctx::check_self_block`).
use std::ffi::c_void;

use wasmer::FunctionEnvMut;

use super::{
    call::{call, Ctx},
    datatype::DatatypeEntry,
    errors::{Fatal, MpiError, MpiResult},
    held,
    state::{Bridge, CommEntry},
    translate::{arrays::Element, SolidSpan},
    MpiEnv,
};
use crate::{abi, host_mpi, host_mpi::ffi};

/// A count of one side of a collective, or the host copy of its count
/// array (C ints, or MPI_Count for the `_c` forms): the count of block `i`.
pub trait SelfCount: Copy {
    fn at(self, i: usize) -> Option<i64>;
    /// The count of every block, for a single count.
    fn uniform(self) -> Option<i64> {
        None
    }
}

impl SelfCount for i32 {
    fn at(self, _: usize) -> Option<i64> {
        Some(self as i64)
    }
    fn uniform(self) -> Option<i64> {
        Some(self as i64)
    }
}

impl SelfCount for i64 {
    fn at(self, _: usize) -> Option<i64> {
        Some(self)
    }
    fn uniform(self) -> Option<i64> {
        Some(self)
    }
}

// Safety (both): the host copy this call made of a per-process array, one
// element per process of the intracommunicator (null where it was not made).
impl SelfCount for *const i32 {
    fn at(self, i: usize) -> Option<i64> {
        (!self.is_null()).then(|| unsafe { *self.add(i) } as i64)
    }
}

impl SelfCount for *const i64 {
    fn at(self, i: usize) -> Option<i64> {
        (!self.is_null()).then(|| unsafe { *self.add(i) })
    }
}

impl Ctx<'_> {
    /// In a collective with a send and a receive side on an
    /// intracommunicator, a process that has both (every one, or the root
    /// of a gather or scatter) sends one block to itself, and the standard
    /// requires both sides of that block to hold as many bytes (the type
    /// signatures match). The hosts trust it: Open MPI reports
    /// MPI_ERR_TRUNCATE at the call, but a nonblocking collective's
    /// schedule then lives on half-built and its progress later freed an
    /// invalid pointer (SIGABRT in a later `MPI_Comm_dup`); MPICH, for an
    /// all-to-all on one process with one side empty, posts the other and
    /// waits forever, and with derived types its local copy can assert and
    /// abort the job (all natively too). A mismatch is MPI_ERR_TRUNCATE
    /// here, at the call, on every host; MPI_IN_PLACE has no second side.
    #[inline]
    pub fn check_self_block(
        &self,
        comm: &CommEntry,
        both_sides: bool,
        sendbuf: *mut u8,
        recvbuf: *mut u8,
        send: (impl SelfCount, ffi::MPI_Datatype),
        recv: (impl SelfCount, ffi::MPI_Datatype),
    ) -> MpiResult {
        if comm.inter || !both_sides || sendbuf == self.in_place() || recvbuf == self.in_place() {
            return Ok(());
        }
        let own = comm.rank as usize;
        match (send.0.at(own), recv.0.at(own)) {
            // the usual call (IMB's too) asks the host nothing
            (Some(sent), Some(received)) if sent == received && send.1 == recv.1 => Ok(()),
            (Some(sent), Some(received)) => self_block_sizes(self.bridge, (sent, send.1), (received, recv.1)),
            _ => Ok(()),
        }
    }

    /// A reduction's send and receive buffers may not overlap (an output
    /// may not alias an input, MPI-4.1 2.6.2; MPI_IN_PLACE is how a
    /// reduction reuses its buffer). The hosts trust it: MPICH 5 asserts
    /// in its copy of the input (overlapping `memcpy`) and aborts the job,
    /// MPICH 4 and Open MPI read input they already overwrote. Checked for
    /// types whose data fill their buffers (`DatatypeEntry::solid_extent`);
    /// with others a program may interleave the two legally, and the host
    /// gets the call.
    #[inline(always)]
    pub fn check_disjoint(&self, both_sides: bool, sendbuf: *mut u8, send: i64, recvbuf: *mut u8, recv: i64, datatype: &DatatypeEntry) -> MpiResult {
        // no branch but the last on the usual call: a type that is not
        // solid counts 0 bytes, and both spans were checked inside guest
        // memory (MPI_IN_PLACE's sentinel is told apart out of line)
        let extent = datatype.solid_extent().unwrap_or(0) as usize;
        let (s, r) = (sendbuf as usize, recvbuf as usize);
        let s_end = s.wrapping_add((send.max(0) as usize).wrapping_mul(extent));
        let r_end = r.wrapping_add((recv.max(0) as usize).wrapping_mul(extent));
        if both_sides && s < r_end && r < s_end {
            return overlapping(sendbuf, self.in_place());
        }
        Ok(())
    }

    /// MPICH's reduce-scatter with a non-commutative operation on a
    /// power-of-two intracommunicator (Traff's butterfly, its
    /// `..._intra_noncommutative` algorithms, blocking, nonblocking and
    /// persistent alike, MPICH 4.0 to 5.0) sizes its temporary buffers and
    /// places its blocks by the datatype's true extent alone. With any
    /// other extent it reads the send buffer in the wrong places, receives
    /// and reduces past the end of its heap buffers, and returns wrong
    /// results, natively too (2 and 4 processes; 3 are right; on 1 process
    /// its persistent form writes outside the buffers). Under
    /// the embedder the user function's result is copied back over those
    /// buffers: guest bytes past a host heap block (MPI-call fuzzer, seed
    /// 92054). So such a call is MPI_ERR_TYPE on MPICH; other hosts get it.
    #[inline(always)]
    pub fn check_host_reduce_scatter(&self, comm: &CommEntry, op: host_mpi::Op, elements: i64, datatype: &DatatypeEntry) -> MpiResult {
        if datatype.extent() == datatype.true_extent() || elements < 2 || comm.inter || !(comm.local as u64).is_power_of_two() {
            return Ok(());
        }
        mpich_noncommutative_layout(op, datatype)
    }

    /// `check_disjoint` with as many elements on both sides (Reduce,
    /// Allreduce, Scan, Exscan): the buffers overlap when their starts are
    /// closer than one side's bytes, one comparison on the usual call.
    #[inline(always)]
    pub fn check_disjoint_equal(&self, both_sides: bool, sendbuf: *mut u8, recvbuf: *mut u8, count: i64, datatype: &DatatypeEntry) -> MpiResult {
        let bytes = (count.max(0) as usize).wrapping_mul(datatype.solid_extent().unwrap_or(0) as usize);
        if both_sides && (sendbuf as usize).abs_diff(recvbuf as usize) < bytes {
            return overlapping(sendbuf, self.in_place());
        }
        Ok(())
    }


    /// A neighbourhood collective's blocks from this process to itself
    /// (`Ctx::self_neighbor_blocks`) must hold as many bytes on both
    /// sides, as `check_self_block`'s. MPICH 5 asserts and aborts the job
    /// when they do not, MPICH 4 truncates without an error, Open MPI
    /// says MPI_ERR_TRUNCATE or succeeds. Which send block meets which
    /// receive block differs between hosts (MPICH 4.0's blocking and
    /// nonblocking forms disagree on a periodic dimension of one
    /// process), so the sizes are compared as sets: a mismatch under
    /// every pairing is MPI_ERR_TRUNCATE, on every host.
    #[inline]
    pub fn check_neighbor_self_blocks(&self, comm: &CommEntry, send: (impl SelfCount, ffi::MPI_Datatype), recv: (impl SelfCount, ffi::MPI_Datatype)) -> MpiResult {
        if !comm.own_neighbor {
            return Ok(());
        }
        if comm.own_unbalanced {
            return Err(unbalanced_self_edges());
        }
        if let (Some(sent), Some(received)) = (send.0.uniform(), recv.0.uniform()) {
            if sent == received && send.1 == recv.1 {
                return Ok(());
            }
        }
        let bytes = |(count, datatype): (Option<i64>, ffi::MPI_Datatype)| self.bridge.host_bytes(count.unwrap_or(0), datatype);
        self.neighbor_self_sizes(comm, |j| bytes((send.0.at(j), send.1)), |i| bytes((recv.0.at(i), recv.1)))
    }

    /// `check_neighbor_self_blocks` given each block's bytes.
    #[inline(never)]
    pub fn neighbor_self_sizes(
        &self,
        comm: &CommEntry,
        sent: impl Fn(usize) -> MpiResult<i128>,
        received: impl Fn(usize) -> MpiResult<i128>,
    ) -> MpiResult {
        let (to_self, from_self) = self.self_neighbor_blocks(comm)?;
        if to_self.len() != from_self.len() {
            return Err(unbalanced_self_edges());
        }
        let sizes = |blocks: Vec<usize>, size: &dyn Fn(usize) -> MpiResult<i128>| -> MpiResult<Vec<i128>> {
            let mut v = blocks.into_iter().map(size).collect::<MpiResult<Vec<_>>>()?;
            v.sort_unstable();
            Ok(v)
        };
        let (sent, received) = (sizes(to_self, &sent)?, sizes(from_self, &received)?);
        if sent != received {
            return Err(MpiError::new(
                abi::c::MPI_ERR_TRUNCATE,
                format!("this process is its own neighbour: its blocks to itself are {sent:?} bytes sent and {received:?} received: the two must match"),
            ));
        }
        Ok(())
    }
}

#[cold]
fn unbalanced_self_edges() -> MpiError {
    MpiError::new(
        abi::c::MPI_ERR_TOPOLOGY,
        "this process is its own neighbour more often as a source than as a destination, or the reverse: the graph is inconsistent and the call would wait for ever",
    )
}

/// One side (send or receive): the buffer (every block checked), host
/// copies of the counts and displacements, and the host types.
pub struct Side {
    pub buf: *mut u8,
    pub counts: *const c_void,
    pub displs: *const c_void,
    pub types: host_mpi::HandleVec,
    /// The guest handles of the derived types, for the request to hold.
    pub derived: Vec<i32>,
    /// The blocks' bytes when every type's data fill them (`Ctx::check_apart`).
    pub span: SolidSpan,
}

impl Side {
    pub fn types_ptr(&self) -> *mut ffi::MPI_Datatype {
        self.types.as_ptr() as *mut ffi::MPI_Datatype
    }
}

/// The widths of a w-collective's arrays.
#[derive(Clone, Copy)]
pub struct Form {
    /// MPI_Count counts (the `_c` forms) rather than C ints.
    pub large: bool,
    /// MPI_Aint byte displacements rather than C ints.
    pub aint_displs: bool,
    /// Neighbor_alltoallw: per-neighbour arrays, no MPI_IN_PLACE.
    pub neighbor: bool,
}

const ALLTOALLW: Form = Form { large: false, aint_displs: false, neighbor: false };
const ALLTOALLW_C: Form = Form { large: true, aint_displs: true, neighbor: false };
const NEIGHBOR_ALLTOALLW: Form = Form { large: false, aint_displs: true, neighbor: true };
const NEIGHBOR_ALLTOALLW_C: Form = Form { large: true, aint_displs: true, neighbor: true };

/// `n` blocks of one side; `in_place`: whether this side accepts
/// MPI_IN_PLACE (an error otherwise).
#[allow(clippy::too_many_arguments)]
fn side(cx: &mut Ctx, buf: u32, counts: u32, displs: u32, types: u32, n: i64, form: Form, in_place: bool) -> MpiResult<Side> {
    let none = std::ptr::null();
    if cx.in_place_arg(buf, in_place)? {
        return Ok(Side { buf: cx.in_place(), counts: none, displs: none, types: host_mpi::HandleVec::new(), derived: Vec::new(), span: SolidSpan::NONE });
    }
    // the arrays first: each block is checked on the copy the host gets
    let c = cx.host_copy(counts, n, if form.large { Element::Count } else { Element::Int })?;
    let d = cx.host_copy(displs, n, if form.aint_displs { Element::Aint } else { Element::Int })?;
    let mut host_types = host_mpi::HandleVec::new();
    let mut derived = Vec::new();
    // the blocks' hull while the data of every nonempty one fill it
    let (mut lo, mut hi, mut solid) = (i128::MAX, i128::MIN, true);
    for i in 0..n.max(0) as usize {
        let handle = cx.mem.read_i32(types.wrapping_add(4 * i as u32))?;
        let dt = cx.datatype(handle)?;
        if !held::Of::Type(handle).predefined() {
            derived.push(handle);
        }
        // byte displacements: check the block where it lies
        let (l, h) = cx.block(buf, cx.array(d).get(i), cx.array(c).get(i), &dt)?;
        if l < h {
            solid &= dt.solid_extent().is_some();
            (lo, hi) = (lo.min(l), hi.max(h));
        }
        host_types.push(dt.host.0);
    }
    let host_counts = cx.array(c).host_ptr() as *const c_void;
    let host_displs = cx.array(d).host_ptr() as *const c_void;
    let buf = cx.mem.range(buf, 0).unwrap_or_else(|_| cx.mem.unchecked_empty(buf));
    let span = if solid { SolidSpan::hull(buf, (lo, hi)) } else { SolidSpan::NONE };
    Ok(Side { buf, counts: host_counts, displs: host_displs, types: host_types, derived, span })
}

/// Both sides of the call on `comm`: one block per rank of the
/// communicator (per remote rank on an intercommunicator) or per
/// neighbour of its topology.
fn sides(cx: &mut Ctx, comm: i32, args: [u32; 8], form: Form) -> MpiResult<(host_mpi::Comm, Side, Side)> {
    let [sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes] = args;
    let c = cx.comm(comm)?;
    let (outs, ins, send_in_place) = if form.neighbor {
        cx.not_in_place(sendbuf)?;
        cx.not_in_place(recvbuf)?;
        let (ins, outs) = cx.neighbor_degrees(&c)?;
        (outs, ins, false)
    } else {
        // MPI_IN_PLACE: the send side of an intracommunicator's Alltoallw only
        (c.peers, c.peers, !c.inter)
    };
    let send = side(cx, sendbuf, sendcounts, sdispls, sendtypes, outs, form, send_in_place)?;
    let recv = side(cx, recvbuf, recvcounts, rdispls, recvtypes, ins, form, false)?;
    cx.check_apart(send.span, recv.span)?;
    if !form.neighbor && !c.inter && send.buf != cx.in_place() {
        let own = c.rank as usize;
        let count = |s: &Side| if form.large { (s.counts as *const i64).at(own) } else { (s.counts as *const i32).at(own) };
        if let (Some(sent), Some(received)) = (count(&send), count(&recv)) {
            self_block_sizes(cx.bridge, (sent, send.types.get(own)), (received, recv.types.get(own)))?;
        }
    }
    if form.neighbor && c.own_neighbor {
        let bytes = |s: &Side, i: usize| -> MpiResult<i128> {
            let count = if form.large { (s.counts as *const i64).at(i) } else { (s.counts as *const i32).at(i) };
            cx.bridge.host_bytes(count.unwrap_or(0), s.types.get(i))
        };
        cx.neighbor_self_sizes(&c, |j| bytes(&send, j), |i| bytes(&recv, i))?;
    }
    Ok((if form.neighbor { c.host } else { host_mpi::Comm(alltoall_comm(&c)) }, send, recv))
}

/// The host communicator an alltoall (`MPI_Alltoall`, `_v`, `_w`, every
/// form) of `comm` runs on. MPICH (4.0.2, 5.0.2) has the process of a
/// one-process communicator send its block to itself on the communicator's
/// point-to-point context (tag 287): a receive the program has pending
/// there with MPI_ANY_TAG takes it, and the collective never completes,
/// natively too (fuzz seed 93101). On MPICH such a call therefore runs on a
/// duplicate of MPI_COMM_SELF that the program never sees, which means the
/// same: one process, its block to itself.
#[inline]
pub fn alltoall_comm(comm: &CommEntry) -> ffi::MPI_Comm {
    if comm.local != 1 || comm.inter || !host_mpi::is_mpich() {
        return comm.host.0;
    }
    hidden_self().unwrap_or(comm.host.0)
}

/// `alltoall_comm`'s duplicate of MPI_COMM_SELF, made at its first use (it
/// lives as long as the host library; none where there is no
/// MPI_COMM_SELF, as with sessions alone).
#[cold]
#[inline(never)]
fn hidden_self() -> Option<ffi::MPI_Comm> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static MADE: AtomicUsize = AtomicUsize::new(0);
    let made = MADE.load(Ordering::Relaxed);
    if made != 0 {
        return Some(made);
    }
    let mut dup = host_mpi::null_communicator();
    if unsafe { ffi::MPI_Comm_dup(host_mpi::constants().comm_self.0, &mut dup.0) } != host_mpi::SUCCESS {
        return None;
    }
    MADE.store(dup.0, Ordering::Relaxed);
    Some(dup.0)
}

/// How the call completes: now, through a request, or as a persistent
/// request (with its info).
enum Mode {
    Blocking,
    Nonblocking { request: u32 },
    Persistent { info: i32, request: u32 },
}

/// The host call, given both sides, the communicator, the info (persistent
/// forms) and where the host writes the request (nonblocking forms).
type HostCall = fn(&Side, &Side, ffi::MPI_Comm, ffi::MPI_Info, *mut ffi::MPI_Request) -> i32;

fn w_collective(env: &mut FunctionEnvMut<MpiEnv>, name: &'static str, form: Form, args: [u32; 8], comm: i32, mode: Mode, host: HostCall) -> Result<i32, Fatal> {
    call(env, name, comm, |cx| {
        let (c, s, r) = sides(cx, comm, args, form)?;
        let info = match mode {
            Mode::Persistent { info, .. } => cx.info(info)?.0,
            _ => host_mpi::null_info().0,
        };
        let (request, persistent) = match mode {
            Mode::Blocking => return cx.host(host(&s, &r, c.0, info, std::ptr::null_mut())),
            Mode::Nonblocking { request } => (request, false),
            Mode::Persistent { request, .. } => (request, true),
        };
        cx.mem.range(request, 4)?;
        let mut req = host_mpi::null_request();
        cx.host(host(&s, &r, c.0, info, &mut req.0))?;
        // the request takes the count and displacement copies, the host
        // types' array and the derived types themselves (held.rs)
        let mut entry = cx.request_entry(req, persistent);
        let types = s.derived.iter().chain(&r.derived).map(|&t| held::Of::Type(t));
        entry.extra().held = held::hold_all(cx.bridge, types);
        entry.extra().keep = Some(Box::new((s, r)));
        let handle = cx.bridge.requests.insert(entry);
        Ok(cx.mem.write_i32(request, handle)?)
    })
}

/// The guest functions: (Rust name, host function, array widths) per
/// completion mode. Every form has the same guest parameters (the arrays
/// are pointers whatever their element width).
macro_rules! w_collectives {
    (blocking: $($name:ident => $host:ident, $form:expr;)*) => {$(
        #[allow(clippy::too_many_arguments)]
        pub fn $name(
            mut env: FunctionEnvMut<MpiEnv>,
            sendbuf: u32, sendcounts: u32, sdispls: u32, sendtypes: u32,
            recvbuf: u32, recvcounts: u32, rdispls: u32, recvtypes: u32, comm: i32,
        ) -> Result<i32, Fatal> {
            let args = [sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes];
            w_collective(&mut env, stringify!($host), $form, args, comm, Mode::Blocking, |s, r, c, _, _| unsafe {
                ffi::$host(s.buf as _, s.counts as _, s.displs as _, s.types_ptr(), r.buf as _, r.counts as _, r.displs as _, r.types_ptr(), c)
            })
        }
    )*};
    (nonblocking: $($name:ident => $host:ident, $form:expr;)*) => {$(
        #[allow(clippy::too_many_arguments)]
        pub fn $name(
            mut env: FunctionEnvMut<MpiEnv>,
            sendbuf: u32, sendcounts: u32, sdispls: u32, sendtypes: u32,
            recvbuf: u32, recvcounts: u32, rdispls: u32, recvtypes: u32, comm: i32, request: u32,
        ) -> Result<i32, Fatal> {
            let args = [sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes];
            w_collective(&mut env, stringify!($host), $form, args, comm, Mode::Nonblocking { request }, |s, r, c, _, req| unsafe {
                ffi::$host(s.buf as _, s.counts as _, s.displs as _, s.types_ptr(), r.buf as _, r.counts as _, r.displs as _, r.types_ptr(), c, req)
            })
        }
    )*};
    (persistent: $($name:ident => $host:ident, $form:expr;)*) => {$(
        #[allow(clippy::too_many_arguments)]
        pub fn $name(
            mut env: FunctionEnvMut<MpiEnv>,
            sendbuf: u32, sendcounts: u32, sdispls: u32, sendtypes: u32,
            recvbuf: u32, recvcounts: u32, rdispls: u32, recvtypes: u32, comm: i32, info: i32, request: u32,
        ) -> Result<i32, Fatal> {
            let args = [sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes];
            w_collective(&mut env, stringify!($host), $form, args, comm, Mode::Persistent { info, request }, |s, r, c, i, req| unsafe {
                ffi::$host(s.buf as _, s.counts as _, s.displs as _, s.types_ptr(), r.buf as _, r.counts as _, r.displs as _, r.types_ptr(), c, i, req)
            })
        }
    )*};
}

w_collectives!(blocking:
    alltoallw => MPI_Alltoallw, ALLTOALLW;
    alltoallw_c => MPI_Alltoallw_c, ALLTOALLW_C;
    neighbor_alltoallw => MPI_Neighbor_alltoallw, NEIGHBOR_ALLTOALLW;
    neighbor_alltoallw_c => MPI_Neighbor_alltoallw_c, NEIGHBOR_ALLTOALLW_C;
);
w_collectives!(nonblocking:
    ialltoallw => MPI_Ialltoallw, ALLTOALLW;
    ialltoallw_c => MPI_Ialltoallw_c, ALLTOALLW_C;
    ineighbor_alltoallw => MPI_Ineighbor_alltoallw, NEIGHBOR_ALLTOALLW;
    ineighbor_alltoallw_c => MPI_Ineighbor_alltoallw_c, NEIGHBOR_ALLTOALLW_C;
);
w_collectives!(persistent:
    alltoallw_init => MPI_Alltoallw_init, ALLTOALLW;
    alltoallw_init_c => MPI_Alltoallw_init_c, ALLTOALLW_C;
    neighbor_alltoallw_init => MPI_Neighbor_alltoallw_init, NEIGHBOR_ALLTOALLW;
    neighbor_alltoallw_init_c => MPI_Neighbor_alltoallw_init_c, NEIGHBOR_ALLTOALLW_C;
);

/// `check_self_block`'s sizes from the host (the cold helpers here take
/// the bridge, not the context: see `overlapping`).
#[inline(never)]
fn self_block_sizes(bridge: &Bridge, send: (i64, ffi::MPI_Datatype), recv: (i64, ffi::MPI_Datatype)) -> MpiResult {
    let (sent, received) = (bridge.host_bytes(send.0, send.1)?, bridge.host_bytes(recv.0, recv.1)?);
    if sent != received {
        return Err(MpiError::new(
            abi::c::MPI_ERR_TRUNCATE,
            format!("this process's block to itself is {sent} bytes sent and {received} received: the two must match"),
        ));
    }
    Ok(())
}

/// `check_disjoint`'s failure, unless the send side is MPI_IN_PLACE (its
/// sentinel may lie anywhere). Given the sentinel, not the context: a
/// context whose address reaches a function that is not inlined is stored
/// whole on every call (call.rs).
#[cold]
#[inline(never)]
fn overlapping(sendbuf: *mut u8, in_place: *mut u8) -> MpiResult {
    if sendbuf == in_place {
        return Ok(());
    }
    Err(MpiError::new(abi::c::MPI_ERR_BUFFER, "the send and receive buffers overlap (MPI_IN_PLACE reduces in the receive buffer)"))
}

#[cold]
#[inline(never)]
fn mpich_noncommutative_layout(op: host_mpi::Op, datatype: &DatatypeEntry) -> MpiResult {
    if !host_mpi::is_mpich() {
        return Ok(());
    }
    let mut commutative = 1;
    if unsafe { ffi::MPI_Op_commutative(op.0, &mut commutative) } != 0 || commutative != 0 {
        return Ok(());
    }
    Err(MpiError::new(
        abi::c::MPI_ERR_TYPE,
        format!(
            "a reduce-scatter with a non-commutative operation on a datatype of extent {} and true extent {}: \
             MPICH computes it wrongly and writes past its own buffers (natively too) on a power-of-two number of processes",
            datatype.extent(),
            datatype.true_extent()
        ),
    ))
}
