//! Point-to-point communication.
use std::mem::MaybeUninit;

use wasmer::FunctionEnvMut;

use super::{context::call, errors::Fatal, MpiEnv};
use crate::host_mpi;

pub fn send(mut env: FunctionEnvMut<MpiEnv>, buf: u32, count: i32, datatype: i32, dest: i32, tag: i32, comm: i32) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Send", comm, |cx| {
        let c = cx.comm(comm)?;
        let dt = cx.datatype(datatype)?;
        let p = cx.buffer(buf, count, &dt)?;
        let (dest, tag) = (cx.rank(dest, false)?, cx.tag(tag, false)?);
        cx.host(unsafe { host_mpi::send(p, count, dt.host, dest, tag, c.host) })
    })
}

#[allow(clippy::too_many_arguments)]
pub fn recv(
    mut env: FunctionEnvMut<MpiEnv>,
    buf: u32,
    count: i32,
    datatype: i32,
    source: i32,
    tag: i32,
    comm: i32,
    status: u32,
) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Recv", comm, |cx| {
        let c = cx.comm(comm)?;
        let dt = cx.datatype(datatype)?;
        let p = cx.buffer(buf, count, &dt)?;
        let (source, tag) = (cx.rank(source, true)?, cx.tag(tag, true)?);
        cx.check_status_ptr(status)?;
        // The host writes its own layout into a host status; the guest's is
        // written after the receive completes.
        let mut st = unsafe { MaybeUninit::<host_mpi::Status>::zeroed().assume_init() };
        cx.host(unsafe { host_mpi::recv(p, count, dt.host, source, tag, c.host, &mut st) })?;
        cx.write_status(status, &st)
    })
}
