//! Communicators.
use wasmer::FunctionEnvMut;

use super::{
    context::{call, ErrorMode},
    errors::{Fatal, MpiError},
    MpiEnv,
};
use crate::{abi, host_mpi};

pub fn rank(mut env: FunctionEnvMut<MpiEnv>, comm: i32, rank: u32) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Comm_rank", comm, |cx| {
        let c = cx.comm(comm)?;
        let mut r = 0;
        cx.host(host_mpi::comm_rank(c.host, &mut r))?;
        Ok(cx.mem.write_i32(rank, r)?)
    })
}

/// The predefined error handlers (user-defined ones come with the
/// error-handling family).
pub fn set_errhandler(mut env: FunctionEnvMut<MpiEnv>, comm: i32, errhandler: i32) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Comm_set_errhandler", comm, |cx| {
        cx.comm(comm)?;
        let mode = match errhandler {
            abi::c::MPI_ERRORS_ARE_FATAL | abi::c::MPI_ERRORS_ABORT => ErrorMode::Fatal,
            abi::c::MPI_ERRORS_RETURN => ErrorMode::Return,
            _ => return Err(MpiError::new(abi::c::MPI_ERR_ARG, format!("unsupported error handler {errhandler:#x}"))),
        };
        cx.bridge.set_comm_errors(comm, mode)
    })
}

pub fn get_errhandler(mut env: FunctionEnvMut<MpiEnv>, comm: i32, errhandler: u32) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Comm_get_errhandler", comm, |cx| {
        cx.comm(comm)?;
        let h = match cx.bridge.comm_errors_of(comm) {
            Some(ErrorMode::Return) => abi::c::MPI_ERRORS_RETURN,
            _ => abi::c::MPI_ERRORS_ARE_FATAL,
        };
        Ok(cx.mem.write_i32(errhandler, h)?)
    })
}
