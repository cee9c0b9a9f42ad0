//! Communicators.
use wasmer::FunctionEnvMut;

use super::{
    context::{call, CommEntry, ErrorMode, RequestEntry},
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

pub fn free(mut env: FunctionEnvMut<MpiEnv>, comm: u32) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Comm_free", abi::c::MPI_COMM_WORLD, |cx| {
        let h = cx.mem.read_i32(comm)?;
        if h == abi::c::MPI_COMM_WORLD || h == abi::c::MPI_COMM_SELF {
            return Err(MpiError::new(abi::c::MPI_ERR_COMM, "predefined communicators cannot be freed"));
        }
        let mut c = cx.comm(h)?.host;
        cx.host(unsafe { host_mpi::ffi::MPI_Comm_free(&mut c.0) })?;
        cx.bridge.comms.remove(h);
        Ok(cx.mem.write_i32(comm, abi::c::MPI_COMM_NULL)?)
    })
}

/// The new communicator's guest handle is written at once; the host fills
/// in the communicator itself when the request completes.
pub fn idup(mut env: FunctionEnvMut<MpiEnv>, comm: i32, newcomm: u32, request: u32) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Comm_idup", comm, |cx| {
        let c = cx.comm(comm)?;
        cx.mem.range(newcomm, 4)?;
        cx.mem.range(request, 4)?;
        let guest = cx.bridge.comms.insert(CommEntry::pending(c.errors));
        let mut slot = Box::new((guest, host_mpi::null_communicator()));
        let mut r = host_mpi::null_request();
        let rc = unsafe { host_mpi::ffi::MPI_Comm_idup(c.host.0, &mut slot.1 .0, &mut r.0) };
        if let Err(e) = cx.host(rc) {
            cx.bridge.comms.remove(guest);
            return Err(e);
        }
        let mut entry = RequestEntry::new(r, false);
        entry.new_comm = Some(slot);
        let handle = cx.bridge.requests.insert(entry);
        cx.mem.write_i32(newcomm, guest)?;
        Ok(cx.mem.write_i32(request, handle)?)
    })
}

pub fn set_name(mut env: FunctionEnvMut<MpiEnv>, comm: i32, name: u32) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Comm_set_name", comm, |cx| {
        let c = cx.comm(comm)?;
        let name = cx.cstr(name, abi::c::MPI_MAX_OBJECT_NAME as usize)?;
        cx.host(unsafe { host_mpi::ffi::MPI_Comm_set_name(c.host.0, name.as_ptr()) })
    })
}

pub fn get_name(mut env: FunctionEnvMut<MpiEnv>, comm: i32, name: u32, resultlen: u32) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Comm_get_name", comm, |cx| {
        let c = cx.comm(comm)?;
        let mut buf = vec![0u8; host_mpi::constants().int("MPI_MAX_OBJECT_NAME") as usize + 1];
        let mut len = 0;
        cx.host(unsafe { host_mpi::ffi::MPI_Comm_get_name(c.host.0, buf.as_mut_ptr() as *mut _, &mut len) })?;
        buf.truncate(len.max(0) as usize);
        cx.write_string(name, resultlen, &String::from_utf8_lossy(&buf), abi::c::MPI_MAX_OBJECT_NAME)
    })
}
