//! The call wrapper every MPI host function runs in (`call`) and its
//! per-call context (`Ctx`): guest memory, the bridge state, the guest's
//! callbacks and allocator, and the guest-visible error handling.
//!
//! What keeps a call cheap (`benchmarks/bridge`): the host functions are
//! `#[inline]` into Wasmer's wrapper, their one caller (patched to call
//! them once, patches/README.md; a `Result` returned from a call went
//! through memory, and reading it back stalled); `run_body` hands its
//! out-of-line paths a reborrow of `env`, not `env` (it and every argument
//! would be stored on each call); the
//! environment comes from `installed()`, not from the store; errors are
//! boxed and built out of line; `callbacks::Active` is published only once
//! the guest has made a reduction function; Wasmer gets a fatal error as
//! the empty `errors::Raised`, so that the result it passes through memory
//! is two 32-bit words, stored and read back alike; out-of-line helpers on
//! the common paths take the bridge or a `GuestMemory::view`, not the
//! `Ctx` nor `&cx.mem`: once the address of the context or of one of its
//! fields escapes on any path of a host function, all of the context is
//! stored on every call of it (the request paths in `request.rs` follow
//! this, and `Ctx::out_request` is inlined for it); the memory's size is
//! read where the engine keeps it (`GuestFns::length`), not through a
//! closure built on each call; and what the common checks need of a
//! datatype is derived once, when its entry is made (`DatatypeEntry`'s
//! dense extent and long double flag).
use std::rc::Rc;

use wasmer::{AsStoreMut, FunctionEnvMut, StoreMut};

use super::{
    callbacks::{self, GuestFns},
    errhandler,
    errors::{Fatal, FatalKind, MpiError, MpiResult},
    state::{Bridge, ErrorMode},
    MpiEnv,
};
use crate::{abi, guest_memory::GuestMemory, host_mpi::{self, ffi}};

/// The context of one MPI host call.
pub struct Ctx<'a> {
    pub mem: GuestMemory<'a>,
    pub bridge: &'a mut Bridge,
    /// For guest callbacks and allocations (valid for the call).
    pub(super) store: *mut StoreMut<'a>,
    pub(super) fns: *const GuestFns,
    /// The MPI function and the guest communicator it was called on (or
    /// MPI_COMM_WORLD): what a request made by the call runs on.
    pub(super) function: &'static str,
    pub(super) comm: i32,
    /// This call's host copies of guest arrays: `bridge.arrays[arrays_base..
    /// arrays_top]` (`translate::arrays`); released when the call returns,
    /// unless a request took them.
    pub(super) arrays_base: usize,
    pub(super) arrays_top: usize,
}

/// Whether a request made by `function` belongs to a collective: the
/// `MPI_I...` functions other than point-to-point ones, MPI_Comm_idup, and
/// the persistent collectives (`MPI_..._init` other than point-to-point
/// ones). Large-count forms (`_c`) are their int forms'.
pub(super) fn nonblocking_collective(function: &str) -> bool {
    const POINT_TO_POINT: [&str; 8] =
        ["MPI_Isend", "MPI_Ibsend", "MPI_Issend", "MPI_Irsend", "MPI_Irecv", "MPI_Imrecv", "MPI_Isendrecv", "MPI_Isendrecv_replace"];
    const PERSISTENT_POINT_TO_POINT: [&str; 5] = ["MPI_Send_init", "MPI_Bsend_init", "MPI_Ssend_init", "MPI_Rsend_init", "MPI_Recv_init"];
    let function = function.strip_suffix("_c").unwrap_or(function);
    function == "MPI_Comm_idup"
        || function == "MPI_Comm_idup_with_info"
        || (function.starts_with("MPI_I") && !POINT_TO_POINT.contains(&function))
        || (function.ends_with("_init") && !PERSISTENT_POINT_TO_POINT.contains(&function))
}

/// The object whose error handler an error goes to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorsOf {
    Comm(i32),
    File(i32),
    Win(i32),
}

/// Runs one MPI function body and turns its result into what the guest
/// sees: MPI_SUCCESS, an error code (MPI_ERRORS_RETURN, or after a guest
/// error handler ran), or the end of the job (MPI_ERRORS_ARE_FATAL). `comm`
/// selects the error handler.
#[inline]
pub fn call(
    env: &mut FunctionEnvMut<MpiEnv>,
    function: &'static str,
    comm: i32,
    body: impl FnOnce(&mut Ctx) -> MpiResult,
) -> Result<i32, Fatal> {
    run::<false>(env, function, comm, ErrorsOf::Comm(comm), body)
}

/// `call` for the functions that may complete a generalized request: the
/// guest callbacks the call owes then run after it
/// (`grequest::run_owed_callbacks`), found through the environment `call`
/// already holds.
#[inline]
pub fn call_owing(
    env: &mut FunctionEnvMut<MpiEnv>,
    function: &'static str,
    comm: i32,
    body: impl FnOnce(&mut Ctx) -> MpiResult,
) -> Result<i32, Fatal> {
    run::<true>(env, function, comm, ErrorsOf::Comm(comm), body)
}

/// `call` for a function on file `fh` (MPI_FILE_NULL for MPI_File_open and
/// MPI_File_delete): errors go to the file's handler, MPI_ERRORS_RETURN
/// unless the guest set another. An argument the bridge refuses at one rank
/// of a collective on a file several processes share ends the job instead
/// of returning: the others are already inside the host's collective and
/// would wait for this one forever.
#[inline]
pub fn call_file(
    env: &mut FunctionEnvMut<MpiEnv>,
    function: &'static str,
    fh: i32,
    body: impl FnOnce(&mut Ctx) -> MpiResult,
) -> Result<i32, Fatal> {
    run::<false>(env, function, abi::c::MPI_COMM_NULL, ErrorsOf::File(fh), body)
}

/// `call` for a function on window `win`: errors go to the window's
/// handler (MPI_COMM_WORLD's for an invalid window; the calls that make a
/// window use `call` on their communicator).
#[inline]
pub fn call_win(
    env: &mut FunctionEnvMut<MpiEnv>,
    function: &'static str,
    win: i32,
    body: impl FnOnce(&mut Ctx) -> MpiResult,
) -> Result<i32, Fatal> {
    run::<false>(env, function, abi::c::MPI_COMM_NULL, ErrorsOf::Win(win), body)
}

/// `call` with the error handler of any kind of object.
#[inline]
pub fn call_on(
    env: &mut FunctionEnvMut<MpiEnv>,
    function: &'static str,
    errors: ErrorsOf,
    body: impl FnOnce(&mut Ctx) -> MpiResult,
) -> Result<i32, Fatal> {
    match errors {
        ErrorsOf::Comm(comm) => run::<false>(env, function, comm, errors, body),
        _ => run::<false>(env, function, abi::c::MPI_COMM_NULL, errors, body),
    }
}

/// The environment's data and the store: through `installed()` where the
/// runner set it (one load), else through a reborrow of `env` kept in
/// `fallback` (declared, not initialized, by the caller), never `env`
/// itself: once its address escapes (`env.data()` hands it to a failed
/// assertion's message), every call stores `env` and all of the host
/// function's arguments. A macro: a function would need the reborrow's
/// slot as an `Option`, which cost each call three instructions.
macro_rules! data_and_store {
    ($env:expr, $installed:expr, $fallback:ident) => {
        match $installed {
            // Safety: installed by the runner for the instance whose store
            // this call runs in; Wasmer's own data_and_store_mut splits the
            // same way.
            Some(env_data) => (unsafe { &mut *env_data }, $env.as_store_mut()),
            None => {
                $fallback = $env.as_mut();
                $fallback.data_and_store_mut()
            }
        }
    };
}

/// `OWED`: run the guest callbacks the call owes afterwards (`call_owing`).
#[inline]
fn run<const OWED: bool>(
    env: &mut FunctionEnvMut<MpiEnv>,
    function: &'static str,
    comm: i32,
    errors: ErrorsOf,
    body: impl FnOnce(&mut Ctx) -> MpiResult,
) -> Result<i32, Fatal> {
    let installed = super::installed();
    if !OWED {
        return run_body(env, installed, function, comm, errors, body);
    }
    let rc = run_body(env, installed, function, comm, errors, body)?;
    let mut fallback;
    let (data, mut store) = data_and_store!(env, installed, fallback);
    if data.bridge.grequests_owed.is_empty() {
        return Ok(rc);
    }
    super::grequest::run_owed_callbacks(data, &mut store, function, rc)
}

/// The error of an MPI call made before the module was instantiated.
pub(super) fn not_instantiated(function: &'static str) -> Fatal {
    FatalKind::Mpi { function, class: abi::c::MPI_ERR_OTHER, detail: "called before the module was instantiated".into() }.into()
}

#[inline(always)]
fn run_body(
    env: &mut FunctionEnvMut<MpiEnv>,
    installed: Option<*mut MpiEnv>,
    function: &'static str,
    comm: i32,
    errors: ErrorsOf,
    body: impl FnOnce(&mut Ctx) -> MpiResult,
) -> Result<i32, Fatal> {
    // A user reduction function runs only once the guest has made one
    // (`user_functions`), so only then can a call come from inside one.
    if installed.map_or(true, |env_data| unsafe { (*env_data).bridge.user_functions }) {
        callbacks::reentry_forbidden(function)?;
    }
    let mut fallback;
    let (data, mut store_mut) = data_and_store!(env, installed, fallback);
    let MpiEnv { fns, known_size, bridge } = data;
    let Some(fns) = fns.as_ref() else {
        return Err(not_instantiated(function));
    };
    let store: *mut StoreMut = &mut store_mut;
    // for the error handler: a use of `store` itself after the body would
    // keep the context's borrow of the bridge alive to there
    let untyped_store = store as *mut ();
    // Safety: the memory's base never moves (static memory), the memory
    // never shrinks, and its length record lives as long as it does.
    let mem = unsafe { GuestMemory::new(fns.base, known_size, fns.length()) };
    let active = bridge.user_functions.then(|| callbacks::Active::enter(store, Rc::as_ptr(fns)));
    let arrays_base = bridge.arrays_used;
    let mut cx = Ctx { mem, bridge, store, fns: Rc::as_ptr(fns), function, comm, arrays_base, arrays_top: arrays_base };
    let result = body(&mut cx);
    if cx.arrays_top != arrays_base {
        cx.bridge.release_arrays(arrays_base);
    }
    drop(active);
    let e = match result {
        Ok(()) => return Ok(abi::c::MPI_SUCCESS),
        Err(e) => e,
    };
    let outcome = on_error(bridge, function, errors, e)?;
    let fns = fns.clone();
    // Safety: the store outlives the call; the context is gone.
    finish(outcome, unsafe { &mut *(untyped_store as *mut StoreMut) }, &fns, function)
}

/// What an MPI error does once its call has failed.
pub(super) enum Outcome {
    /// The call returns this error class.
    Return(i32),
    /// The guest's error handler runs first, then the call returns `class`.
    Handler { handler: u32, object: i32, class: i32 },
}

/// What error `e` of `function` does under the error handler of `errors`
/// (MPI_ERRORS_ARE_FATAL: the end of the job). Only reads the bridge: the
/// guest handler runs after (`finish`), when nothing of it is borrowed.
#[inline(never)]
pub(super) fn on_error(bridge: &Bridge, function: &'static str, errors: ErrorsOf, e: MpiError) -> Result<Outcome, Fatal> {
    let (mode, object) = match errors {
        ErrorsOf::Comm(comm) => {
            (bridge.comm_errors(comm), if bridge.comms.get(comm).is_some() { comm } else { abi::c::MPI_COMM_WORLD })
        }
        ErrorsOf::File(fh) if !e.shared && super::file::others_wait(bridge, fh, function) => {
            let detail = format!("{} (refused at this rank only, so the other ranks would wait in the collective forever)", e.detail);
            return Err(FatalKind::Mpi { function, class: e.class, detail }.into());
        }
        ErrorsOf::File(fh) => (bridge.file_errors(fh), if bridge.files.get(fh).is_some() { fh } else { abi::c::MPI_FILE_NULL }),
        ErrorsOf::Win(win) => match bridge.wins.get(win) {
            Some(w) => (bridge.errhandlers.get(w.errhandler).map_or(ErrorMode::Fatal, |e| e.mode), win),
            // no window yet (creation) or an invalid one: MPI_COMM_WORLD's handler
            None => (bridge.comm_errors(abi::c::MPI_COMM_WORLD), abi::c::MPI_COMM_WORLD),
        },
    };
    match mode {
        ErrorMode::Return => Ok(Outcome::Return(e.class)),
        ErrorMode::Fatal => Err(FatalKind::Mpi { function, class: e.class, detail: e.into_detail() }.into()),
        ErrorMode::User(handler) => Ok(Outcome::Handler { handler, object, class: e.class }),
    }
}

/// Carries out an `Outcome`: the error class the call returns, after the
/// guest's handler ran if it has one.
pub(super) fn finish(outcome: Outcome, store: &mut StoreMut, fns: &GuestFns, function: &'static str) -> Result<i32, Fatal> {
    match outcome {
        Outcome::Return(class) => Ok(class),
        Outcome::Handler { handler, object, class } => {
            errhandler::invoke(store, fns, function, handler, object, class)?;
            Ok(class)
        }
    }
}

impl<'a> Ctx<'a> {
    /// A context without a guest instance, for unit tests of the
    /// translation helpers (callbacks and allocation are unavailable).
    #[cfg(test)]
    pub fn for_test(mem: GuestMemory<'a>, bridge: &'a mut Bridge) -> Self {
        let arrays_base = bridge.arrays_used;
        Self { mem, bridge, store: std::ptr::null_mut(), fns: std::ptr::null(), function: "test", comm: abi::c::MPI_COMM_WORLD, arrays_base, arrays_top: arrays_base }
    }
}

impl Ctx<'_> {
    /// A host return code as a result, with the guest's error class.
    #[inline]
    pub fn host(&self, rc: i32) -> MpiResult {
        self.bridge.check(rc)
    }

    /// Checks that a guest callback (a function-table index) takes
    /// `params` i32 arguments and returns `results` values.
    pub fn check_callback(&mut self, index: u32, params: usize, results: usize) -> MpiResult {
        // Safety: the store outlives the call; the bridge state is not in it.
        let (store, fns) = unsafe { (&mut *self.store, &*self.fns) };
        Ok(fns.check_signature(store, index, params, results)?)
    }

    /// Guest memory from the guest's malloc (kept by the bridge).
    pub fn guest_alloc(&mut self, len: u32) -> MpiResult<u32> {
        let (store, fns) = unsafe { (&mut *self.store, &*self.fns) };
        fns.alloc(store, len).map_err(|e| MpiError::new(abi::c::MPI_ERR_NO_MEM, e.to_string()))
    }

    /// Gives guest memory from `guest_alloc` back (failures are the
    /// guest's allocator's business: the memory is then just not reused).
    pub fn guest_free(&mut self, addr: u32) {
        let (store, fns) = unsafe { (&mut *self.store, &*self.fns) };
        let _ = fns.release(store, addr);
    }

    /// The host address of guest address 0 (fixed for the instance's life).
    pub fn guest_base(&self) -> *mut u8 {
        unsafe { (*self.fns).base }
    }

    /// Grows the guest memory by `pages` wasm pages from the host (for
    /// pages the guest's allocator must never hand out); returns the old
    /// size in pages.
    pub fn grow_guest_memory(&mut self, pages: u32) -> Result<u32, String> {
        let (store, fns) = unsafe { (&mut *self.store, &*self.fns) };
        fns.memory.grow(store, wasmer::Pages(pages)).map(|p| p.0).map_err(|e| e.to_string())
    }

    /// The ranks of `comm` agree on this rank's verdict before a collective
    /// host call: all go on, or all fail with the highest error class (so no
    /// rank waits in the host for one that gave up).
    pub fn agree<T>(&self, comm: host_mpi::Comm, local: MpiResult<T>) -> MpiResult<T> {
        let mine = local.as_ref().err().map_or(0, |e| e.class);
        let mut worst = 0i32;
        let host = host_mpi::constants();
        let (int, max) = (host.datatypes["MPI_INT"], host.ops["MPI_MAX"]);
        let rc = unsafe { ffi::MPI_Allreduce(&mine as *const i32 as _, &mut worst as *mut i32 as _, 1, int.0, max.0, comm.0) };
        self.host(rc)?;
        match local {
            Err(e) => Err(MpiError::shared(e.class, e.into_detail())),
            Ok(_) if worst != 0 => Err(MpiError::shared(worst, "another process's arguments were refused")),
            Ok(v) => Ok(v),
        }
    }

    #[inline]
    pub fn require_running(&self) -> MpiResult {
        if self.bridge.ready {
            Ok(())
        } else {
            Err(self.bridge.not_running())
        }
    }
}
