//! Environment management: MPI_Init/Finalize, queries, timers, MPI_Abort.
use std::io::Write;

use wasmer::FunctionEnvMut;

use super::{
    call::{call, Ctx},
    errors::{Fatal, FatalKind, MpiError, MpiResult},
    MpiEnv,
};
use crate::{abi, host_mpi};

const WORLD: i32 = abi::c::MPI_COMM_WORLD;

fn already_initialized() -> MpiError {
    MpiError::new(abi::c::MPI_ERR_OTHER, "MPI is already initialized (or was finalized); it can be initialized once")
}

/// MPI_Init may not follow the finalization of the last session here:
/// MPICH 4.0.2 and Open MPI 5 crash in it natively (a segmentation fault in
/// the host library), so it is refused.
fn check_init_allowed(cx: &Ctx) -> MpiResult {
    if host_mpi::initialized() {
        return Err(already_initialized());
    }
    if cx.bridge.sessions_ended {
        return Err(MpiError::new(
            abi::c::MPI_ERR_OTHER,
            "MPI_Init after the last session was finalized is not supported (the host MPI library crashes there)",
        ));
    }
    Ok(())
}

// argc/argv are ignored: the host MPI gets its arguments from the launcher's
// environment, and the guest's own argv comes from WASI.
#[inline]
pub fn init(mut env: FunctionEnvMut<MpiEnv>, _argc: u32, _argv: u32) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Init", WORLD, |cx| {
        check_init_allowed(cx)?;
        cx.host(host_mpi::init())?;
        cx.bridge.on_init()?;
        super::info::publish_environment(cx)
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

#[inline]
pub fn init_thread(mut env: FunctionEnvMut<MpiEnv>, _argc: u32, _argv: u32, required: i32, provided: u32) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Init_thread", WORLD, |cx| {
        check_init_allowed(cx)?;
        let required = thread_level(required, true)
            .ok_or_else(|| MpiError::new(abi::c::MPI_ERR_ARG, format!("invalid thread level {required}")))?;
        cx.mem.range(provided, 4)?;
        let mut host_provided = 0;
        cx.host(host_mpi::init_thread(required, &mut host_provided))?;
        cx.bridge.on_init()?;
        super::info::publish_environment(cx)?;
        let level = thread_level(host_provided, false).unwrap_or(abi::c::MPI_THREAD_SINGLE);
        Ok(cx.mem.write_i32(provided, level)?)
    })
}

/// As MPI requires, MPI_COMM_SELF's attributes are deleted first (their
/// delete callbacks are how libraries hook into finalization); pending
/// MPI_Comm_idup requests are completed before the host finalizes (see
/// `request::complete_pending_idups`), and windows left open are freed
/// (`rma::free_left_windows`).
#[inline]
pub fn finalize(mut env: FunctionEnvMut<MpiEnv>) -> Result<i32, Fatal> {
    if host_mpi::active() {
        let rc = super::attr::delete_all(&mut env, "MPI_Finalize", super::attr::Kind::Comm, abi::c::MPI_COMM_SELF)?;
        if rc != abi::c::MPI_SUCCESS {
            return Ok(rc);
        }
    }
    call(&mut env, "MPI_Finalize", WORLD, |cx| {
        cx.require_world()?; // an open session is not MPI_Init
        super::request::complete_pending_idups(cx)?;
        super::rma::free_left_windows(cx)?;
        super::comm::finish_closing(cx);
        let _ = std::io::stdout().flush();
        cx.host(host_mpi::finalize())?;
        cx.bridge.on_finalize();
        Ok(())
    })
}

#[inline]
pub fn initialized(mut env: FunctionEnvMut<MpiEnv>, flag: u32) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Initialized", WORLD, |cx| Ok(cx.mem.write_i32(flag, host_mpi::initialized() as i32)?))
}

#[inline]
pub fn finalized(mut env: FunctionEnvMut<MpiEnv>, flag: u32) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Finalized", WORLD, |cx| Ok(cx.mem.write_i32(flag, host_mpi::finalized() as i32)?))
}

#[inline]
pub fn abort(mut env: FunctionEnvMut<MpiEnv>, comm: i32, errorcode: i32) -> Result<i32, Fatal> {
    if super::callbacks::in_user_function() {
        // called from a user reduction, inside the bridge's own MPI call
        let _ = std::io::stdout().flush();
        host_mpi::abort(host_mpi::constants().comm_world, errorcode);
    }
    let mut target = None;
    call(&mut env, "MPI_Abort", WORLD, |cx| {
        target = cx.comm(comm).or_else(|_| cx.comm(WORLD)).ok().map(|c| c.host);
        Ok(())
    })?;
    let _ = std::io::stdout().flush();
    match target {
        Some(host_comm) => host_mpi::abort(host_comm, errorcode),
        None => Err(FatalKind::Abort(errorcode).into()),
    }
}

pub fn wtime(_env: FunctionEnvMut<MpiEnv>) -> f64 {
    host_mpi::wtime()
}

#[inline]
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

#[inline]
pub fn get_version(mut env: FunctionEnvMut<MpiEnv>, version: u32, subversion: u32) -> Result<i32, Fatal> {
    // The guest sees the MPI level its header declares, not the host's.
    call(&mut env, "MPI_Get_version", WORLD, |cx| {
        cx.mem.range(subversion, 4)?;
        cx.mem.write_i32(version, 3)?;
        Ok(cx.mem.write_i32(subversion, 1)?)
    })
}

#[inline]
pub fn get_library_version(mut env: FunctionEnvMut<MpiEnv>, version: u32, resultlen: u32) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Get_library_version", WORLD, |cx| {
        let text = format!("mpi-wasm-embedder {} on {}", env!("CARGO_PKG_VERSION"), host_mpi::library_version());
        cx.write_string(version, resultlen, &text, abi::c::MPI_MAX_LIBRARY_VERSION_STRING)
    })
}

pub fn wtick(_env: FunctionEnvMut<MpiEnv>) -> f64 {
    unsafe { host_mpi::ffi::MPI_Wtick() }
}

/// The bridge hands the guest error classes as error codes, so a code is
/// its own class.
/// Passed to the host library (or the profiler preloaded in front of it,
/// which switches on and off with it) while MPI runs; the variadic
/// arguments, whose meaning is the profiler's, are not.
pub fn pcontrol(_env: FunctionEnvMut<MpiEnv>, level: i32, _varargs: u32) -> i32 {
    match host_mpi::library::loaded().pcontrol {
        Some(f) if host_mpi::active() => match unsafe { f(level) } {
            0 => abi::c::MPI_SUCCESS,
            _ => abi::c::MPI_ERR_OTHER,
        },
        _ => abi::c::MPI_SUCCESS,
    }
}

#[inline]
pub fn query_thread(mut env: FunctionEnvMut<MpiEnv>, provided: u32) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Query_thread", WORLD, |cx| {
        let mut p = 0;
        cx.host(unsafe { host_mpi::ffi::MPI_Query_thread(&mut p) })?;
        Ok(cx.mem.write_i32(provided, thread_level(p, false).unwrap_or(abi::c::MPI_THREAD_SINGLE))?)
    })
}

#[inline]
pub fn is_thread_main(mut env: FunctionEnvMut<MpiEnv>, flag: u32) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Is_thread_main", WORLD, |cx| {
        let mut f = 0;
        cx.host(unsafe { host_mpi::ffi::MPI_Is_thread_main(&mut f) })?;
        Ok(cx.mem.write_i32(flag, f)?)
    })
}

/// Memory for MPI comes from the guest's own allocator (its exported
/// `malloc`), so it lies inside the sandbox like any other guest buffer.
#[inline]
pub fn alloc_mem(mut env: FunctionEnvMut<MpiEnv>, size: i32, info: i32, baseptr: u32) -> Result<i32, Fatal> {
    let fns = env.data().guest_fns();
    let addr = match (&fns, size) {
        (Some(fns), s) if s >= 0 => Some(fns.alloc(&mut env, s as u32)),
        _ => None,
    };
    call(&mut env, "MPI_Alloc_mem", WORLD, |cx| {
        cx.info(info)?;
        if size < 0 {
            return Err(MpiError::new(abi::c::MPI_ERR_ARG, format!("negative size {size}")));
        }
        match addr {
            Some(Ok(addr)) => Ok(cx.mem.write_i32(baseptr, addr as i32)?),
            Some(Err(e)) => Err(MpiError::new(abi::c::MPI_ERR_NO_MEM, e.to_string())),
            None => Err(MpiError::new(abi::c::MPI_ERR_NO_MEM, "called before the module was instantiated")),
        }
    })
}

#[inline]
pub fn free_mem(mut env: FunctionEnvMut<MpiEnv>, base: u32) -> Result<i32, Fatal> {
    let fns = env.data().guest_fns();
    let freed = fns.map(|f| f.release(&mut env, base));
    call(&mut env, "MPI_Free_mem", WORLD, |_| match freed {
        Some(Ok(())) => Ok(()),
        Some(Err(e)) => Err(MpiError::new(abi::c::MPI_ERR_BASE, e.to_string())),
        None => Err(MpiError::new(abi::c::MPI_ERR_NO_MEM, "called before the module was instantiated")),
    })
}
