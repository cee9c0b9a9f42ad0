//! Generalized requests (MPI_Grequest_start / MPI_Grequest_complete).
//!
//! Each is carried by a host generalized request whose own callbacks do
//! nothing, so the Wait/Test families complete it alongside any other host
//! request. The guest's callbacks run in the bridge between host calls,
//! where they may call MPI (a query function fills the status with
//! MPI_Status_set_elements and MPI_Status_set_cancelled): query and free
//! after the call that completed the request, cancel in MPI_Cancel. The
//! guest has one thread, so a blocking wait on a generalized request it has
//! not completed could never return: it fails with MPI_ERR_REQUEST instead.
use std::ffi::{c_int, c_void};

use wasmer::{FunctionEnvMut, StoreMut};

use super::{
    call::{self, call, call_owing, ErrorsOf},
    errors::{Fatal, MpiError, MpiResult},
    state::Bridge,
    MpiEnv,
};
use crate::{abi, host_mpi, host_mpi::ffi};

const WORLD: i32 = abi::c::MPI_COMM_WORLD;
/// `query_fn(extra_state, status)`, `free_fn(extra_state)`, `cancel_fn(extra_state, complete)`.
const QUERY_PARAMS: usize = 2;
const FREE_PARAMS: usize = 1;
const CANCEL_PARAMS: usize = 2;

/// The guest's side of a generalized request (callbacks are function-table
/// indices; 0: none).
#[derive(Clone, Copy, Debug)]
pub struct Grequest {
    query: u32,
    free: u32,
    cancel: u32,
    extra_state: u32,
    /// MPI_Grequest_complete was called.
    pub complete: bool,
    /// MPI_Request_free came first: free_fn runs at MPI_Grequest_complete.
    freed: bool,
}

/// A guest callback the bridge owes once the current call is done.
#[derive(Debug)]
pub enum Owed {
    /// query_fn into the guest status at this address (0: a scratch one).
    Query(Grequest, u32),
    Free(Grequest),
    Cancel(Grequest),
}

unsafe extern "C" fn host_query(_extra_state: *mut c_void, _status: *mut c_void) -> c_int {
    0 // the status stays as the host zeroed it; the guest's query_fn fills the guest's
}

unsafe extern "C" fn host_free(_extra_state: *mut c_void) -> c_int {
    0
}

unsafe extern "C" fn host_cancel(_extra_state: *mut c_void, _complete: c_int) -> c_int {
    0
}

impl Bridge {
    /// A request just completed (and left the table): its query and free
    /// functions are owed, the query writing the status at `status`.
    pub fn owe_completion(&mut self, g: Grequest, status: u32) {
        self.grequests_owed.push(Owed::Query(g, status));
        self.grequests_owed.push(Owed::Free(g));
    }

    /// MPI_ERR_REQUEST if a blocking wait on `handles` could never return:
    /// `all` (Wait, Waitall) needs every request, Waitany/Waitsome one.
    #[inline]
    pub fn check_can_complete(&self, handles: &[i32], all: bool) -> MpiResult {
        // every MPI_Wait comes here: nothing to do unless the guest made
        // generalized requests
        if !self.grequests_started {
            return Ok(());
        }
        self.check_grequests_can_complete(handles, all)
    }

    /// `check_can_complete` once the guest has made generalized requests:
    /// no allocation, one lookup per request.
    #[inline(never)]
    fn check_grequests_can_complete(&self, handles: &[i32], all: bool) -> MpiResult {
        let stuck = |h: &i32| self.requests.get(*h).and_then(|e| e.grequest()).is_some_and(|g| !g.complete);
        let mut live = handles.iter().filter(|&&h| h != abi::c::MPI_REQUEST_NULL).peekable();
        let never = if all { live.any(stuck) } else { live.peek().is_some() && live.all(stuck) };
        if never {
            return Err(MpiError::new(
                abi::c::MPI_ERR_REQUEST,
                "waiting for a generalized request that MPI_Grequest_complete was not called on: it could never complete (the guest has one thread)",
            ));
        }
        Ok(())
    }
}

#[inline]
pub fn grequest_start(mut env: FunctionEnvMut<MpiEnv>, query: u32, free: u32, cancel: u32, extra_state: u32, request: u32) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Grequest_start", WORLD, |cx| {
        cx.require_running()?;
        cx.mem.range(request, 4)?;
        for (f, params) in [(query, QUERY_PARAMS), (free, FREE_PARAMS), (cancel, CANCEL_PARAMS)] {
            if f != 0 {
                cx.check_callback(f, params, 1)?;
            }
        }
        let mut r = host_mpi::null_request();
        cx.host(unsafe {
            ffi::MPI_Grequest_start(host_query as ffi::Callback, host_free as ffi::Callback, host_cancel as ffi::Callback, std::ptr::null_mut(), &mut r.0)
        })?;
        let mut entry = cx.request_entry(r, false);
        entry.extra().grequest = Some(Grequest { query, free, cancel, extra_state, complete: false, freed: false });
        cx.bridge.grequests_started = true;
        let handle = cx.bridge.requests.insert(entry);
        Ok(cx.mem.write_i32(request, handle)?)
    })
}

#[inline]
pub fn grequest_complete(mut env: FunctionEnvMut<MpiEnv>, request: i32) -> Result<i32, Fatal> {
    call_owing(&mut env, "MPI_Grequest_complete", WORLD, |cx| {
        let entry = cx.bridge.requests.get(request);
        let Some((host, g)) = entry.and_then(|e| Some((e.host, e.grequest()?))) else {
            return Err(MpiError::new(abi::c::MPI_ERR_REQUEST, format!("{request:#x} is not a generalized request")));
        };
        if g.complete {
            return Err(MpiError::new(abi::c::MPI_ERR_REQUEST, "MPI_Grequest_complete was already called on this request"));
        }
        cx.host(unsafe { ffi::MPI_Grequest_complete(host.0) })?;
        let g = Grequest { complete: true, ..g };
        if g.freed {
            cx.bridge.requests.remove(request);
            cx.bridge.grequests_owed.push(Owed::Free(g));
        } else if let Some(g_) = cx.bridge.requests.get_mut(request).and_then(|e| e.grequest_mut()) {
            *g_ = g;
        }
        Ok(())
    })
}

/// MPI_Request_free of a generalized request: free_fn now if it is
/// complete, else at MPI_Grequest_complete (the entry stays until then).
pub fn free(bridge: &mut Bridge, handle: i32) {
    let Some(g) = bridge.requests.get_mut(handle).and_then(|e| e.grequest_mut()) else { return };
    if g.complete {
        let g = *g;
        bridge.requests.remove(handle);
        bridge.grequests_owed.push(Owed::Free(g));
    } else {
        g.freed = true;
    }
}

/// MPI_Cancel of a generalized request: cancel_fn, told whether it completed.
pub fn cancel(bridge: &mut Bridge, handle: i32) -> bool {
    let Some(g) = bridge.requests.get(handle).and_then(|e| e.grequest()) else { return false };
    bridge.grequests_owed.push(Owed::Cancel(g));
    true
}

/// Runs the guest callbacks the call just made owes (`call::call_owing`
/// found some); the first that fails raises its code through the error
/// handler (if the call itself succeeded). `data` is the environment's
/// data: only borrowed between guest callbacks, which may call MPI.
#[inline(never)]
pub(super) fn run_owed_callbacks(data: &mut MpiEnv, store: &mut StoreMut, function: &'static str, rc: i32) -> Result<i32, Fatal> {
    let data: *mut MpiEnv = data;
    // Safety (each dereference of `data`): the environment outlives the
    // call, and no other reference to it is live at that point.
    let owed = std::mem::take(unsafe { &mut (*data).bridge.grequests_owed });
    let fns = unsafe { (*data).guest_fns() }.ok_or_else(|| call::not_instantiated(function))?;
    let fail = |e: super::callbacks::CallbackError| e.into_fatal(function);
    let mut result = rc;
    for o in owed {
        let (what, index, mut args) = match o {
            Owed::Query(g, status) => ("query", g.query, [g.extra_state as i32, status as i32]),
            Owed::Free(g) => ("free", g.free, [g.extra_state as i32, 0]),
            Owed::Cancel(g) => ("cancel", g.cancel, [g.extra_state as i32, g.complete as i32]),
        };
        if index == 0 {
            continue;
        }
        // MPI_STATUS_IGNORE: the query function still gets a status to fill
        let scratch = match o {
            Owed::Query(_, 0) => Some(fns.alloc(store, abi::STATUS_SIZE as u32).map_err(fail)?),
            _ => None,
        };
        if let Some(s) = scratch {
            args[1] = s as i32;
        }
        let code = fns.call(store, index, &args).map_err(fail)?.unwrap_or(0);
        if let Some(s) = scratch {
            fns.release(store, s).map_err(fail)?;
        }
        if code != abi::c::MPI_SUCCESS && result == abi::c::MPI_SUCCESS {
            let e = MpiError::new(code, format!("the generalized request's {what} function returned {code}"));
            let outcome = call::on_error(unsafe { &(*data).bridge }, function, ErrorsOf::Comm(WORLD), e)?;
            result = call::finish(outcome, store, &fns, function)?;
        }
    }
    Ok(result)
}
