//! Completing requests: Wait/Test and their any/all/some forms, Start,
//! Request_free, Request_get_status. Generalized requests are completed
//! here too; their guest callbacks run after the call (`grequest::run_owed`).
//!
//! Guest request handles index the bridge's request table. A completed
//! non-persistent request is removed and the guest's handle overwritten with
//! MPI_REQUEST_NULL; a persistent one stays (inactive) until Request_free.
//! An inactive persistent request goes to the host's completion calls as
//! MPI_REQUEST_NULL (`RequestEntry::host_to_complete`), to Startall as
//! itself.
//! Arrays go through scratch vectors kept in the bridge (`Scratch`), so a
//! warm Waitall allocates nothing; a Waitall on a few requests keeps them on
//! the stack (`waitall_few`). A request may appear once in an array (the
//! host would complete, and free, it twice); MPI_REQUEST_NULL any number of
//! times.
use std::{cell::RefCell, mem::MaybeUninit};

use wasmer::FunctionEnvMut;

use super::{
    call::{call, call_owing, Ctx},
    errors::{Fatal, MpiError, MpiResult},
    grequest,
    state::{Bridge, RequestEntry},
    translate::invalid_request,
    MpiEnv,
};
use crate::{abi, guest_memory::GuestMemory, host_mpi, host_mpi::ffi};

const WORLD: i32 = abi::c::MPI_COMM_WORLD;
const NULL: i32 = abi::c::MPI_REQUEST_NULL;

/// The arrays of one completion call, kept by the bridge between calls:
/// the guest handles, their host requests, the host statuses. Boxed, and
/// taken from the bridge and given back as that one pointer: moving the
/// vectors themselves copied them with wide loads of words just stored one
/// by one, a store-forwarding stall that took more time than the rest of
/// `load` (about 40 % of it in a profile of a self-exchange).
#[derive(Default)]
pub struct Scratch {
    handles: Vec<i32>,
    hosts: host_mpi::HandleVec,
    statuses: host_mpi::StatusVec,
}

/// What a request array is loaded for: which host request an inactive
/// persistent one is.
#[derive(Clone, Copy, PartialEq)]
enum Purpose {
    /// A completion call: MPI_REQUEST_NULL (`RequestEntry::host_to_complete`).
    Complete,
    /// MPI_Startall: its own.
    Start,
}

/// Runs `f` on the request array at `ptr[0..n]` loaded into the bridge's
/// scratch (`load`), which goes back to the bridge whatever happens.
fn with_loaded<R>(cx: &mut Ctx, purpose: Purpose, ptr: u32, n: i32, f: impl FnOnce(&mut Ctx, &mut Scratch) -> MpiResult<R>) -> MpiResult<R> {
    let mut s = cx.bridge.request_scratch.take().unwrap_or_default();
    let result = load(cx.bridge, cx.mem.view(), &mut s, purpose, ptr, n).and_then(|()| f(cx, &mut s));
    cx.bridge.request_scratch = Some(s);
    result
}

/// `with_loaded` for the completion calls that take the bridge and the
/// memory instead of the context (call.rs).
fn loaded<R>(bridge: &mut Bridge, mem: &GuestMemory, ptr: u32, n: i32, f: impl FnOnce(&mut Bridge, &mut Scratch) -> MpiResult<R>) -> MpiResult<R> {
    let mut s = bridge.request_scratch.take().unwrap_or_default();
    let result = load(bridge, mem.view(), &mut s, Purpose::Complete, ptr, n).and_then(|()| f(bridge, &mut s));
    bridge.request_scratch = Some(s);
    result
}

/// The guest handles at `ptr[0..n]` and their host requests (null for
/// MPI_REQUEST_NULL); every handle valid and none twice.
fn load(bridge: &Bridge, mem: GuestMemory, s: &mut Scratch, purpose: Purpose, ptr: u32, n: i32) -> MpiResult {
    if n < 0 {
        return Err(MpiError::new(abi::c::MPI_ERR_COUNT, format!("negative count {n}")));
    }
    let base = mem.range(ptr, n as u64 * 4)? as *const i32;
    let Scratch { handles, hosts, .. } = s;
    handles.clear();
    handles.extend((0..n as usize).map(|i| unsafe { base.add(i).read_unaligned() }));
    hosts.clear();
    let loaded = hosts.extend_mapped(handles, |h| host_of(bridge, h, purpose)).map_err(|i| invalid_request(handles[i]));
    loaded.and_then(|()| distinct(handles))
}

/// The host request of guest request `h` (null for MPI_REQUEST_NULL, and
/// for an inactive persistent request in a completion call); `None` for an
/// invalid handle.
#[inline]
fn host_of(bridge: &Bridge, h: i32, purpose: Purpose) -> Option<ffi::MPI_Request> {
    match bridge.requests.get(h) {
        Some(e) if purpose == Purpose::Start => Some(e.host.0),
        Some(e) => Some(e.host_to_complete().0),
        None if h == NULL => Some(host_mpi::null_request().0),
        None => None,
    }
}

/// `host_of` one request for a completion call; an invalid handle is
/// MPI_ERR_REQUEST.
#[inline]
fn to_complete(bridge: &Bridge, h: i32) -> MpiResult<host_mpi::Request> {
    host_of(bridge, h, Purpose::Complete).map(host_mpi::Request).ok_or_else(|| invalid_request(h))
}

/// Up to this many handles are compared pairwise; longer arrays are sorted.
const PAIRWISE_MAX: usize = 16;

thread_local! {
    /// Sorted copy of a long request array (reused across calls).
    static SORTED: RefCell<Vec<i32>> = const { RefCell::new(Vec::new()) };
}

/// MPI_ERR_REQUEST if a request other than MPI_REQUEST_NULL appears twice.
fn distinct(handles: &[i32]) -> MpiResult {
    let twice = if handles.len() <= PAIRWISE_MAX {
        // index loops: `contains` set up a chunked search for every element
        // (56 instructions for two requests, callgrind)
        let mut twice = None;
        'outer: for i in 1..handles.len() {
            let h = handles[i];
            if h == NULL {
                continue;
            }
            for &earlier in &handles[..i] {
                if earlier == h {
                    twice = Some(h);
                    break 'outer;
                }
            }
        }
        twice
    } else {
        SORTED.with(|sorted| {
            let mut sorted = sorted.borrow_mut();
            sorted.clear();
            sorted.extend(handles.iter().copied().filter(|&h| h != NULL));
            sorted.sort_unstable();
            sorted.windows(2).find(|w| w[0] == w[1]).map(|w| w[0])
        })
    };
    match twice {
        None => Ok(()),
        Some(h) => Err(MpiError::new(abi::c::MPI_ERR_REQUEST, format!("request {h:#x} appears more than once in the array"))),
    }
}

/// After request `handle` (stored at guest `ptr`) completed: free it unless
/// it is persistent, and null the guest's handle. A generalized request's
/// query function will fill the guest status at `status` (0: ignored).
/// Takes the bridge and the guest memory, not the `Ctx` (call.rs). Every
/// request of every Wait comes here: a request with no extras, while no
/// communicator is closing, is dropped where it lies (passing it on, as
/// `retire` does, copied it twice), and this is inlined into each caller.
#[inline(always)]
fn completed(bridge: &mut Bridge, mem: &GuestMemory, ptr: u32, handle: i32, status: u32) -> MpiResult {
    let Some(e) = bridge.requests.get_mut(handle) else { return Ok(()) };
    if e.persistent {
        (e.active, e.cancelled) = (false, false);
        return Ok(());
    }
    if e.extra.is_some() || !bridge.closing.is_empty() {
        completed_rest(bridge, handle, status);
    } else {
        bridge.requests.remove(handle);
    }
    mem.write_i32(ptr, NULL)?;
    Ok(())
}

/// `completed` for a request with extras (a generalized request's
/// completion is owed to the guest) or while communicators are closing.
#[cold]
#[inline(never)]
fn completed_rest(bridge: &mut Bridge, handle: i32, status: u32) {
    if let Some(g) = bridge.requests.get_mut(handle).and_then(|e| e.extra.as_mut()).and_then(|x| x.grequest.take()) {
        bridge.owe_completion(g, status);
    }
    retire(bridge, handle);
}

/// Drops the entry of a completed request; an MPI_Comm_idup's guest
/// communicator handle then points at the new host communicator, and a
/// communicator the guest freed meanwhile may go (see `comm::close`).
/// Inlined: most requests carry no extras and no communicator is closing,
/// and then retiring is a table removal that needs no saved registers.
#[inline]
fn retire(bridge: &mut Bridge, handle: i32) {
    let Some(entry) = bridge.requests.remove(handle) else { return };
    if entry.extra.is_some() || !bridge.closing.is_empty() {
        retire_rest(bridge, entry);
    }
}

/// `retire` for a request with extras or while communicators are closing.
#[cold]
#[inline(never)]
fn retire_rest(bridge: &mut Bridge, entry: RequestEntry) {
    if let Some(dup) = entry.extra.and_then(|x| x.new_comm) {
        if let Some(c) = bridge.comms.get_mut(dup.guest) {
            *c = super::state::CommEntry::new(dup.host, c.errhandler);
        }
    }
    if bridge.closing.iter().any(|c| c.host.0 == entry.comm.0) {
        super::comm::sweep_closing(bridge);
    }
}

/// After a completion call the host failed: the requests it freed are gone
/// here too, as natively. The host nulls the handle of each request it
/// freed: a nonblocking one that completed with an error, and on Open MPI
/// 4.1 a persistent one too (its error handler frees every request that
/// completed with an error). Keeping their entries left the guest a handle
/// to freed host memory: a second MPI_Wait on it, which natively finds
/// MPI_REQUEST_NULL, aborted the host (Open MPI freed its communicator
/// reference twice, `free(): invalid pointer`; MPICH: internal error).
/// Runs before anything deactivates a request: an inactive persistent
/// request went to the host as null (`host_of`), and was not freed.
#[cold]
#[inline(never)]
fn forget_freed(bridge: &mut Bridge, mem: GuestMemory, requests: u32, handles: &[i32], host_after: impl Fn(usize) -> ffi::MPI_Request, statuses: u32) -> MpiResult {
    for (i, &h) in handles.iter().enumerate() {
        if h == NULL || !host_mpi::is_null_request(host_mpi::Request(host_after(i))) {
            continue;
        }
        let ptr = requests + 4 * i as u32;
        let Some(e) = bridge.requests.get(h) else { continue };
        if e.persistent {
            if !e.active {
                continue;
            }
            retire(bridge, h);
            mem.write_i32(ptr, NULL)?;
        } else {
            completed(bridge, &mem, ptr, h, status_slot(statuses, i))?;
        }
    }
    Ok(())
}

/// MPI_Wait or MPI_Test on request `h` (at guest `ptr`) failed with `rc`,
/// the host's request now `r`: one the host freed is forgotten, a
/// persistent one it kept is inactive if it completed (`done`); the status
/// is the host's.
#[cold]
#[inline(never)]
#[allow(clippy::too_many_arguments)]
fn failed_one(bridge: &mut Bridge, mem: GuestMemory, ptr: u32, h: i32, r: host_mpi::Request, done: bool, status: u32, st: &host_mpi::Status, rc: i32) -> MpiResult {
    forget_freed(bridge, mem.view(), ptr, &[h], |_| r.0, 0)?;
    if done {
        deactivate(bridge, h);
        super::status::write_status(bridge, mem, status, st)?;
    }
    bridge.check(rc)
}

/// Waits for an MPI_Comm_idup request on the host and installs its
/// communicator (the host writes it into the entry, so the entry may not go
/// before the host is done with it).
fn finish_idup(cx: &mut Ctx, handle: i32) -> MpiResult {
    let mut r = cx.request(handle)?;
    let mut st = host_mpi::empty_status();
    cx.host(unsafe { ffi::MPI_Wait(&mut r.0, &mut st) })?;
    retire(cx.bridge, handle);
    Ok(())
}

/// At MPI_Finalize: completes every MPI_Comm_idup the guest never waited
/// for. Finalizing with pending requests is erroneous, but the host MPI
/// crashes on a pending communicator duplication (intermittently), and
/// completing it is what the guest would have had to do anyway: every rank
/// posted it and every rank reaches MPI_Finalize. Other pending requests
/// are left to the host MPI, as for a native program; what they reference
/// (guest memory, host arrays on the entry) stays valid until exit.
pub fn complete_pending_idups(cx: &mut Ctx) -> MpiResult {
    let requests = &cx.bridge.requests;
    let pending: Vec<i32> = requests.user_handles().filter(|&h| requests.get(h).is_some_and(|e| e.is_idup())).collect();
    pending.into_iter().try_for_each(|h| finish_idup(cx, h))
}

/// Completes on the host, now, every pending request `pick` selects,
/// before a call that frees what the host's requests still use (an
/// erroneous program's: a buffer detached or a file closed with its
/// operations pending; the hosts read freed memory then). The guest's
/// handles stay; their host request is then MPI_REQUEST_NULL, which the
/// guest's test or wait completes at once with an empty status.
pub fn complete_on_host(cx: &mut Ctx, pick: impl Fn(&RequestEntry) -> bool) -> MpiResult {
    let requests = &cx.bridge.requests;
    let pending: Vec<i32> = requests.user_handles().filter(|&h| requests.get(h).is_some_and(|e| !host_mpi::is_null_request(e.host) && pick(e))).collect();
    for handle in pending {
        let mut request = cx.request(handle)?;
        let mut status = host_mpi::empty_status();
        cx.host(unsafe { ffi::MPI_Wait(&mut request.0, &mut status) })?;
        if let Some(entry) = cx.bridge.requests.get_mut(handle) {
            entry.host = request;
        }
    }
    Ok(())
}

/// A host index (MPI_UNDEFINED when nothing was active) for the guest.
fn index_out(bridge: &Bridge, index: i32) -> i32 {
    if index == bridge.specials.undefined { abi::c::MPI_UNDEFINED } else { index }
}

/// Writes statuses[0..n] (unless MPI_STATUSES_IGNORE) from the host's
/// (`status(i)`: host status `i`).
fn write_statuses(bridge: &Bridge, mem: &GuestMemory, ptr: u32, status: impl Fn(usize) -> host_mpi::Status, n: usize) -> MpiResult {
    if ptr == abi::c::MPI_STATUSES_IGNORE as u32 {
        return Ok(());
    }
    for i in 0..n {
        super::status::write_status_of_many(bridge, mem.view(), ptr + (i * abi::STATUS_SIZE) as u32, &status(i))?;
    }
    Ok(())
}

fn check_statuses_ptr(mem: &GuestMemory, ptr: u32, n: i32) -> MpiResult {
    if ptr != abi::c::MPI_STATUSES_IGNORE as u32 {
        mem.range(ptr, n.max(0) as u64 * abi::STATUS_SIZE as u64)?;
    }
    Ok(())
}

#[inline]
pub fn wait(mut env: FunctionEnvMut<MpiEnv>, request: u32, status: u32) -> Result<i32, Fatal> {
    call_owing(&mut env, "MPI_Wait", WORLD, |cx| {
        let h = cx.mem.read_i32(request)?;
        let mut r = to_complete(cx.bridge, h)?;
        cx.check_status_ptr(status)?;
        cx.bridge.check_can_complete(&[h], true)?;
        let mut st = host_mpi::empty_status();
        let rc = unsafe { ffi::MPI_Wait(&mut r.0, &mut st) };
        if rc != host_mpi::SUCCESS {
            return failed_one(cx.bridge, cx.mem.view(), request, h, r, true, status, &st, rc);
        }
        completed(cx.bridge, &cx.mem, request, h, status)?;
        cx.write_status(status, &st)
    })
}

#[inline]
pub fn test(mut env: FunctionEnvMut<MpiEnv>, request: u32, flag: u32, status: u32) -> Result<i32, Fatal> {
    call_owing(&mut env, "MPI_Test", WORLD, |cx| {
        let h = cx.mem.read_i32(request)?;
        let mut r = to_complete(cx.bridge, h)?;
        cx.mem.range(flag, 4)?;
        cx.check_status_ptr(status)?;
        let (mut f, mut st) = (0, host_mpi::empty_status());
        let rc = unsafe { ffi::MPI_Test(&mut r.0, &mut f, &mut st) };
        cx.mem.write_i32(flag, f)?;
        if rc != host_mpi::SUCCESS {
            return failed_one(cx.bridge, cx.mem.view(), request, h, r, f != 0, status, &st, rc);
        }
        if f != 0 {
            completed(cx.bridge, &cx.mem, request, h, status)?;
            cx.write_status(status, &st)?;
        }
        Ok(())
    })
}

#[inline]
pub fn request_get_status(mut env: FunctionEnvMut<MpiEnv>, request: i32, flag: u32, status: u32) -> Result<i32, Fatal> {
    call_owing(&mut env, "MPI_Request_get_status", WORLD, |cx| {
        let r = to_complete(cx.bridge, request)?;
        cx.mem.range(flag, 4)?;
        cx.check_status_ptr(status)?;
        let (mut f, mut st) = (0, host_mpi::empty_status());
        cx.host(unsafe { ffi::MPI_Request_get_status(r.0, &mut f, &mut st) })?;
        cx.mem.write_i32(flag, f)?;
        if f != 0 {
            cx.write_status(status, &st)?;
            // the query function reports the status; the request stays
            if let Some(g) = cx.bridge.requests.get(request).and_then(|e| e.grequest()) {
                cx.bridge.grequests_owed.push(grequest::Owed::Query(g, status));
            }
        }
        Ok(())
    })
}

/// MPI-4.1's array forms of MPI_Request_get_status, made of it (every host
/// has it): nothing completes, nothing is freed; a generalized request's
/// query function reports each status that is written.
#[inline]
pub fn request_get_status_all(mut env: FunctionEnvMut<MpiEnv>, count: i32, requests: u32, flag: u32, statuses: u32) -> Result<i32, Fatal> {
    call_owing(&mut env, "MPI_Request_get_status_all", WORLD, |cx| {
        cx.mem.range(flag, 4)?;
        check_statuses_ptr(&cx.mem, statuses, count)?;
        let done = peek(cx, requests, count)?;
        let all = done.iter().all(|d| d.is_some());
        if all {
            for (i, d) in done.iter().enumerate() {
                write_peeked(cx, requests, i, d.as_ref(), status_slot(statuses, i))?;
            }
        }
        Ok(cx.mem.write_i32(flag, all as i32)?)
    })
}

#[inline]
pub fn request_get_status_any(mut env: FunctionEnvMut<MpiEnv>, count: i32, requests: u32, index: u32, flag: u32, status: u32) -> Result<i32, Fatal> {
    call_owing(&mut env, "MPI_Request_get_status_any", WORLD, |cx| {
        cx.mem.range(index, 4)?;
        cx.mem.range(flag, 4)?;
        cx.check_status_ptr(status)?;
        let done = peek(cx, requests, count)?;
        let active: Vec<usize> = (0..done.len()).filter(|&i| is_active(cx, requests, i)).collect();
        let first = active.iter().copied().find(|&i| done[i].is_some());
        let (idx, f) = match first {
            Some(i) => {
                write_peeked(cx, requests, i, done[i].as_ref(), status)?;
                (i as i32, 1)
            }
            None if active.is_empty() => (abi::c::MPI_UNDEFINED, 1),
            None => (abi::c::MPI_UNDEFINED, 0),
        };
        cx.mem.write_i32(index, idx)?;
        Ok(cx.mem.write_i32(flag, f)?)
    })
}

#[inline]
pub fn request_get_status_some(mut env: FunctionEnvMut<MpiEnv>, incount: i32, requests: u32, outcount: u32, indices: u32, statuses: u32) -> Result<i32, Fatal> {
    call_owing(&mut env, "MPI_Request_get_status_some", WORLD, |cx| {
        cx.mem.range(outcount, 4)?;
        cx.int_array_out(indices, incount.max(0) as i64)?;
        check_statuses_ptr(&cx.mem, statuses, incount)?;
        let done = peek(cx, requests, incount)?;
        let active: Vec<usize> = (0..done.len()).filter(|&i| is_active(cx, requests, i)).collect();
        if active.is_empty() {
            return Ok(cx.mem.write_i32(outcount, abi::c::MPI_UNDEFINED)?);
        }
        let mut out = 0;
        for i in active.into_iter().filter(|&i| done[i].is_some()) {
            cx.mem.write_i32(indices + 4 * out as u32, i as i32)?;
            write_peeked(cx, requests, i, done[i].as_ref(), status_slot(statuses, out))?;
            out += 1;
        }
        Ok(cx.mem.write_i32(outcount, out as i32)?)
    })
}

/// Each request's status if it is complete (MPI_Request_get_status on the host).
fn peek(cx: &mut Ctx, requests: u32, count: i32) -> MpiResult<Vec<Option<host_mpi::Status>>> {
    with_loaded(cx, Purpose::Complete, requests, count, |cx, s| {
        let mut done = Vec::with_capacity(s.handles.len());
        for i in 0..s.handles.len() {
            let (mut f, mut st) = (0, host_mpi::empty_status());
            cx.host(unsafe { ffi::MPI_Request_get_status(s.hosts.get(i), &mut f, &mut st) })?;
            done.push((f != 0).then_some(st));
        }
        Ok(done)
    })
}

/// Request `i` of the array is active: not null, not an inactive persistent one.
fn is_active(cx: &Ctx, requests: u32, i: usize) -> bool {
    let h = cx.mem.read_i32(requests + 4 * i as u32).unwrap_or(NULL);
    h != NULL && cx.bridge.requests.get(h).is_some_and(|e| e.active)
}

fn write_peeked(cx: &mut Ctx, requests: u32, i: usize, st: Option<&host_mpi::Status>, status: u32) -> MpiResult {
    let Some(st) = st else { return Ok(()) };
    if status != 0 {
        cx.write_status(status, st)?;
    }
    let h = cx.mem.read_i32(requests + 4 * i as u32)?;
    if let Some(g) = cx.bridge.requests.get(h).and_then(|e| e.grequest()) {
        cx.bridge.grequests_owed.push(grequest::Owed::Query(g, status));
    }
    Ok(())
}

#[inline]
pub fn request_free(mut env: FunctionEnvMut<MpiEnv>, request: u32) -> Result<i32, Fatal> {
    call_owing(&mut env, "MPI_Request_free", WORLD, |cx| {
        let h = cx.mem.read_i32(request)?;
        let mut r = cx.request(h)?;
        let entry = cx.bridge.requests.get(h);
        if entry.is_some_and(|e| e.is_idup()) {
            // the host writes the new communicator into the entry when it
            // completes: wait for that rather than free the entry under it
            finish_idup(cx, h)?;
        } else if entry.is_some_and(|e| e.collective() && (!e.persistent || e.active)) {
            // an inactive persistent collective may be freed (MPI-4.0 6.13)
            return Err(not_for_collectives("MPI_Request_free"));
        } else if entry.is_some_and(|e| e.grequest().is_some()) {
            cx.host(unsafe { ffi::MPI_Request_free(&mut r.0) })?;
            grequest::free(cx.bridge, h);
        } else {
            // null: a flush the bridge completed at its buffer's detach
            if !host_mpi::is_null_request(r) {
                cx.host(unsafe { ffi::MPI_Request_free(&mut r.0) })?;
            }
            cx.bridge.requests.remove(h);
        }
        Ok(cx.mem.write_i32(request, NULL)?)
    })
}

#[inline]
pub fn start(mut env: FunctionEnvMut<MpiEnv>, request: u32) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Start", WORLD, |cx| {
        let h = cx.mem.read_i32(request)?;
        let mut r = cx.request(h)?;
        startable(cx, &[h])?;
        cx.host(unsafe { ffi::MPI_Start(&mut r.0) })?;
        set_active(cx, &[h]);
        Ok(())
    })
}

#[inline]
pub fn startall(mut env: FunctionEnvMut<MpiEnv>, count: i32, requests: u32) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Startall", WORLD, |cx| {
        with_loaded(cx, Purpose::Start, requests, count, |cx, s| {
            startable(cx, &s.handles)?;
            let rc = unsafe { ffi::MPI_Startall(count, s.hosts.as_mut_ptr()) };
            if rc == host_mpi::SUCCESS {
                set_active(cx, &s.handles);
            }
            cx.host(rc)
        })
    })
}

/// Only an inactive persistent request may be started: Open MPI 4.1 posts
/// an active persistent receive a second time, which corrupts its matching
/// queue (a crash at the next MPI_Cancel; found by the MPI-call fuzzer).
fn startable(cx: &Ctx, handles: &[i32]) -> MpiResult {
    for &h in handles {
        match cx.bridge.requests.get(h) {
            Some(e) if !e.persistent => {
                return Err(MpiError::new(abi::c::MPI_ERR_REQUEST, format!("request {h:#x} is not persistent: nothing to start")))
            }
            Some(e) if e.active => {
                return Err(MpiError::new(abi::c::MPI_ERR_REQUEST, format!("request {h:#x} is active: complete it before starting it again")))
            }
            _ => {}
        }
    }
    Ok(())
}

fn set_active(cx: &mut Ctx, handles: &[i32]) {
    for &h in handles {
        if let Some(e) = cx.bridge.requests.get_mut(h) {
            e.active = true;
        }
    }
}

/// There must be an operation to cancel: MPICH refuses an inactive
/// persistent request, Open MPI 4.1 crashes on a receive never started
/// (natively too). A nonblocking collective cannot be cancelled. A second
/// cancel of the same operation changes nothing and is not passed on: Open
/// MPI unlinks the receive from its matching queue again (a crash).
#[inline]
pub fn cancel(mut env: FunctionEnvMut<MpiEnv>, request: u32) -> Result<i32, Fatal> {
    call_owing(&mut env, "MPI_Cancel", WORLD, |cx| {
        let h = cx.mem.read_i32(request)?;
        let mut r = cx.request(h)?;
        if grequest::cancel(cx.bridge, h) {
            return Ok(()); // the guest's cancel_fn decides (run below)
        }
        match cx.bridge.requests.get(h) {
            Some(e) if !e.active => Err(MpiError::new(abi::c::MPI_ERR_REQUEST, "an inactive persistent request has nothing to cancel")),
            Some(e) if e.collective() => Err(not_for_collectives("MPI_Cancel")),
            Some(e) if e.cancelled => Ok(()),
            // a flush the bridge completed at its buffer's detach
            _ if host_mpi::is_null_request(r) => Ok(()),
            _ => {
                cx.host(unsafe { ffi::MPI_Cancel(&mut r.0) })?;
                if let Some(e) = cx.bridge.requests.get_mut(h) {
                    e.cancelled = true;
                }
                Ok(())
            }
        }
    })
}

/// MPI-3.1 section 5.12: MPI_Request_free and MPI_Cancel are erroneous on
/// the request of a nonblocking collective (Open MPI would free the
/// schedule that is still running).
fn not_for_collectives(function: &str) -> MpiError {
    MpiError::new(abi::c::MPI_ERR_REQUEST, format!("{function} cannot take the request of a nonblocking collective"))
}

/// The guest status for slot `i` of a status array (0: ignored).
fn status_slot(statuses: u32, i: usize) -> u32 {
    if statuses == abi::c::MPI_STATUSES_IGNORE as u32 { 0 } else { statuses + (i * abi::STATUS_SIZE) as u32 }
}

/// After Waitall/Testall: completes the requests `done` selects and writes
/// all statuses.
fn finish_all(
    bridge: &mut Bridge,
    mem: &GuestMemory,
    requests: u32,
    handles: &[i32],
    done: impl Fn(usize) -> bool,
    statuses: u32,
    status: impl Fn(usize) -> host_mpi::Status,
) -> MpiResult {
    complete_done(bridge, mem, requests, handles, done, statuses)?;
    write_statuses(bridge, mem, statuses, status, handles.len())
}

/// Completes the requests of `handles` (at guest `requests`) that `done`
/// selects; a generalized request's status goes to its slot of `statuses`.
#[inline]
fn complete_done(bridge: &mut Bridge, mem: &GuestMemory, requests: u32, handles: &[i32], done: impl Fn(usize) -> bool, statuses: u32) -> MpiResult {
    for (i, &h) in handles.iter().enumerate() {
        if done(i) {
            completed(bridge, mem, requests + 4 * i as u32, h, status_slot(statuses, i))?;
        }
    }
    Ok(())
}

#[inline]
pub fn waitall(mut env: FunctionEnvMut<MpiEnv>, count: i32, requests: u32, statuses: u32) -> Result<i32, Fatal> {
    call_owing(&mut env, "MPI_Waitall", WORLD, |cx| {
        // the bridge and a view of the memory, not the context (call.rs)
        if (0..=FEW as i32).contains(&count) {
            return waitall_few(cx.bridge, cx.mem.view(), count as usize, requests, statuses);
        }
        waitall_many(cx.bridge, cx.mem.view(), count, requests, statuses)
    })
}

/// MPI_Waitall on more than `FEW` requests (or a negative count), through
/// the bridge's scratch arrays.
#[inline(never)]
fn waitall_many(bridge: &mut Bridge, mem: GuestMemory, count: i32, requests: u32, statuses: u32) -> MpiResult {
    loaded(bridge, &mem, requests, count, |bridge, s| {
        check_statuses_ptr(&mem, statuses, count)?;
        bridge.check_can_complete(&s.handles, true)?;
        let Scratch { handles, hosts, statuses: st } = s;
        st.reset(count as usize);
        let rc = unsafe { ffi::MPI_Waitall(count, hosts.as_mut_ptr(), st.as_mut_ptr()) };
        if rc == host_mpi::SUCCESS {
            return finish_all(bridge, &mem, requests, handles, |_| true, statuses, |i| st.get(i));
        }
        let finish = |bridge: &mut Bridge| finish_all(bridge, &mem, requests, handles, |i| host_mpi::is_null_request(host_mpi::Request(hosts.get(i))), statuses, |i| st.get(i));
        all_failed(bridge, mem.view(), requests, handles, |i| hosts.get(i), statuses, finish, rc)
    })
}

/// MPI_Waitall/Testall failed with `rc` (MPI_ERR_IN_STATUS): only some
/// requests completed, and the host nulled those. First a persistent one
/// among them the host freed goes (`forget_freed`, which must see which
/// persistent requests were active before the call); then `finish`
/// completes the nulled ones and writes the statuses; then a persistent
/// one the host kept completed unless its status says MPI_ERR_PENDING
/// (these calls fail only once every request completed, bar those), so
/// the bridge lets it start again and the host decides, as natively (MPICH
/// 5.0 refuses after MPI_Testall; asking the host with
/// MPI_Request_get_status would have made it inactive there).
#[cold]
#[inline(never)]
#[allow(clippy::too_many_arguments)]
fn all_failed(
    bridge: &mut Bridge,
    mem: GuestMemory,
    requests: u32,
    handles: &[i32],
    host_after: impl Fn(usize) -> ffi::MPI_Request,
    statuses: u32,
    finish: impl FnOnce(&mut Bridge) -> MpiResult,
    rc: i32,
) -> MpiResult {
    forget_freed(bridge, mem.view(), requests, handles, host_after, statuses)?;
    finish(bridge)?;
    for (i, &h) in handles.iter().enumerate() {
        let slot = status_slot(statuses, i);
        if slot == 0 || mem.read_i32(slot + abi::STATUS_ERROR as u32)? != abi::c::MPI_ERR_PENDING {
            deactivate(bridge, h);
        }
    }
    bridge.check(rc)
}

/// Persistent request `h` completed: inactive until started again.
fn deactivate(bridge: &mut Bridge, h: i32) {
    if let Some(e) = bridge.requests.get_mut(h).filter(|e| e.persistent) {
        (e.active, e.cancelled) = (false, false);
    }
}

/// Up to this many requests MPI_Waitall keeps its arrays on the stack:
/// a halo exchange waits for a handful at a time, and the scratch vectors'
/// bookkeeping cost more than the lookups themselves.
const FEW: usize = 4;

/// MPI_Waitall on `n <= FEW` requests: the checks and their order of the
/// general path (`load`, then the statuses, then generalized requests).
fn waitall_few(bridge: &mut Bridge, mem: GuestMemory, n: usize, requests: u32, statuses: u32) -> MpiResult {
    let guest = mem.range(requests, n as u64 * 4)? as *const i32;
    let mut handles = [NULL; FEW];
    let mut hosts = host_mpi::HandleArray::<FEW>::new();
    for i in 0..n {
        // Safety: `range` checked the n handles
        let h = unsafe { guest.add(i).read_unaligned() };
        handles[i] = h;
        hosts.set(i, to_complete(bridge, h)?.0);
    }
    let handles = &handles[..n];
    distinct(handles)?;
    check_statuses_ptr(&mem, statuses, n as i32)?;
    bridge.check_can_complete(handles, true)?;
    // Statuses the guest ignores are ignored on the host too: no array to
    // clear, none for the host to fill.
    let ignored = statuses == abi::c::MPI_STATUSES_IGNORE as u32;
    let mut st = MaybeUninit::<[u64; FEW * host_mpi::MAX_STATUS / 8]>::uninit();
    let host_statuses = if ignored { bridge.statuses_ignore as *mut host_mpi::Status } else { st.write([0; FEW * host_mpi::MAX_STATUS / 8]).as_mut_ptr() as *mut host_mpi::Status };
    let rc = unsafe { ffi::MPI_Waitall(n as i32, hosts.as_mut_ptr(), host_statuses) };
    // as in `waitall_many`
    // Safety: written by the host unless ignored
    let written = (!ignored).then(|| unsafe { &st.assume_init_ref()[..] });
    if rc == host_mpi::SUCCESS {
        return finish_few(bridge, &mem, requests, handles, |_| true, statuses, written);
    }
    // out of line, as in `any_failed`
    let finish = |bridge: &mut Bridge| finish_few(bridge, &mem, requests, handles, |i| host_mpi::is_null_request(host_mpi::Request(hosts.get(i))), statuses, written);
    all_failed(bridge, mem.view(), requests, handles, |i| hosts.get(i), statuses, finish, rc)
}

/// The end of `waitall_few`: completes the requests `done` selects and
/// writes the host's statuses (`written`, unless ignored). Inlined: as a
/// closure it was a call of its own, 150 instructions more per exchange.
#[inline(always)]
fn finish_few(bridge: &mut Bridge, mem: &GuestMemory, requests: u32, handles: &[i32], done: impl Fn(usize) -> bool, statuses: u32, written: Option<&[u64]>) -> MpiResult {
    complete_done(bridge, mem, requests, handles, done, statuses)?;
    let Some(st) = written else { return Ok(()) };
    let stride = host_mpi::constants().status.size;
    write_statuses(bridge, mem, statuses, |i| host_mpi::status_in(st, stride, i), handles.len())
}

#[inline]
pub fn testall(mut env: FunctionEnvMut<MpiEnv>, count: i32, requests: u32, flag: u32, statuses: u32) -> Result<i32, Fatal> {
    call_owing(&mut env, "MPI_Testall", WORLD, |cx| {
        with_loaded(cx, Purpose::Complete, requests, count, |cx, s| {
            cx.mem.range(flag, 4)?;
            check_statuses_ptr(&cx.mem, statuses, count)?;
            let Scratch { handles, hosts, statuses: st } = s;
            st.reset(count as usize);
            let mut f = 0;
            let mut rc = unsafe { ffi::MPI_Testall(count, hosts.as_mut_ptr(), &mut f, st.as_mut_ptr()) };
            if rc != host_mpi::SUCCESS && f != 0 && no_error_in_status(cx.bridge, handles, rc, |i| st.get(i)) {
                rc = host_mpi::SUCCESS;
            }
            let written = cx.mem.write_i32(flag, f).map_err(MpiError::from);
            if rc != host_mpi::SUCCESS {
                // as MPI_Waitall's: the statuses tell which failed
                let mem = cx.mem.view();
                let finish = |bridge: &mut Bridge| {
                    written?;
                    finish_all(bridge, &mem, requests, handles, |i| host_mpi::is_null_request(host_mpi::Request(hosts.get(i))), statuses, |i| st.get(i))
                };
                return all_failed(cx.bridge, cx.mem.view(), requests, handles, |i| hosts.get(i), statuses, finish, rc);
            }
            written?;
            if f != 0 {
                finish_all(cx.bridge, &cx.mem, requests, handles, |_| true, statuses, |i| st.get(i))?;
            }
            Ok(())
        })
    })
}

/// MPI_ERR_IN_STATUS from a call that completed every request, with no
/// request's status saying what failed: MPICH 4.0 and 5.0 return that from
/// every MPI_Testall that completes a persistent collective (natively too),
/// so a program polling one with MPI_Testall failed on MPICH alone. Such a
/// call succeeded. A request the host got as null has a status it need not
/// write (MPICH leaves its MPI_ERROR as it was).
#[cold]
#[inline(never)]
fn no_error_in_status(bridge: &Bridge, handles: &[i32], rc: i32, status: impl Fn(usize) -> host_mpi::Status) -> bool {
    let Some(map) = bridge.status.as_ref() else { return false };
    bridge.guest_error_class(rc) == abi::c::MPI_ERR_IN_STATUS
        && handles.iter().enumerate().all(|(i, &h)| {
            host_of(bridge, h, Purpose::Complete).is_none_or(|r| host_mpi::is_null_request(host_mpi::Request(r)))
                || map.public_of(&status(i)).error == host_mpi::SUCCESS
        })
}

#[inline]
pub fn waitany(mut env: FunctionEnvMut<MpiEnv>, count: i32, requests: u32, index: u32, status: u32) -> Result<i32, Fatal> {
    call_owing(&mut env, "MPI_Waitany", WORLD, |cx| any(cx, count, requests, index, None, status, true))
}

#[inline]
pub fn testany(mut env: FunctionEnvMut<MpiEnv>, count: i32, requests: u32, index: u32, flag: u32, status: u32) -> Result<i32, Fatal> {
    call_owing(&mut env, "MPI_Testany", WORLD, |cx| any(cx, count, requests, index, Some(flag), status, false))
}

#[inline(always)]
fn any(cx: &mut Ctx, count: i32, requests: u32, index: u32, flag: Option<u32>, status: u32, wait: bool) -> MpiResult {
    // One request (HPCC's MPIRandomAccess polls MPI_Testany(1, ...) once per
    // update): no scratch arrays, no duplicate check. The context stays in
    // registers: what follows takes the bridge and the memory (call.rs).
    if count != 1 {
        return any_of_many(cx.bridge, cx.mem.view(), count, requests, index, flag, status, wait);
    }
    let h = cx.mem.read_i32(requests)?;
    let mut host = [to_complete(cx.bridge, h)?.0];
    any_arguments(cx.bridge, &cx.mem, &[h], index, flag, status, wait)?;
    let mut st = host_mpi::empty_status();
    let done = host_any(1, host.as_mut_ptr(), wait, &mut st);
    if done.0 != host_mpi::SUCCESS {
        // `any_done` writes what a failed call does, then `any_failed`
        let result = any_done(cx.bridge, &cx.mem, done, &st, requests, &[h], index, flag, status);
        return any_failed(cx.bridge, cx.mem.view(), requests, &[h], |_| host[0], done, result);
    }
    any_done(cx.bridge, &cx.mem, done, &st, requests, &[h], index, flag, status)
}

/// `any` on an array of requests other than one.
#[inline(never)]
fn any_of_many(bridge: &mut Bridge, mem: GuestMemory, count: i32, requests: u32, index: u32, flag: Option<u32>, status: u32, wait: bool) -> MpiResult {
    loaded(bridge, &mem, requests, count, |bridge, s| {
        let Scratch { handles, hosts, .. } = s;
        any_arguments(bridge, &mem, handles, index, flag, status, wait)?;
        let mut st = host_mpi::empty_status();
        let done = host_any(count, hosts.as_mut_ptr(), wait, &mut st);
        if done.0 != host_mpi::SUCCESS {
            let result = any_done(bridge, &mem, done, &st, requests, handles, index, flag, status);
            return any_failed(bridge, mem.view(), requests, handles, |i| hosts.get(i), done, result);
        }
        any_done(bridge, &mem, done, &st, requests, handles, index, flag, status)
    })
}

/// The output arguments of MPI_Testany/Waitany, checked before the host
/// call; and for Waitany, that the requests can complete at all.
#[inline(always)]
fn any_arguments(bridge: &Bridge, mem: &GuestMemory, handles: &[i32], index: u32, flag: Option<u32>, status: u32, wait: bool) -> MpiResult {
    mem.range(index, 4)?;
    if let Some(f) = flag {
        mem.range(f, 4)?;
    }
    super::status::check_status_ptr(mem, status)?;
    if wait {
        bridge.check_can_complete(handles, false)?;
    }
    Ok(())
}

/// What the host's MPI_Testany/Waitany returned: (rc, index, flag), and
/// the status in `st` (left where it is: most polls complete nothing, and
/// moving it cost a reload of what the host had just stored).
#[inline(always)]
fn host_any(count: i32, hosts: *mut ffi::MPI_Request, wait: bool, st: &mut host_mpi::Status) -> (i32, i32, i32) {
    let (mut idx, mut f) = (0, 1);
    let rc = unsafe {
        if wait {
            ffi::MPI_Waitany(count, hosts, &mut idx, st)
        } else {
            ffi::MPI_Testany(count, hosts, &mut idx, &mut f, st)
        }
    };
    (rc, idx, f)
}

/// MPI_Testany/Waitany failed on request `idx` (`any_done` wrote the
/// index, flag and status as natively and made `result`): the requests
/// the host freed go (`forget_freed`) and a persistent one it kept is
/// inactive. Apart from `any_done`, whose inlined success path then keeps
/// fewer values across the host call.
#[cold]
#[inline(never)]
fn any_failed(bridge: &mut Bridge, mem: GuestMemory, requests: u32, handles: &[i32], host_after: impl Fn(usize) -> ffi::MPI_Request, (_, idx, f): (i32, i32, i32), result: MpiResult) -> MpiResult {
    forget_freed(bridge, mem, requests, handles, host_after, 0)?;
    let idx = index_out(bridge, idx);
    if f != 0 && (0..handles.len() as i32).contains(&idx) {
        deactivate(bridge, handles[idx as usize]);
    }
    result
}

/// Writes MPI_Testany/Waitany's results and frees the completed request
/// (on an error, natively too, the index, flag and status are written).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn any_done(bridge: &mut Bridge, mem: &GuestMemory, (rc, idx, f): (i32, i32, i32), st: &host_mpi::Status, requests: u32, handles: &[i32], index: u32, flag: Option<u32>, status: u32) -> MpiResult {
    let idx = index_out(bridge, idx);
    mem.write_i32(index, idx)?;
    if let Some(p) = flag {
        mem.write_i32(p, f)?;
    }
    if rc != host_mpi::SUCCESS {
        // the failed request's status; `any_failed` does the rest
        if f != 0 {
            super::status::write_status(bridge, mem.view(), status, st)?;
        }
        return bridge.check(rc);
    }
    if f != 0 {
        if idx != abi::c::MPI_UNDEFINED {
            completed(bridge, mem, requests + 4 * idx as u32, handles[idx as usize], status)?;
        }
        super::status::write_status(bridge, mem.view(), status, st)?;
    }
    Ok(())
}

#[inline]
pub fn waitsome(mut env: FunctionEnvMut<MpiEnv>, incount: i32, requests: u32, outcount: u32, indices: u32, statuses: u32) -> Result<i32, Fatal> {
    call_owing(&mut env, "MPI_Waitsome", WORLD, |cx| some(cx, incount, requests, outcount, indices, statuses, true))
}

#[inline]
pub fn testsome(mut env: FunctionEnvMut<MpiEnv>, incount: i32, requests: u32, outcount: u32, indices: u32, statuses: u32) -> Result<i32, Fatal> {
    call_owing(&mut env, "MPI_Testsome", WORLD, |cx| some(cx, incount, requests, outcount, indices, statuses, false))
}

fn some(cx: &mut Ctx, incount: i32, requests: u32, outcount: u32, indices: u32, statuses: u32, wait: bool) -> MpiResult {
    with_loaded(cx, Purpose::Complete, requests, incount, |cx, s| {
        cx.mem.range(outcount, 4)?;
        check_statuses_ptr(&cx.mem, statuses, incount)?;
        if wait {
            cx.bridge.check_can_complete(&s.handles, false)?;
        }
        // the host writes the completed indices straight into the guest array
        let idx = cx.int_array_out(indices, incount as i64)?;
        let Scratch { handles, hosts, statuses: st } = s;
        st.reset(incount as usize);
        let mut out = 0;
        let rc = unsafe {
            if wait {
                ffi::MPI_Waitsome(incount, hosts.as_mut_ptr(), &mut out, idx, st.as_mut_ptr())
            } else {
                ffi::MPI_Testsome(incount, hosts.as_mut_ptr(), &mut out, idx, st.as_mut_ptr())
            }
        };
        if rc != host_mpi::SUCCESS {
            return some_failed(cx.bridge, cx.mem.view(), rc, out, idx, requests, handles, |i| hosts.get(i), outcount, statuses, |i| st.get(i));
        }
        let out = index_out(cx.bridge, out);
        cx.mem.write_i32(outcount, out)?;
        for slot in 0..out.max(0) as usize {
            let i = unsafe { idx.add(slot).read_unaligned() } as usize;
            if i >= handles.len() {
                return Err(MpiError::new(abi::c::MPI_ERR_INTERN, "host returned an index out of range"));
            }
            completed(cx.bridge, &cx.mem, requests + 4 * i as u32, handles[i], status_slot(statuses, slot))?;
        }
        write_statuses(cx.bridge, &cx.mem, statuses, |i| st.get(i), out.max(0) as usize)
    })
}

/// MPI_Waitsome/Testsome failed with `rc` (MPI_ERR_IN_STATUS): the count,
/// the indices (the host wrote them into the guest's array) and the
/// statuses that tell which request failed are the guest's as natively;
/// the requests the host freed go (`forget_freed`), and a persistent one
/// it reported and kept is inactive.
#[cold]
#[inline(never)]
#[allow(clippy::too_many_arguments)]
fn some_failed(
    bridge: &mut Bridge,
    mem: GuestMemory,
    rc: i32,
    out: i32,
    idx: *const i32,
    requests: u32,
    handles: &[i32],
    host_after: impl Fn(usize) -> ffi::MPI_Request,
    outcount: u32,
    statuses: u32,
    status: impl Fn(usize) -> host_mpi::Status,
) -> MpiResult {
    forget_freed(bridge, mem.view(), requests, handles, host_after, 0)?;
    let out = index_out(bridge, out);
    mem.write_i32(outcount, out)?;
    let n = out.clamp(0, handles.len() as i32) as usize;
    for slot in 0..n {
        // Safety: `int_array_out` checked room for every request's index
        let i = unsafe { idx.add(slot).read_unaligned() };
        if let Some(&h) = handles.get(i as usize) {
            deactivate(bridge, h);
        }
    }
    write_statuses(bridge, &mem, statuses, status, n)?;
    bridge.check(rc)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{guest_memory::GuestMemory, mpi::state::{Bridge, RequestEntry}};

    fn put(mem: &mut [u8], at: usize, ints: &[i32]) {
        for (i, v) in ints.iter().enumerate() {
            mem[at + 4 * i..at + 4 * i + 4].copy_from_slice(&v.to_le_bytes());
        }
    }

    #[test]
    fn request_arrays_are_checked_before_the_host_sees_them() {
        let mut bridge = Bridge::new();
        let a = bridge.requests.insert(RequestEntry::new(host_mpi::null_request(), false));
        let b = bridge.requests.insert(RequestEntry::new(host_mpi::null_request(), true));
        let mut mem = vec![0u8; 64];
        put(&mut mem, 0, &[a, NULL, b]);
        put(&mut mem, 16, &[a, 0x7fff_0001]);
        put(&mut mem, 32, &[b, b]);
        let mut cx = Ctx::for_test(unsafe { GuestMemory::from_raw(mem.as_mut_ptr(), 64) }, &mut bridge);
        let loaded = with_loaded(&mut cx, Purpose::Complete, 0, 3, |_, s| Ok((s.handles.clone(), s.hosts.len()))).unwrap();
        assert_eq!((loaded.0.as_slice(), loaded.1), ([a, NULL, b].as_slice(), 3));
        let class = |cx: &mut Ctx, ptr: u32, n: i32| with_loaded(cx, Purpose::Complete, ptr, n, |_, _| Ok(())).err().map(|e| e.class);
        assert_eq!(class(&mut cx, 0, -1), Some(abi::c::MPI_ERR_COUNT));
        // arrays leaving guest memory, however their length is reached
        assert_eq!(class(&mut cx, 56, 3), Some(abi::c::MPI_ERR_BUFFER));
        assert_eq!(class(&mut cx, u32::MAX - 3, 2), Some(abi::c::MPI_ERR_BUFFER));
        assert_eq!(class(&mut cx, 0, i32::MAX), Some(abi::c::MPI_ERR_BUFFER));
        // an unknown handle, and a request twice
        assert_eq!(class(&mut cx, 16, 2), Some(abi::c::MPI_ERR_REQUEST));
        assert_eq!(class(&mut cx, 32, 2), Some(abi::c::MPI_ERR_REQUEST));
        // a failed load gives the scratch back (no allocation per call once warm)
        let s = cx.bridge.request_scratch.as_ref().expect("scratch given back");
        assert!(s.handles.capacity() >= 3 && s.hosts.capacity() >= 3);
    }

    #[test]
    fn a_request_may_appear_once_and_request_null_any_number_of_times() {
        let class = |hs: &[i32]| distinct(hs).err().map(|e| e.class);
        assert_eq!(class(&[]), None);
        assert_eq!(class(&[NULL, NULL, 0x10000, NULL]), None);
        assert_eq!(class(&[0x10000, 0x10000]), Some(abi::c::MPI_ERR_REQUEST));
        // the pairwise path: a pair anywhere among up to 16, apart or adjacent
        let mut short: Vec<i32> = (0..16).map(|i| 0x10000 + i).collect();
        assert_eq!(class(&short), None);
        for (a, b) in [(0, 15), (14, 15), (0, 1), (7, 3)] {
            let saved = short[a];
            short[a] = short[b];
            assert_eq!(class(&short), Some(abi::c::MPI_ERR_REQUEST), "{a} {b}");
            short[a] = saved;
        }
        // the sorted path, with the pair far apart
        let mut long: Vec<i32> = (0..40).map(|i| 0x10000 + i).collect();
        assert_eq!(class(&long), None);
        long[39] = 0x10000;
        assert_eq!(class(&long), Some(abi::c::MPI_ERR_REQUEST));
        let nulls = vec![NULL; 40];
        assert_eq!(class(&nulls), None);
    }
}
