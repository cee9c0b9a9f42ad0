//! Communicators.
use wasmer::FunctionEnvMut;

use super::{context::call, errors::Fatal, MpiEnv};
use crate::host_mpi;

pub fn rank(mut env: FunctionEnvMut<MpiEnv>, comm: i32, rank: u32) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Comm_rank", comm, |cx| {
        let c = cx.comm(comm)?;
        let mut r = 0;
        cx.host(host_mpi::comm_rank(c.host, &mut r))?;
        Ok(cx.mem.write_i32(rank, r)?)
    })
}

pub fn size(mut env: FunctionEnvMut<MpiEnv>, comm: i32, size: u32) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Comm_size", comm, |cx| {
        let c = cx.comm(comm)?;
        let mut s = 0;
        cx.host(host_mpi::comm_size(c.host, &mut s))?;
        Ok(cx.mem.write_i32(size, s)?)
    })
}
