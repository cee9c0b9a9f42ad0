//! Buffers attached for buffered sends: MPI_Buffer_attach's (the
//! process's) and MPI-4.1's per communicator and per session, with their
//! large-count forms and MPI_BUFFER_AUTOMATIC.
//!
//! The host MPI gets a host-owned buffer of the same size instead of the
//! guest's, because it keeps its allocator's bookkeeping inside the attached
//! buffer and trusts it (a guest editing it made the next MPI_Bsend write
//! far past the buffer). Bsend still copies the message out of the guest's
//! send buffer; the guest's attached buffer is never touched, and the
//! host's is out of the guest's reach. Detaching returns the guest's own
//! address and size.
use std::ffi::c_void;

use wasmer::FunctionEnvMut;

use super::{
    call::{call, Ctx},
    errors::{Fatal, MpiError, MpiResult},
    MpiEnv,
};
use crate::{abi, host_mpi, host_mpi::ffi};

/// Whose buffer: the process's, a communicator's or a session's (guest
/// handles).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Scope {
    Process,
    Comm(i32),
    Session(i32),
}

impl Scope {
    fn owner(self) -> &'static str {
        match self {
            Scope::Process => "",
            Scope::Comm(_) => " to the communicator",
            Scope::Session(_) => " to the session",
        }
    }
}

pub struct Attached {
    guest: u32,
    size: i64,
    /// The host's buffer (empty for MPI_BUFFER_AUTOMATIC). It stays while
    /// the host may use it: until detached (a communicator or session
    /// freed with a buffer attached keeps it until exit).
    _host: Vec<u8>,
}

fn is_automatic(buffer: u32) -> bool {
    buffer as usize == abi::c::MPI_BUFFER_AUTOMATIC as usize
}

/// Attaches the guest's `size` bytes at `buffer` for `scope`: `host(buffer,
/// size)` attaches the host's own buffer of that size (or the host's
/// MPI_BUFFER_AUTOMATIC).
pub fn attach(cx: &mut Ctx, scope: Scope, buffer: u32, size: i64, host: impl FnOnce(*mut c_void, i64) -> i32) -> MpiResult {
    if size < 0 {
        return Err(MpiError::new(abi::c::MPI_ERR_ARG, format!("negative buffer size {size}")));
    }
    if cx.bridge.attached.contains_key(&scope) {
        return Err(MpiError::new(abi::c::MPI_ERR_BUFFER, format!("a buffer is already attached{}", scope.owner())));
    }
    let mut own = Vec::new();
    let host_buffer = if is_automatic(buffer) {
        let automatic = host_mpi::constants().ptrs.get("MPI_BUFFER_AUTOMATIC").copied();
        automatic.ok_or_else(|| MpiError::new(abi::c::MPI_ERR_BUFFER, "MPI_BUFFER_AUTOMATIC needs an MPI-4.1 host library"))?
            as *mut c_void
    } else {
        cx.mem.range(buffer, size as u64)?;
        // capacity only: the host writes before it reads, Rust never reads it
        own.try_reserve_exact(size as usize)
            .map_err(|_| MpiError::new(abi::c::MPI_ERR_NO_MEM, format!("no host memory for a {size}-byte buffer")))?;
        own.as_mut_ptr() as *mut c_void
    };
    cx.host(host(host_buffer, size))?;
    cx.bridge.attached.insert(scope, Attached { guest: buffer, size, _host: own });
    Ok(())
}

/// Detaches `scope`'s buffer: `host(large)` detaches on the host (MPI
/// blocks until the buffered messages are out), `large` when the buffer
/// needs the large-count call; then the guest's own address goes to
/// `buffer_addr` and its size to `size` (an MPI_Count if `count_size`).
pub fn detach(cx: &mut Ctx, scope: Scope, buffer_addr: u32, size: u32, count_size: bool, host: impl FnOnce(bool) -> i32) -> MpiResult {
    cx.mem.range(buffer_addr, 4)?;
    cx.mem.range(size, if count_size { 8 } else { 4 })?;
    let recorded = cx.bridge.attached.get(&scope).map(|a| a.size);
    if !count_size && recorded.is_some_and(|s| s > i32::MAX as i64) {
        return Err(MpiError::new(abi::c::MPI_ERR_VALUE_TOO_LARGE, "the attached buffer's size needs the _c form of the call"));
    }
    finish_flushes(cx, scope)?;
    cx.host(host(recorded.is_some_and(|s| s > i32::MAX as i64)))?;
    let (guest, guest_size) = cx.bridge.attached.remove(&scope).map_or((0, 0), |a| (a.guest, a.size));
    cx.mem.write_i32(buffer_addr, guest as i32)?;
    if count_size {
        Ok(cx.mem.write_bytes(size, &guest_size.to_le_bytes())?)
    } else {
        Ok(cx.mem.write_i32(size, guest_size as i32)?)
    }
}

/// Completes on the host the nonblocking flushes of `scope`'s buffer that
/// the guest has not completed yet, before the buffer goes
/// (`request::complete_on_host`): MPICH 5.0.2's flush request keeps
/// pointing into the buffer's state, which its detach frees, and the
/// request's next test read freed memory (SIGBUS or SIGSEGV, natively too;
/// MPI-call fuzzer, seed 79034). Finalizing a session detaches its buffer
/// too (`session_finalize`): a flush left pending there was waited on later
/// with the host's state gone, and under the session's guest handle, which
/// a new session may reuse (SIGSEGV in MPICH's `MPI_Wait`, seed 79045).
pub(in crate::mpi) fn finish_flushes(cx: &mut Ctx, scope: Scope) -> MpiResult {
    let (function, comm, session) = match scope {
        Scope::Process => ("MPI_Buffer_iflush", None, None),
        Scope::Comm(c) => ("MPI_Comm_iflush_buffer", Some(cx.comm(c)?.host.0), None),
        Scope::Session(s) => ("MPI_Session_iflush_buffer", None, Some(s)),
    };
    let of_session = |e: &super::state::RequestEntry| session.is_none() || e.extra.as_ref().is_some_and(|x| x.session == session);
    super::request::complete_on_host(cx, |e| e.made_by == function && comm.is_none_or(|c| e.comm.0 == c) && of_session(e))
}

const WORLD: i32 = abi::c::MPI_COMM_WORLD;

/// The host's int form where the size fits it (every host has it), else
/// its large-count form.
fn attach_process(cx: &mut Ctx, buffer: u32, size: i64) -> MpiResult {
    attach(cx, Scope::Process, buffer, size, |b, n| match i32::try_from(n) {
        Ok(n) => unsafe { ffi::MPI_Buffer_attach(b, n) },
        Err(_) => unsafe { ffi::MPI_Buffer_attach_c(b, n) },
    })
}

fn detach_process(cx: &mut Ctx, buffer_addr: u32, size: u32, count_size: bool) -> MpiResult {
    let mut addr: *mut c_void = std::ptr::null_mut();
    let (mut n, mut n_c) = (0i32, 0i64);
    detach(cx, Scope::Process, buffer_addr, size, count_size, |large| unsafe {
        if large {
            ffi::MPI_Buffer_detach_c(&mut addr as *mut _ as *mut _, &mut n_c)
        } else {
            ffi::MPI_Buffer_detach(&mut addr as *mut _ as *mut _, &mut n)
        }
    })
}

#[inline]
pub fn buffer_attach(mut env: FunctionEnvMut<MpiEnv>, buffer: u32, size: i32) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Buffer_attach", WORLD, |cx| attach_process(cx, buffer, size as i64))
}

#[inline]
pub fn buffer_attach_c(mut env: FunctionEnvMut<MpiEnv>, buffer: u32, size: i64) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Buffer_attach_c", WORLD, |cx| attach_process(cx, buffer, size))
}

#[inline]
pub fn buffer_detach(mut env: FunctionEnvMut<MpiEnv>, buffer_addr: u32, size: u32) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Buffer_detach", WORLD, |cx| detach_process(cx, buffer_addr, size, false))
}

#[inline]
pub fn buffer_detach_c(mut env: FunctionEnvMut<MpiEnv>, buffer_addr: u32, size: u32) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Buffer_detach_c", WORLD, |cx| detach_process(cx, buffer_addr, size, true))
}

fn attach_comm(env: &mut FunctionEnvMut<MpiEnv>, function: &'static str, comm: i32, buffer: u32, size: i64, count_size: bool) -> Result<i32, Fatal> {
    call(env, function, comm, |cx| {
        let c = cx.comm(comm)?.host.0;
        attach(cx, Scope::Comm(comm), buffer, size, |b, n| unsafe {
            if count_size {
                ffi::MPI_Comm_attach_buffer_c(c, b, n)
            } else {
                ffi::MPI_Comm_attach_buffer(c, b, n as i32)
            }
        })
    })
}

fn detach_comm(env: &mut FunctionEnvMut<MpiEnv>, function: &'static str, comm: i32, buffer_addr: u32, size: u32, count_size: bool) -> Result<i32, Fatal> {
    call(env, function, comm, |cx| {
        let c = cx.comm(comm)?.host.0;
        let mut addr: *mut c_void = std::ptr::null_mut();
        let (mut n, mut n_c) = (0i32, 0i64);
        detach(cx, Scope::Comm(comm), buffer_addr, size, count_size, |large| unsafe {
            if large || count_size {
                ffi::MPI_Comm_detach_buffer_c(c, &mut addr as *mut _ as *mut _, &mut n_c)
            } else {
                ffi::MPI_Comm_detach_buffer(c, &mut addr as *mut _ as *mut _, &mut n)
            }
        })
    })
}

#[inline]
pub fn comm_attach_buffer(mut env: FunctionEnvMut<MpiEnv>, comm: i32, buffer: u32, size: i32) -> Result<i32, Fatal> {
    attach_comm(&mut env, "MPI_Comm_attach_buffer", comm, buffer, size as i64, false)
}

#[inline]
pub fn comm_attach_buffer_c(mut env: FunctionEnvMut<MpiEnv>, comm: i32, buffer: u32, size: i64) -> Result<i32, Fatal> {
    attach_comm(&mut env, "MPI_Comm_attach_buffer_c", comm, buffer, size, true)
}

#[inline]
pub fn comm_detach_buffer(mut env: FunctionEnvMut<MpiEnv>, comm: i32, buffer_addr: u32, size: u32) -> Result<i32, Fatal> {
    detach_comm(&mut env, "MPI_Comm_detach_buffer", comm, buffer_addr, size, false)
}

#[inline]
pub fn comm_detach_buffer_c(mut env: FunctionEnvMut<MpiEnv>, comm: i32, buffer_addr: u32, size: u32) -> Result<i32, Fatal> {
    detach_comm(&mut env, "MPI_Comm_detach_buffer_c", comm, buffer_addr, size, true)
}
