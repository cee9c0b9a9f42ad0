//! Collective communication.
use wasmer::FunctionEnvMut;

use super::{context::call, errors::Fatal, MpiEnv};
use crate::host_mpi;

pub fn barrier(mut env: FunctionEnvMut<MpiEnv>, comm: i32) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Barrier", comm, |cx| {
        let c = cx.comm(comm)?;
        cx.host(host_mpi::barrier(c.host))
    })
}
