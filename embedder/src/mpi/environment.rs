//! Environment management: MPI_Init/Finalize, queries, timers, MPI_Abort.
use std::io::Write;

use wasmer::FunctionEnvMut;

use super::{
    context::call,
    errors::{Fatal, MpiError},
    MpiEnv,
};
use crate::{abi, host_mpi};

const WORLD: i32 = abi::c::MPI_COMM_WORLD;

fn already_initialized() -> MpiError {
    MpiError::new(abi::c::MPI_ERR_OTHER, "MPI is already initialized (or was finalized); it can be initialized once")
}

// argc/argv are ignored: the host MPI gets its arguments from the launcher's
// environment, and the guest's own argv comes from WASI.
pub fn init(mut env: FunctionEnvMut<MpiEnv>, _argc: u32, _argv: u32) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Init", WORLD, |cx| {
        if host_mpi::initialized() {
            return Err(already_initialized());
        }
        cx.host(host_mpi::init())?;
        cx.bridge.on_init()
    })
}

/// Thread levels are plain ints with different values in the standard ABI
/// and in each MPI; translate by name.
fn thread_level(value: i32, from_guest: bool) -> Option<i32> {
    const LEVELS: [&str; 4] = ["MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED", "MPI_THREAD_SERIALIZED", "MPI_THREAD_MULTIPLE"];
    let host = host_mpi::constants();
    LEVELS.iter().find_map(|name| {
        let (guest_v, host_v) = (abi::value_of(name)?, host.int(name));
        match from_guest {
            true if guest_v == value => Some(host_v),
            false if host_v == value => Some(guest_v),
            _ => None,
        }
    })
}

pub fn init_thread(mut env: FunctionEnvMut<MpiEnv>, _argc: u32, _argv: u32, required: i32, provided: u32) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Init_thread", WORLD, |cx| {
        if host_mpi::initialized() {
            return Err(already_initialized());
        }
        let required = thread_level(required, true)
            .ok_or_else(|| MpiError::new(abi::c::MPI_ERR_ARG, format!("invalid thread level {required}")))?;
        cx.mem.range(provided, 4)?;
        let mut host_provided = 0;
        cx.host(host_mpi::init_thread(required, &mut host_provided))?;
        cx.bridge.on_init()?;
        let level = thread_level(host_provided, false).unwrap_or(abi::c::MPI_THREAD_SINGLE);
        Ok(cx.mem.write_i32(provided, level)?)
    })
}

pub fn finalize(mut env: FunctionEnvMut<MpiEnv>) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Finalize", WORLD, |cx| {
        cx.require_running()?;
        let _ = std::io::stdout().flush();
        cx.host(host_mpi::finalize())?;
        cx.bridge.on_finalize();
        Ok(())
    })
}

pub fn initialized(mut env: FunctionEnvMut<MpiEnv>, flag: u32) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Initialized", WORLD, |cx| Ok(cx.mem.write_i32(flag, host_mpi::initialized() as i32)?))
}

pub fn finalized(mut env: FunctionEnvMut<MpiEnv>, flag: u32) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Finalized", WORLD, |cx| Ok(cx.mem.write_i32(flag, host_mpi::finalized() as i32)?))
}

pub fn abort(mut env: FunctionEnvMut<MpiEnv>, comm: i32, errorcode: i32) -> Result<i32, Fatal> {
    let mut target = None;
    call(&mut env, "MPI_Abort", WORLD, |cx| {
        target = cx.comm(comm).or_else(|_| cx.comm(WORLD)).ok().map(|c| c.host);
        Ok(())
    })?;
    let _ = std::io::stdout().flush();
    match target {
        Some(host_comm) => host_mpi::abort(host_comm, errorcode),
        None => Err(Fatal::Abort(errorcode)),
    }
}

pub fn wtime(_env: FunctionEnvMut<MpiEnv>) -> f64 {
    host_mpi::wtime()
}

pub fn get_processor_name(mut env: FunctionEnvMut<MpiEnv>, name: u32, resultlen: u32) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Get_processor_name", WORLD, |cx| {
        cx.require_running()?;
        let (rc, host_name) = host_mpi::processor_name();
        cx.host(rc)?;
        // The guest buffer holds MPI_MAX_PROCESSOR_NAME bytes (ABI value);
        // the host's limit may differ.
        let max = abi::c::MPI_MAX_PROCESSOR_NAME as usize - 1;
        let mut bytes = host_name[..host_name.len().min(max)].to_vec();
        let len = bytes.len() as i32;
        bytes.push(0);
        cx.mem.range(resultlen, 4)?;
        cx.mem.write_bytes(name, &bytes)?;
        Ok(cx.mem.write_i32(resultlen, len)?)
    })
}
