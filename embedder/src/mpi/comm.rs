//! Communicators.
use wasmer::FunctionEnvMut;

use super::{
    attr,
    call::{call, Ctx}, state::{Bridge, Closing, CommEntry, PendingDup},
    generated,
    errors::{Fatal, MpiError},
    MpiEnv,
};
use crate::{abi, host_mpi};

#[inline]
pub fn rank(mut env: FunctionEnvMut<MpiEnv>, comm: i32, rank: u32) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Comm_rank", comm, |cx| {
        let c = cx.comm(comm)?;
        let mut r = 0;
        cx.host(host_mpi::comm_rank(c.host, &mut r))?;
        Ok(cx.mem.write_i32(rank, r)?)
    })
}

impl Ctx<'_> {
    /// MPI_Intercomm_merge, MPI_Comm_remote_group: an intercommunicator.
    /// MPICH asserts on an intracommunicator and aborts the job (the
    /// MPI-call fuzzer found both).
    pub fn check_intercomm(&self, c: &CommEntry) -> super::errors::MpiResult {
        if c.inter {
            return Ok(());
        }
        Err(MpiError::new(abi::c::MPI_ERR_COMM, "not an intercommunicator"))
    }
}

/// Attribute delete callbacks run first (on a communicator still valid).
#[inline]
pub fn free(mut env: FunctionEnvMut<MpiEnv>, comm: u32) -> Result<i32, Fatal> {
    let mut h = abi::c::MPI_COMM_NULL;
    let rc = call(&mut env, "MPI_Comm_free", abi::c::MPI_COMM_WORLD, |cx| {
        h = cx.mem.read_i32(comm)?;
        if h == abi::c::MPI_COMM_WORLD || h == abi::c::MPI_COMM_SELF {
            return Err(MpiError::new(abi::c::MPI_ERR_COMM, "predefined communicators cannot be freed"));
        }
        if cx.comm(h)?.host.0 == host_mpi::null_communicator().0 {
            return Err(MpiError::new(abi::c::MPI_ERR_COMM, "the MPI_Comm_idup making this communicator has not completed"));
        }
        Ok(())
    })?;
    if rc != abi::c::MPI_SUCCESS {
        return Ok(rc);
    }
    let rc = attr::delete_all(&mut env, "MPI_Comm_free", attr::Kind::Comm, h)?;
    if rc != abi::c::MPI_SUCCESS {
        return Ok(rc);
    }
    call(&mut env, "MPI_Comm_free", abi::c::MPI_COMM_WORLD, |cx| {
        close(cx, cx.comm(h)?);
        if let Some(entry) = cx.bridge.comms.remove(h) {
            cx.bridge.release_errhandler(entry.errhandler);
        }
        Ok(cx.mem.write_i32(comm, abi::c::MPI_COMM_NULL)?)
    })
}

/// The host side of the guest's MPI_Comm_free. The host communicator is
/// freed only when nothing can still reach it, because Open MPI 4.1
/// crashes (natively too) when
/// - a nonblocking collective or MPI_Comm_idup on it is still pending
///   (legal MPI: pending operations complete normally), or
/// - another process still sends on it: its messages then match whatever
///   communicator reuses the context id (an erroneous program; here one
///   rank's guest could crash another rank's host).
/// So the free posts an MPI_Ibarrier on the communicator, and the host free
/// waits until that barrier is done (every process has freed it) and no
/// request of the guest's runs on it. `sweep_closing` checks.
pub fn close(cx: &mut Ctx, c: CommEntry) {
    let mut agreement = host_mpi::null_request();
    if c.inter || c.peers > 1 {
        // on failure the host communicator is kept: never freed, never reused
        if unsafe { host_mpi::ffi::MPI_Ibarrier(c.host.0, &mut agreement.0) } != host_mpi::SUCCESS {
            return;
        }
    }
    cx.bridge.closing.push(Closing { host: c.host, agreement });
    sweep_closing(cx.bridge);
}

/// Frees the host communicators of `close` whose agreement is done and on
/// which no request of the guest's runs.
pub fn sweep_closing(bridge: &mut Bridge) {
    let mut closing = std::mem::take(&mut bridge.closing);
    closing.retain_mut(|c| {
        if !host_mpi::is_null_request(c.agreement) {
            let (mut done, mut status) = (0, host_mpi::empty_status());
            let rc = unsafe { host_mpi::ffi::MPI_Test(&mut c.agreement.0, &mut done, &mut status) };
            // a failed agreement keeps the communicator for good
            if rc != host_mpi::SUCCESS || done == 0 {
                return true;
            }
        }
        let requests = &bridge.requests;
        if requests.user_handles().any(|h| requests.get(h).is_some_and(|e| e.comm.0 == c.host.0)) {
            return true;
        }
        // the guest's MPI_Comm_free already succeeded: nothing to report
        unsafe { host_mpi::ffi::MPI_Comm_free(&mut c.host.0) };
        false
    });
    closing.append(&mut bridge.closing);
    bridge.closing = closing;
}

/// At MPI_Finalize: gives the agreements of freed communicators a moment
/// to complete, so a correct program leaves no host request pending. Those
/// still open (a process that never freed the communicator) are left to
/// the host MPI, as for a native program.
pub fn finish_closing(cx: &mut Ctx) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_millis(200);
    while cx.bridge.closing.iter().any(|c| !host_mpi::is_null_request(c.agreement)) && std::time::Instant::now() < deadline {
        sweep_closing(cx.bridge);
        std::thread::yield_now();
    }
}

/// After a successful duplication into the guest handle at `newcomm`, the
/// attributes of `comm` are copied by their keyvals' copy callbacks.
fn copy_attributes(env: &mut FunctionEnvMut<MpiEnv>, function: &'static str, rc: i32, comm: i32, newcomm: u32) -> Result<i32, Fatal> {
    if rc != abi::c::MPI_SUCCESS {
        return Ok(rc);
    }
    let mut new = abi::c::MPI_COMM_NULL;
    call(env, function, comm, |cx| {
        new = cx.mem.read_i32(newcomm)?;
        Ok(())
    })?;
    attr::copy_all(env, function, attr::Kind::Comm, comm, new)
}

#[inline]
pub fn dup(mut env: FunctionEnvMut<MpiEnv>, comm: i32, newcomm: u32) -> Result<i32, Fatal> {
    let rc = generated::comm::mpi_comm_dup(env.as_mut(), comm, newcomm)?;
    copy_attributes(&mut env, "MPI_Comm_dup", rc, comm, newcomm)
}

#[inline]
pub fn dup_with_info(mut env: FunctionEnvMut<MpiEnv>, comm: i32, info: i32, newcomm: u32) -> Result<i32, Fatal> {
    let rc = generated::comm::mpi_comm_dup_with_info(env.as_mut(), comm, info, newcomm)?;
    copy_attributes(&mut env, "MPI_Comm_dup_with_info", rc, comm, newcomm)
}

#[inline]
pub fn idup(mut env: FunctionEnvMut<MpiEnv>, comm: i32, newcomm: u32, request: u32) -> Result<i32, Fatal> {
    start_idup(&mut env, "MPI_Comm_idup", comm, None, newcomm, request)
}

#[inline]
pub fn idup_with_info(mut env: FunctionEnvMut<MpiEnv>, comm: i32, info: i32, newcomm: u32, request: u32) -> Result<i32, Fatal> {
    start_idup(&mut env, "MPI_Comm_idup_with_info", comm, Some(info), newcomm, request)
}

/// The new communicator's guest handle is written at once; the host fills
/// in the communicator itself when the request completes.
fn start_idup(env: &mut FunctionEnvMut<MpiEnv>, function: &'static str, comm: i32, info: Option<i32>, newcomm: u32, request: u32) -> Result<i32, Fatal> {
    let rc = call(env, function, comm, |cx| {
        let c = cx.comm(comm)?;
        let info = info.map(|i| cx.info(i)).transpose()?;
        cx.mem.range(newcomm, 4)?;
        cx.mem.range(request, 4)?;
        let errhandler = cx.bridge.inherit_errhandler(comm);
        let guest = cx.bridge.comms.insert(CommEntry::pending(errhandler));
        let mut slot = Box::new(PendingDup { guest, host: host_mpi::null_communicator() });
        let mut r = host_mpi::null_request();
        let rc = unsafe {
            match info {
                None => host_mpi::ffi::MPI_Comm_idup(c.host.0, &mut slot.host.0, &mut r.0),
                Some(i) => host_mpi::ffi::MPI_Comm_idup_with_info(c.host.0, i.0, &mut slot.host.0, &mut r.0),
            }
        };
        if let Err(e) = cx.host(rc) {
            cx.bridge.comms.remove(guest);
            cx.bridge.release_errhandler(errhandler);
            return Err(e);
        }
        let mut entry = cx.request_entry(r, false);
        entry.extra().new_comm = Some(slot);
        let handle = cx.bridge.requests.insert(entry);
        cx.mem.write_i32(newcomm, guest)?;
        Ok(cx.mem.write_i32(request, handle)?)
    })?;
    copy_attributes(env, function, rc, comm, newcomm)
}

/// MPI_COMM_WORLD and MPI_COMM_SELF keep the names the guest gives them
/// here, as predefined datatypes do: Open MPI 5 holds their default names
/// in buffers sized to them, and a name of 24 bytes or more overruns its
/// heap block (natively too; the job dies at exit).
fn predefined(comm: i32) -> bool {
    comm == abi::c::MPI_COMM_WORLD || comm == abi::c::MPI_COMM_SELF
}

#[inline]
pub fn set_name(mut env: FunctionEnvMut<MpiEnv>, comm: i32, name: u32) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Comm_set_name", comm, |cx| {
        let c = cx.comm(comm)?;
        let name = cx.cstr(name, abi::c::MPI_MAX_OBJECT_NAME as usize)?;
        if predefined(comm) {
            cx.bridge.predefined_comm_names.insert(comm, name.to_string_lossy().into_owned());
            return Ok(());
        }
        cx.host(unsafe { host_mpi::ffi::MPI_Comm_set_name(c.host.0, name.as_ptr()) })
    })
}

#[inline]
pub fn get_name(mut env: FunctionEnvMut<MpiEnv>, comm: i32, name: u32, resultlen: u32) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Comm_get_name", comm, |cx| {
        let c = cx.comm(comm)?;
        if let Some(text) = cx.bridge.predefined_comm_names.get(&comm) {
            return cx.write_string(name, resultlen, &text.clone(), abi::c::MPI_MAX_OBJECT_NAME);
        }
        let mut buf = vec![0u8; host_mpi::constants().int("MPI_MAX_OBJECT_NAME") as usize + 1];
        let mut len = 0;
        cx.host(unsafe { host_mpi::ffi::MPI_Comm_get_name(c.host.0, buf.as_mut_ptr() as *mut _, &mut len) })?;
        buf.truncate(len.max(0) as usize);
        cx.write_string(name, resultlen, &String::from_utf8_lossy(&buf), abi::c::MPI_MAX_OBJECT_NAME)
    })
}
