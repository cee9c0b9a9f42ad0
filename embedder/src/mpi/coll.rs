//! Collectives with per-rank datatypes (the rest is generated): Alltoallw
//! and Ialltoallw take arrays of datatype handles, which must be translated
//! into host arrays that outlive a nonblocking call.
use wasmer::FunctionEnvMut;

use super::{
    call::{call, Ctx},
    errors::{Fatal, MpiResult},
    MpiEnv,
};
use crate::{host_mpi, host_mpi::ffi};

/// One side (send or receive) of an Alltoallw or Neighbor_alltoallw: the
/// buffer (every block checked), the in-place counts, the byte
/// displacements and the host types. Alltoallw's displacements are C ints
/// (handed over in place), Neighbor_alltoallw's are guest 32-bit MPI_Aint
/// (widened into `wide`). The arrays must outlive a nonblocking call.
pub struct Side {
    pub buf: *mut u8,
    pub counts: *const i32,
    pub displs: *const i32,
    pub wide: Box<[ffi::MPI_Aint]>,
    pub types: host_mpi::HandleVec,
}

impl Side {
    pub fn types_ptr(&self) -> *mut ffi::MPI_Datatype {
        self.types.as_ptr() as *mut ffi::MPI_Datatype
    }
}

/// `n` blocks; `aint_displs` selects MPI_Aint displacements; `in_place`:
/// whether this side accepts MPI_IN_PLACE (an error otherwise).
#[allow(clippy::too_many_arguments)]
pub fn side(cx: &mut Ctx, buf: u32, counts: u32, displs: u32, types: u32, n: i64, aint_displs: bool, in_place: bool) -> MpiResult<Side> {
    let none = std::ptr::null();
    if cx.in_place_arg(buf, in_place)? {
        return Ok(Side { buf: cx.in_place(), counts: none, displs: none, wide: Box::new([]), types: host_mpi::HandleVec::new() });
    }
    let (c, d) = (cx.int_array(counts, n)?, cx.int_array(displs, n)?);
    let (mut host_types, mut wide) = (host_mpi::HandleVec::new(), Vec::new());
    for i in 0..n as u32 {
        let dt = cx.datatype(cx.mem.read_i32(types.wrapping_add(4 * i))?)?;
        let (count, displ) = (cx.int_at(counts, i as i32)?, cx.int_at(displs, i as i32)?);
        // byte displacements: check the block where it lies
        cx.block(buf, displ as i64, count as i64, &dt)?;
        host_types.push(dt.host.0);
        if aint_displs {
            wide.push(displ as ffi::MPI_Aint); // signed, as MPI_Aint is
        }
    }
    let buf = cx.mem.range(buf, 0).unwrap_or_else(|_| cx.mem.unchecked_empty(buf));
    Ok(Side { buf, counts: c, displs: if aint_displs { none } else { d }, wide: wide.into(), types: host_types })
}

fn sides(cx: &mut Ctx, comm: i32, args: [u32; 8]) -> MpiResult<(host_mpi::Comm, Side, Side)> {
    let [sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes] = args;
    let c = cx.comm(comm)?;
    let n = c.peers;
    // MPI_IN_PLACE: the send side of an intracommunicator's Alltoallw only
    let send = side(cx, sendbuf, sendcounts, sdispls, sendtypes, n, false, !c.inter)?;
    Ok((c.host, send, side(cx, recvbuf, recvcounts, rdispls, recvtypes, n, false, false)?))
}

#[allow(clippy::too_many_arguments)]
pub fn alltoallw(
    mut env: FunctionEnvMut<MpiEnv>,
    sendbuf: u32, sendcounts: u32, sdispls: u32, sendtypes: u32,
    recvbuf: u32, recvcounts: u32, rdispls: u32, recvtypes: u32, comm: i32,
) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Alltoallw", comm, |cx| {
        let (c, s, r) = sides(cx, comm, [sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes])?;
        cx.host(unsafe {
            ffi::MPI_Alltoallw(s.buf as _, s.counts as _, s.displs as _, s.types_ptr(), r.buf as _, r.counts as _, r.displs as _, r.types_ptr(), c.0)
        })
    })
}

#[allow(clippy::too_many_arguments)]
pub fn ialltoallw(
    mut env: FunctionEnvMut<MpiEnv>,
    sendbuf: u32, sendcounts: u32, sdispls: u32, sendtypes: u32,
    recvbuf: u32, recvcounts: u32, rdispls: u32, recvtypes: u32, comm: i32, request: u32,
) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Ialltoallw", comm, |cx| {
        let (c, s, r) = sides(cx, comm, [sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes])?;
        cx.mem.range(request, 4)?;
        let mut req = host_mpi::null_request();
        cx.host(unsafe {
            ffi::MPI_Ialltoallw(s.buf as _, s.counts as _, s.displs as _, s.types_ptr(), r.buf as _, r.counts as _, r.displs as _, r.types_ptr(), c.0, &mut req.0)
        })?;
        let mut entry = cx.request_entry(req, false);
        entry.keep = Some(Box::new((s, r)));
        let handle = cx.bridge.requests.insert(entry);
        Ok(cx.mem.write_i32(request, handle)?)
    })
}
