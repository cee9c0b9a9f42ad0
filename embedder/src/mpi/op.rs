//! Reduction operations. Predefined ones are the host's. A user function
//! (MPI_Op_create) is a guest function-table index; the host MPI gets one
//! of a fixed set of host trampolines (MPI's user-function signature has no
//! user-data argument, so each live user op needs its own), which runs the
//! guest function on guest memory: operands the host MPI holds in its own
//! buffers are copied into a guest scratch buffer and the result back.
use std::{
    cell::RefCell,
    collections::HashMap,
    ffi::{c_int, c_void},
};

use wasmer::FunctionEnvMut;

use super::{
    callbacks,
    call::call,
    held,
    datatype::DatatypeEntry,
    errors::{Fatal, MpiError, TRAP_EXIT},
    MpiEnv,
};
use crate::{abi, handles::USER_BASE, host_mpi, host_mpi::ffi};

/// How many user operations may exist at once.
pub const SLOTS: usize = 64;
/// `MPI_User_function(void *in, void *inout, int *len, MPI_Datatype *type)`.
const USER_FUNCTION_PARAMS: usize = 4;

/// A guest user function: its function-table index, and whether it is an
/// `MPI_User_function_c` (MPI_Op_create_c), whose `len` is an MPI_Count.
#[derive(Clone, Copy)]
struct UserFunction {
    index: u32,
    large_count: bool,
}

type HostUserFn = unsafe extern "C" fn(*mut c_void, *mut c_void, *mut c_int, *mut ffi::MPI_Datatype);

thread_local! {
    /// Trampoline slot -> the guest function.
    static SLOT_FUNCTIONS: RefCell<[Option<UserFunction>; SLOTS]> = const { RefCell::new([None; SLOTS]) };
    /// Host datatype -> the guest handle and layout a user function sees.
    static TYPES: RefCell<HashMap<usize, (i32, DatatypeEntry)>> = RefCell::new(HashMap::new());
}

/// A host handle as a map key (OpenMPI's are pointers, MPICH's ints).
fn type_key(dt: ffi::MPI_Datatype) -> usize {
    dt
}

/// Makes a datatype known to user functions (the last guest handle for a
/// host type wins; predefined types register their own names last).
pub fn remember_type(guest: i32, entry: &DatatypeEntry) {
    TYPES.with(|t| t.borrow_mut().insert(type_key(entry.host.0), (guest, *entry)));
}

/// For predefined guest types that share a host type (MPI_LONG and
/// MPI_INT32_T): only the first is remembered unless `remember_type` wins.
pub fn remember_type_if_new(guest: i32, entry: &DatatypeEntry) {
    TYPES.with(|t| {
        t.borrow_mut().entry(type_key(entry.host.0)).or_insert((guest, *entry));
    });
}

pub fn forget_type(guest: i32) {
    TYPES.with(|t| t.borrow_mut().retain(|_, (g, _)| *g != guest));
}

/// A held type's host object is freed (held.rs): its guest handle may name
/// another type by now, so only the entry of this host type goes.
pub(super) fn forget_host_type(host: ffi::MPI_Datatype, guest: i32) {
    TYPES.with(|t| {
        let mut t = t.borrow_mut();
        if t.get(&type_key(host)).is_some_and(|(g, _)| *g == guest) {
            t.remove(&type_key(host));
        }
    });
}

/// A user operation's host object is freed: its trampoline may serve the
/// next one.
pub(super) fn release_slot(slot: usize) {
    SLOT_FUNCTIONS.with(|s| s.borrow_mut()[slot] = None);
}

fn slot_of_free() -> Option<usize> {
    SLOT_FUNCTIONS.with(|s| s.borrow().iter().position(Option::is_none))
}

/// Ends the job from inside the host MPI: a failed user function cannot
/// unwind through the library's frames.
pub(super) fn abort_job(detail: &str) -> ! {
    let who = crate::rank::launcher_rank().map_or(String::new(), |r| format!("rank {r}: "));
    crate::say!("embedder: {who}{detail}");
    host_mpi::abort(host_mpi::constants().comm_world, TRAP_EXIT)
}

unsafe extern "C" fn trampoline<const SLOT: usize>(inv: *mut c_void, inout: *mut c_void, len: *mut c_int, dt: *mut ffi::MPI_Datatype) {
    run_user_function(SLOT, inv as *mut u8, inout as *mut u8, *len, host_mpi::read_handle(dt as *const c_void));
}

macro_rules! trampolines {
    ($($n:literal)*) => { [$(trampoline::<$n> as HostUserFn,)*] };
}
static TRAMPOLINES: [HostUserFn; SLOTS] = trampolines!(
    0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31
    32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63
);

fn run_user_function(slot: usize, inv: *mut u8, inout: *mut u8, len: i32, host_dt: ffi::MPI_Datatype) {
    let Some(UserFunction { index: function, large_count }) = SLOT_FUNCTIONS.with(|s| s.borrow()[slot]) else { abort_job("user reduction function called after MPI_Op_free") };
    let Some((guest_dt, dt)) = TYPES.with(|t| t.borrow().get(&type_key(host_dt)).copied()) else {
        abort_job("user reduction function called with a datatype the guest does not know")
    };
    let ran = callbacks::with_active(|store, fns| -> Result<(), String> {
        // every byte of an operand, relative to its pointer (any sign of extent)
        let (lo, hi) = dt.hull(len as i64);
        let fits = |v: i128| isize::try_from(v).is_ok();
        let bytes = u32::try_from(hi - lo).ok().filter(|_| fits(lo) && fits(hi));
        let bytes = bytes.ok_or("user reduction function: the operands do not fit in guest memory")? as u64;
        // a host pointer the guest can use as it is: the whole hull inside
        // the memory, the pointer itself a guest address
        let (direct_in, direct_inout) = {
            let mem = fns.view(store);
            (mem.guest_address(inv, lo as i64, hi as i64), mem.guest_address(inout, lo as i64, hi as i64))
        };
        // scratch: len, datatype, then the operands that need copies (the
        // allocation is checked to lie inside the memory: callbacks::alloc)
        let rounded = (bytes + 15) & !15;
        let total = 16 + rounded * (direct_in.is_none() as u64 + direct_inout.is_none() as u64);
        let total = u32::try_from(total).map_err(|_| "user reduction function: the operands do not fit in guest memory")?;
        let scratch = fns.scratch(store, total).map_err(|e| format!("user reduction function: {e}"))?;
        let mem = fns.view(store);
        let inside = |at: u32, len: u64| mem.range(at, len).map_err(|e| format!("user reduction function: {e}"));
        let mut next = scratch + 16;
        // copies an operand into the scratch: (its bytes' guest address,
        // the pointer the guest function gets: wasm32 address arithmetic
        // wraps, so `pointer + lo` is the copy whatever lo's sign)
        let mut place = |p: *mut u8| -> Result<(u32, u32), String> {
            let at = next;
            next += rounded as u32;
            // Safety: [p + lo, p + hi) is the operand the host MPI handed over.
            unsafe { std::ptr::copy_nonoverlapping(p.offset(lo as isize), inside(at, bytes)?, bytes as usize) };
            Ok((at, (at as i128 - lo) as u32))
        };
        let g_in = match direct_in {
            Some(g) => g,
            None => place(inv)?.1,
        };
        let (g_inout, copied_inout) = match direct_inout {
            Some(g) => (g, None),
            None => {
                let (at, g) = place(inout)?;
                (g, Some(at))
            }
        };
        // the header: len (an int, or an 8-aligned MPI_Count), then the datatype
        let dt_at = if large_count { 8 } else { 4 };
        let wrote = if large_count { mem.write_bytes(scratch, &(len as i64).to_le_bytes()) } else { mem.write_i32(scratch, len) };
        wrote.and_then(|()| mem.write_i32(scratch + dt_at, guest_dt)).map_err(|e| e.to_string())?;
        let args = [g_in as i32, g_inout as i32, scratch as i32, (scratch + dt_at) as i32];
        match fns.call(store, function, &args) {
            Err(callbacks::CallbackError::Trap(e)) => {
                return Err(format!("guest trapped in a user reduction function: {}", Fatal::trap_message(e)))
            }
            Err(callbacks::CallbackError::Invalid(e)) => return Err(format!("user reduction function: {e}")),
            Ok(_) => {}
        }
        if let Some(at) = copied_inout {
            // Safety: the copy stays where it was checked (the memory never shrinks).
            unsafe { std::ptr::copy_nonoverlapping(inside(at, bytes)?, inout.offset(lo as isize), bytes as usize) };
        }
        Ok(())
    });
    match ran {
        None => abort_job("user reduction function called by the host MPI outside any MPI call of the guest"),
        Some(Err(e)) => abort_job(&e),
        Some(Ok(())) => {}
    }
}

#[inline]
pub fn op_create(mut env: FunctionEnvMut<MpiEnv>, function: u32, commute: i32, op: u32) -> Result<i32, Fatal> {
    create(&mut env, "MPI_Op_create", UserFunction { index: function, large_count: false }, commute, op)
}

/// The host needs no MPI_Op_create_c: the host MPI calls the trampoline
/// with an int length, which the guest's function gets as an MPI_Count.
#[inline]
pub fn op_create_c(mut env: FunctionEnvMut<MpiEnv>, function: u32, commute: i32, op: u32) -> Result<i32, Fatal> {
    create(&mut env, "MPI_Op_create_c", UserFunction { index: function, large_count: true }, commute, op)
}

fn create(env: &mut FunctionEnvMut<MpiEnv>, name: &'static str, function: UserFunction, commute: i32, op: u32) -> Result<i32, Fatal> {
    call(env, name, abi::c::MPI_COMM_WORLD, |cx| {
        cx.require_running()?;
        cx.mem.range(op, 4)?;
        cx.check_callback(function.index, USER_FUNCTION_PARAMS, 0)?;
        let slot = slot_of_free()
            .ok_or_else(|| MpiError::new(abi::c::MPI_ERR_OTHER, format!("too many user operations: at most {SLOTS} may exist at once")))?;
        let mut host = host_mpi::null_op();
        cx.host(unsafe { ffi::MPI_Op_create(TRAMPOLINES[slot] as ffi::Callback, commute, &mut host.0) })?;
        SLOT_FUNCTIONS.with(|s| s.borrow_mut()[slot] = Some(function));
        cx.bridge.user_functions = true;
        let handle = cx.bridge.ops.insert(host);
        cx.bridge.user_op_slots.insert(handle, slot);
        Ok(cx.mem.write_i32(op, handle)?)
    })
}

#[inline]
pub fn op_free(mut env: FunctionEnvMut<MpiEnv>, op: u32) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Op_free", abi::c::MPI_COMM_WORLD, |cx| {
        let handle = cx.mem.read_i32(op)?;
        let mut host = cx.op(handle)?;
        if handle < USER_BASE {
            return Err(MpiError::new(abi::c::MPI_ERR_OP, "predefined operations cannot be freed"));
        }
        // a pending or persistent reduction may still run it (held.rs)
        let held = held::retire(cx.bridge, held::Of::Op(handle));
        if !held {
            cx.host(unsafe { ffi::MPI_Op_free(&mut host.0) })?;
        }
        cx.bridge.ops.remove(handle);
        if let Some(slot) = cx.bridge.user_op_slots.remove(&handle).filter(|_| !held) {
            release_slot(slot);
        }
        Ok(cx.mem.write_i32(op, abi::c::MPI_OP_NULL)?)
    })
}

#[inline]
pub fn op_commutative(mut env: FunctionEnvMut<MpiEnv>, op: i32, commute: u32) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Op_commutative", abi::c::MPI_COMM_WORLD, |cx| {
        let host = cx.op(op)?;
        let mut c = 0;
        cx.host(unsafe { ffi::MPI_Op_commutative(host.0, &mut c) })?;
        Ok(cx.mem.write_i32(commute, c)?)
    })
}
