//! Per-instance bridge state and the per-call context every MPI host
//! function runs in: guest memory bounds, handle lookups, special-value
//! translation and the guest-visible error handling.
use std::collections::HashMap;

use std::rc::Rc;

use wasmer::{FunctionEnvMut, StoreMut};

use super::{
    attr,
    callbacks::{self, GuestFns},
    datatype::{self, DatatypeEntry},
    errhandler::{self, ErrhandlerEntry},
    errors::{Fatal, MpiError, MpiResult},
    status::{Public, StatusMap},
    MpiEnv,
};
use crate::{abi, guest_memory::GuestMemory, handles::Table, host_mpi};

/// What an MPI error does in the guest (the error handler's behaviour).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorMode {
    /// MPI_ERRORS_ARE_FATAL (the default) and MPI_ERRORS_ABORT.
    Fatal,
    /// MPI_ERRORS_RETURN: the error code is returned to the guest.
    Return,
    /// A guest handler (function-table index), called before the error
    /// code is returned.
    User(u32),
}

#[derive(Clone, Copy, Debug)]
pub struct CommEntry {
    pub host: host_mpi::Comm,
    /// The guest error handler (a handle in `Bridge::errhandlers`).
    pub errhandler: i32,
    /// Fixed for the communicator's life, cached so collectives need no
    /// extra host calls: this rank, intercommunicator or not, and how many
    /// ranks per-rank arrays hold (the remote group's size for an
    /// intercommunicator); `local` is the local group's size.
    pub rank: i32,
    pub inter: bool,
    pub peers: i64,
    pub local: i64,
}

impl CommEntry {
    /// An entry for a valid host communicator (queried once).
    pub fn new(host: host_mpi::Comm, errhandler: i32) -> Self {
        let (mut rank, mut inter, mut local) = (0, 0, 0);
        host_mpi::comm_rank(host, &mut rank);
        host_mpi::comm_test_inter(host, &mut inter);
        host_mpi::comm_size(host, &mut local);
        let mut peers = local;
        if inter != 0 {
            host_mpi::comm_remote_size(host, &mut peers);
        }
        Self { host, errhandler, rank, inter: inter != 0, peers: peers as i64, local: local as i64 }
    }

    /// A handle whose host communicator is filled in later (MPI_Comm_idup).
    pub fn pending(errhandler: i32) -> Self {
        Self { host: host_mpi::null_communicator(), errhandler, rank: 0, inter: false, peers: 0, local: 0 }
    }

    /// Which arguments of a rooted collective MPI reads at this process:
    /// (root-only ones, the others).
    #[inline]
    pub fn root_roles(&self, root: i32) -> (bool, bool) {
        if self.inter {
            let in_root_group = root == abi::c::MPI_ROOT || root == abi::c::MPI_PROC_NULL;
            return (root == abi::c::MPI_ROOT, !in_root_group);
        }
        (self.rank == root, true)
    }
}

/// Host values of the ranks and tags with special meaning, which differ
/// between OpenMPI, MPICH and the standard ABI.
#[derive(Clone, Copy, Default)]
struct Specials {
    any_source: i32,
    proc_null: i32,
    root: i32,
    any_tag: i32,
    undefined: i32,
}

/// A host request and what the guest handle must do when it completes.
#[derive(Debug)]
pub struct RequestEntry {
    pub host: host_mpi::Request,
    /// Persistent requests stay allocated (inactive) after completion.
    pub persistent: bool,
    /// Started and not yet completed (always true for other requests):
    /// Open MPI crashes cancelling a persistent receive never started.
    pub active: bool,
    /// The host communicator the operation runs on: freed by the guest, it
    /// stays allocated on the host until the operation is done (see
    /// `comm::close`).
    pub comm: host_mpi::Comm,
    /// Made by a nonblocking collective (which MPI_Request_free and
    /// MPI_Cancel may not take).
    pub collective: bool,
    /// MPI_Cancel was called since the request was started.
    pub cancelled: bool,
    /// MPI_Comm_idup: the host writes the new communicator here when the
    /// request completes; the guest handle then points at it.
    pub new_comm: Option<Box<PendingDup>>,
    /// Host arrays the operation reads until it completes (Ialltoallw's
    /// types, Ineighbor_alltoallw's widened displacements).
    #[allow(dead_code)] // held, never read: it only has to live
    pub keep: Option<Box<dyn std::any::Any>>,
    /// Host copies of the guest int arrays (counts, displacements) the
    /// operation reads until it completes.
    #[allow(dead_code)] // held, never read: it only has to live
    arrays: Vec<Box<[i32]>>,
}

impl RequestEntry {
    /// An entry that holds no arrays (the bridge makes them through
    /// `Ctx::request_entry`, which cannot forget the call's arrays).
    #[cfg(test)]
    pub fn new(host: host_mpi::Request, persistent: bool) -> Self {
        let comm = host_mpi::null_communicator();
        Self { host, persistent, active: !persistent, comm, collective: false, cancelled: false, new_comm: None, keep: None, arrays: Vec::new() }
    }
}

/// An MPI_Comm_idup in flight.
#[derive(Debug)]
pub struct PendingDup {
    /// The guest handle of the new communicator.
    pub guest: i32,
    /// Written by the host MPI when the request completes.
    pub host: host_mpi::Comm,
}

/// A host communicator the guest has freed and the host still holds (see
/// `comm::close`).
#[derive(Debug)]
pub struct Closing {
    pub host: host_mpi::Comm,
    /// MPI_Ibarrier posted at the guest's MPI_Comm_free: done once every
    /// process of the communicator has freed it (null for one process).
    pub agreement: host_mpi::Request,
}

pub struct Bridge {
    /// True between a successful MPI_Init and MPI_Finalize.
    ready: bool,
    pub comms: Table<CommEntry>,
    pub datatypes: Table<DatatypeEntry>,
    /// Derived types' contents and names; names given to predefined types.
    pub type_meta: HashMap<i32, datatype::TypeMeta>,
    pub predefined_type_names: HashMap<i32, String>,
    pub ops: Table<host_mpi::Op>,
    /// User operation handle -> its trampoline slot.
    pub user_op_slots: HashMap<i32, usize>,
    pub attributes: attr::Attributes,
    pub requests: Table<RequestEntry>,
    messages: Table<host_mpi::Message>,
    pub groups: Table<host_mpi::Group>,
    pub infos: Table<host_mpi::Info>,
    pub errhandlers: Table<ErrhandlerEntry>,
    pub user_errors: errhandler::UserErrors,
    /// Host address of MPI_IN_PLACE.
    in_place: usize,
    /// Scratch for request and status arrays (reused: no allocation per call
    /// once warm).
    pub scratch_requests: host_mpi::HandleVec,
    pub scratch_statuses: host_mpi::StatusVec,
    pub scratch_indices: Vec<i32>,
    /// The buffer given to MPI_Buffer_attach (and the host's stand-in).
    pub attached: Option<super::environment::Attached>,
    /// Freed by the guest, not yet by the host.
    pub closing: Vec<Closing>,
    specials: Specials,
    status: Option<StatusMap>,
    /// host error class -> standard-ABI error class
    error_classes: HashMap<i32, i32>,
}

impl Bridge {
    pub fn new() -> Self {
        Self {
            ready: false,
            comms: Table::new(abi::c::MPI_COMM_NULL, 3),
            datatypes: Table::new(abi::c::MPI_DATATYPE_NULL, 0),
            type_meta: HashMap::new(),
            predefined_type_names: HashMap::new(),
            ops: Table::new(abi::c::MPI_OP_NULL, 0x20),
            user_op_slots: HashMap::new(),
            attributes: attr::Attributes::new(),
            requests: Table::new(abi::c::MPI_REQUEST_NULL, 1),
            messages: Table::new(abi::c::MPI_MESSAGE_NULL, 2),
            groups: Table::new(abi::c::MPI_GROUP_NULL, 2),
            infos: Table::new(abi::c::MPI_INFO_NULL, 2),
            errhandlers: errhandler::predefined_table(),
            user_errors: Default::default(),
            in_place: 0,
            scratch_requests: host_mpi::HandleVec::default(),
            scratch_statuses: host_mpi::StatusVec::default(),
            scratch_indices: Vec::new(),
            attached: None,
            closing: Vec::new(),
            specials: Specials::default(),
            status: None,
            error_classes: HashMap::new(),
        }
    }

    /// Builds the translation tables once the host MPI is initialized.
    pub fn on_init(&mut self) -> MpiResult {
        let host = host_mpi::constants();
        self.error_classes = host
            .ints
            .iter()
            .filter(|(n, _)| n.starts_with("MPI_ERR_") || **n == "MPI_SUCCESS")
            .filter_map(|(n, &v)| Some((v, abi::value_of(n)?)))
            .collect();
        for comm in [host.comm_world, host.comm_self] {
            // Errors come back to the bridge, which applies the guest's handler.
            self.check(host_mpi::comm_set_errhandler(comm, host.errors_return))?;
        }
        let fatal = abi::c::MPI_ERRORS_ARE_FATAL;
        self.comms.set_predefined(abi::c::MPI_COMM_WORLD, CommEntry::new(host.comm_world, fatal));
        self.comms.set_predefined(abi::c::MPI_COMM_SELF, CommEntry::new(host.comm_self, fatal));
        self.datatypes = datatype::predefined_table();
        for &(name, kind, value) in abi::c::ALL {
            if kind == "handle" && (abi::c::MPI_OP_NULL + 1..abi::c::MPI_OP_NULL + 0x20).contains(&value) {
                if let Some(op) = host.ops.get(name) {
                    self.ops.set_predefined(value, *op);
                }
            }
        }
        self.messages.set_predefined(abi::c::MPI_MESSAGE_NO_PROC, host_mpi::message_no_proc());
        self.groups.set_predefined(abi::c::MPI_GROUP_EMPTY, host_mpi::group_empty());
        self.infos.set_predefined(abi::c::MPI_INFO_NULL, host_mpi::null_info());
        self.infos.set_predefined(abi::c::MPI_INFO_ENV, host_mpi::info_env());
        self.in_place = host.ptrs["MPI_IN_PLACE"];
        self.specials = Specials {
            any_source: host.int("MPI_ANY_SOURCE"),
            proc_null: host.int("MPI_PROC_NULL"),
            root: host.int("MPI_ROOT"),
            any_tag: host.int("MPI_ANY_TAG"),
            undefined: host.int("MPI_UNDEFINED"),
        };
        self.status = Some(StatusMap::new(host.status));
        self.ready = true;
        Ok(())
    }

    pub fn on_finalize(&mut self) {
        self.ready = false;
    }

    fn not_running(&self) -> MpiError {
        MpiError::new(abi::c::MPI_ERR_OTHER, "MPI is not initialized (called before MPI_Init or after MPI_Finalize)")
    }

    /// What an error in a call on `comm` does (calls without a
    /// communicator use MPI_COMM_WORLD's handler).
    fn comm_errors(&self, comm: i32) -> ErrorMode {
        let c = self.comms.get(comm).or(self.comms.get(abi::c::MPI_COMM_WORLD));
        c.and_then(|c| self.errhandlers.get(c.errhandler)).map_or(ErrorMode::Fatal, |e| e.mode)
    }

    /// A host error code as the guest's error class.
    pub fn guest_error_class(&self, host_code: i32) -> i32 {
        let class = host_mpi::error_class(host_code);
        self.error_classes.get(&class).copied().unwrap_or(abi::c::MPI_ERR_UNKNOWN)
    }

    /// A host return code as a result, with the guest's error class.
    #[inline]
    pub fn check(&self, rc: i32) -> MpiResult {
        if rc == host_mpi::SUCCESS {
            return Ok(());
        }
        Err(MpiError::new(self.guest_error_class(rc), host_mpi::error_string(rc)))
    }
}

/// The context of one MPI host call.
pub struct Ctx<'a> {
    pub mem: GuestMemory<'a>,
    pub bridge: &'a mut Bridge,
    /// For guest callbacks and allocations (valid for the call).
    store: *mut StoreMut<'a>,
    fns: *const GuestFns,
    /// The MPI function and the guest communicator it was called on (or
    /// MPI_COMM_WORLD): what a request made by the call runs on.
    function: &'static str,
    comm: i32,
    /// Host copies of the guest int arrays handed to the host in this call
    /// (see `int_array`); dropped when the call returns unless a request
    /// takes them.
    arrays: Vec<Box<[i32]>>,
}

/// Whether a request made by `function` belongs to a nonblocking
/// collective: the `MPI_I...` functions other than point-to-point ones, and
/// MPI_Comm_idup.
fn nonblocking_collective(function: &str) -> bool {
    const POINT_TO_POINT: [&str; 6] = ["MPI_Isend", "MPI_Ibsend", "MPI_Issend", "MPI_Irsend", "MPI_Irecv", "MPI_Imrecv"];
    function == "MPI_Comm_idup" || (function.starts_with("MPI_I") && !POINT_TO_POINT.contains(&function))
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
    callbacks::reentry_forbidden(function)?;
    let (data, mut store) = env.data_and_store_mut();
    let MpiEnv { fns, known_size, bridge } = data;
    let Some(fns) = fns.as_ref() else {
        return Err(Fatal::Mpi { function, class: abi::c::MPI_ERR_OTHER, detail: "called before the module was instantiated".into() });
    };
    let store: *mut StoreMut = &mut store;
    // Safety: the store outlives this call; the memory's base never moves
    // (static memory) and the memory never shrinks.
    let current = || fns.memory_size(unsafe { &*store });
    let mem = unsafe { GuestMemory::new(fns.base, *known_size, &current) };
    let active = callbacks::Active::enter(store, Rc::as_ptr(fns));
    let mut cx = Ctx { mem, bridge, store, fns: Rc::as_ptr(fns), function, comm, arrays: Vec::new() };
    let result = body(&mut cx);
    *known_size = cx.mem.known_size();
    drop(active);
    let e = match result {
        Ok(()) => return Ok(abi::c::MPI_SUCCESS),
        Err(e) => e,
    };
    match bridge.comm_errors(comm) {
        ErrorMode::Return => Ok(e.class),
        ErrorMode::Fatal => Err(Fatal::Mpi { function, class: e.class, detail: e.detail }),
        ErrorMode::User(handler) => {
            let fns = fns.clone();
            let comm = if bridge.comms.get(comm).is_some() { comm } else { abi::c::MPI_COMM_WORLD };
            errhandler::invoke(env, &fns, function, handler, comm, e.class)?;
            Ok(e.class)
        }
    }
}

impl<'a> Ctx<'a> {
    /// A context without a guest instance, for unit tests of the
    /// translation helpers (callbacks and allocation are unavailable).
    #[cfg(test)]
    pub fn for_test(mem: GuestMemory<'a>, bridge: &'a mut Bridge) -> Self {
        Self { mem, bridge, store: std::ptr::null_mut(), fns: std::ptr::null(), function: "test", comm: abi::c::MPI_COMM_WORLD, arrays: Vec::new() }
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

    #[inline]
    pub fn require_running(&self) -> MpiResult {
        if self.bridge.ready {
            Ok(())
        } else {
            Err(self.bridge.not_running())
        }
    }

    #[inline]
    pub fn comm(&self, handle: i32) -> MpiResult<CommEntry> {
        match self.bridge.comms.get(handle) {
            Some(c) if self.bridge.ready => Ok(*c),
            _ if !self.bridge.ready => Err(self.bridge.not_running()),
            _ => Err(MpiError::new(abi::c::MPI_ERR_COMM, format!("invalid communicator handle {handle:#x}"))),
        }
    }

    #[inline]
    pub fn datatype(&self, handle: i32) -> MpiResult<DatatypeEntry> {
        match self.bridge.datatypes.get(handle) {
            Some(d) if self.bridge.ready => Ok(*d),
            _ if !self.bridge.ready => Err(self.bridge.not_running()),
            _ => Err(datatype::invalid(handle)),
        }
    }

    /// The host address of a guest buffer of `count` elements of `dt`, after
    /// checking every byte MPI touches (the datatype's hull, `DatatypeEntry::hull`).
    /// MPI_IN_PLACE is not a buffer: arguments that accept it test for it
    /// before translating (`in_place_arg`).
    #[inline]
    pub fn buffer(&self, ptr: u32, count: i64, dt: &DatatypeEntry) -> MpiResult<*mut u8> {
        self.not_in_place(ptr)?;
        dt.check_committed()?;
        datatype::check_count(count)?;
        self.hull_at(ptr, dt.hull(count))
    }

    /// Checks guest bytes `ptr + [lo, hi)` and returns the host address of
    /// `ptr`; an empty hull touches nothing, so any `ptr` will do.
    fn hull_at(&self, ptr: u32, (lo, hi): (i128, i128)) -> MpiResult<*mut u8> {
        if lo >= hi {
            return Ok(self.mem.unchecked_empty(ptr));
        }
        // no wasm32 memory reaches past 4 GiB: anything beyond fails here,
        // and what passes fits the 64-bit check below without overflow
        let (start, end) = (ptr as i128 + lo, ptr as i128 + hi);
        if start < 0 || end > 1 << 32 {
            return Err(MpiError::new(
                abi::c::MPI_ERR_BUFFER,
                format!("buffer bytes [{start:#x}, {end:#x}) relative to guest address {ptr:#x} lie outside the guest memory"),
            ));
        }
        Ok(self.mem.span(ptr, lo as i64, (hi - lo) as u64)?)
    }

    /// MPI_IN_PLACE in an argument that does not accept it is an error.
    #[inline]
    pub fn not_in_place(&self, ptr: u32) -> MpiResult {
        if ptr == abi::c::MPI_IN_PLACE as u32 {
            return Err(MpiError::new(abi::c::MPI_ERR_BUFFER, "MPI_IN_PLACE is not valid for this argument"));
        }
        Ok(())
    }

    /// Whether buffer argument `ptr` is MPI_IN_PLACE, for an argument that
    /// accepts it where `allowed` holds (the standard's rule for this
    /// argument at this rank); MPI_IN_PLACE elsewhere is an error.
    #[inline]
    pub fn in_place_arg(&self, ptr: u32, allowed: bool) -> MpiResult<bool> {
        if ptr != abi::c::MPI_IN_PLACE as u32 {
            return Ok(false);
        }
        if !allowed {
            return Err(MpiError::new(abi::c::MPI_ERR_BUFFER, "MPI_IN_PLACE is not valid for this argument at this rank"));
        }
        Ok(true)
    }

    /// A destination/source rank: ranks pass through, the standard ABI's
    /// special values become the host's, other negative values are errors
    /// (they could alias a host special value).
    #[inline]
    pub fn rank(&self, rank: i32, allow_any: bool) -> MpiResult<i32> {
        if rank >= 0 {
            return Ok(rank);
        }
        let s = &self.bridge.specials;
        match rank {
            abi::c::MPI_PROC_NULL => Ok(s.proc_null),
            abi::c::MPI_ANY_SOURCE if allow_any => Ok(s.any_source),
            abi::c::MPI_ROOT => Ok(s.root),
            _ => Err(MpiError::new(abi::c::MPI_ERR_RANK, format!("invalid rank {rank}"))),
        }
    }

    #[inline]
    pub fn tag(&self, tag: i32, allow_any: bool) -> MpiResult<i32> {
        match tag {
            t if t >= 0 => Ok(t),
            abi::c::MPI_ANY_TAG if allow_any => Ok(self.bridge.specials.any_tag),
            _ => Err(MpiError::new(abi::c::MPI_ERR_TAG, format!("invalid tag {tag}"))),
        }
    }

    pub fn rank_out(&self, rank: i32) -> i32 {
        let s = &self.bridge.specials;
        match rank {
            r if r >= 0 => r,
            r if r == s.any_source => abi::c::MPI_ANY_SOURCE,
            r if r == s.proc_null => abi::c::MPI_PROC_NULL,
            r if r == s.root => abi::c::MPI_ROOT,
            r => r,
        }
    }

    /// Checks a status pointer before the operation that will fill it.
    #[inline]
    pub fn check_status_ptr(&self, ptr: u32) -> MpiResult {
        if ptr != abi::c::MPI_STATUS_IGNORE as u32 {
            self.mem.range(ptr, abi::STATUS_SIZE as u64)?;
        }
        Ok(())
    }

    /// Writes a host status to guest address `ptr` (0 = MPI_STATUS_IGNORE).
    pub fn write_status(&self, ptr: u32, host: &host_mpi::Status) -> MpiResult {
        if ptr == abi::c::MPI_STATUS_IGNORE as u32 {
            return Ok(());
        }
        let map = self.bridge.status.as_ref().ok_or_else(|| self.bridge.not_running())?;
        let bytes = unsafe {
            std::slice::from_raw_parts(host as *const _ as *const u8, std::mem::size_of::<host_mpi::Status>())
        };
        let p = map.host_public(bytes);
        let tag = if p.tag == self.bridge.specials.any_tag { abi::c::MPI_ANY_TAG } else { p.tag };
        let error = if p.error == host_mpi::SUCCESS { 0 } else { self.bridge.guest_error_class(p.error) };
        let guest = map.to_guest(bytes, Public { source: self.rank_out(p.source), tag, error });
        Ok(self.mem.write_bytes(ptr, &guest)?)
    }
}

/// The standard ABI's special ranks/tags against the host's (Open MPI and
/// MPICH number them differently from the guest), and string outputs.
#[cfg(test)]
mod special_value_tests {
    use super::*;

    fn with_ctx(mem: &mut [u8], f: impl FnOnce(&Ctx)) {
        let mut bridge = Bridge::new();
        let host = host_mpi::constants();
        bridge.specials = Specials {
            any_source: host.int("MPI_ANY_SOURCE"),
            proc_null: host.int("MPI_PROC_NULL"),
            root: host.int("MPI_ROOT"),
            any_tag: host.int("MPI_ANY_TAG"),
            undefined: host.int("MPI_UNDEFINED"),
        };
        bridge.status = Some(StatusMap::new(host.status));
        let cx = Ctx::for_test(unsafe { GuestMemory::from_raw(mem.as_mut_ptr(), mem.len() as u64) }, &mut bridge);
        f(&cx);
    }

    #[test]
    fn special_ranks_become_the_hosts_and_come_back_as_the_guests() {
        let host = host_mpi::constants();
        with_ctx(&mut [0u8; 16], |cx| {
            assert_eq!(cx.rank(0, false).unwrap(), 0);
            assert_eq!(cx.rank(i32::MAX, false).unwrap(), i32::MAX);
            assert_eq!(cx.rank(abi::c::MPI_PROC_NULL, false).unwrap(), host.int("MPI_PROC_NULL"));
            assert_eq!(cx.rank(abi::c::MPI_ROOT, false).unwrap(), host.int("MPI_ROOT"));
            assert_eq!(cx.rank(abi::c::MPI_ANY_SOURCE, true).unwrap(), host.int("MPI_ANY_SOURCE"));
            // ANY_SOURCE only where the call accepts it
            assert_eq!(cx.rank(abi::c::MPI_ANY_SOURCE, false).unwrap_err().class, abi::c::MPI_ERR_RANK);
            for special in [abi::c::MPI_PROC_NULL, abi::c::MPI_ROOT, abi::c::MPI_ANY_SOURCE] {
                assert_eq!(cx.rank_out(cx.rank(special, true).unwrap()), special);
            }
            assert_eq!(cx.rank_out(7), 7);
        });
    }

    #[test]
    fn other_negative_ranks_and_tags_are_errors_even_when_they_are_host_specials() {
        let host = host_mpi::constants();
        let guest = [abi::c::MPI_ANY_SOURCE, abi::c::MPI_PROC_NULL, abi::c::MPI_ROOT];
        with_ctx(&mut [0u8; 16], |cx| {
            // a host special value the guest ABI does not give that meaning must not pass through
            for v in [-5, i32::MIN, host.int("MPI_ANY_SOURCE"), host.int("MPI_PROC_NULL"), host.int("MPI_ROOT")] {
                if !guest.contains(&v) {
                    assert_eq!(cx.rank(v, true).unwrap_err().class, abi::c::MPI_ERR_RANK, "rank {v}");
                }
            }
            assert_eq!(cx.tag(0, false).unwrap(), 0);
            assert_eq!(cx.tag(abi::c::MPI_ANY_TAG, true).unwrap(), host.int("MPI_ANY_TAG"));
            assert_eq!(cx.tag(abi::c::MPI_ANY_TAG, false).unwrap_err().class, abi::c::MPI_ERR_TAG);
            for t in [-1, -3, i32::MIN, host.int("MPI_ANY_TAG")] {
                if t != abi::c::MPI_ANY_TAG {
                    assert_eq!(cx.tag(t, true).unwrap_err().class, abi::c::MPI_ERR_TAG, "tag {t}");
                }
            }
        });
    }

    #[test]
    fn rank_results_translate_undefined_and_proc_null() {
        let host = host_mpi::constants();
        let mut mem = [0u8; 16];
        with_ctx(&mut mem, |cx| {
            cx.write_rank(0, host.int("MPI_UNDEFINED")).unwrap();
            cx.write_rank(4, host.int("MPI_PROC_NULL")).unwrap();
            cx.write_rank(8, 3).unwrap();
            assert_eq!(cx.write_rank(13, 3).unwrap_err().class, abi::c::MPI_ERR_BUFFER);
        });
        let ints: Vec<i32> = mem.chunks(4).map(|c| i32::from_le_bytes(c.try_into().unwrap())).collect();
        assert_eq!(ints, [abi::c::MPI_UNDEFINED, abi::c::MPI_PROC_NULL, 3, 0]);
    }

    #[test]
    fn statuses_carry_the_guests_special_source_and_tag() {
        let host = host_mpi::constants();
        let mut st: host_mpi::Status = unsafe { std::mem::zeroed() };
        let bytes = unsafe {
            std::slice::from_raw_parts_mut(&mut st as *mut _ as *mut u8, std::mem::size_of::<host_mpi::Status>())
        };
        bytes[host.status.source..host.status.source + 4].copy_from_slice(&host.int("MPI_PROC_NULL").to_ne_bytes());
        bytes[host.status.tag..host.status.tag + 4].copy_from_slice(&host.int("MPI_ANY_TAG").to_ne_bytes());
        let mut mem = [0u8; 40];
        with_ctx(&mut mem, |cx| {
            cx.write_status(abi::c::MPI_STATUS_IGNORE as u32, &st).unwrap();
            cx.write_status(4, &st).unwrap();
            // a status that would end past memory: an error, not a partial write
            assert_eq!(cx.write_status(16, &st).unwrap_err().class, abi::c::MPI_ERR_BUFFER);
        });
        let int = |at: usize| i32::from_le_bytes(mem[at..at + 4].try_into().unwrap());
        assert_eq!((int(4), int(8), int(12)), (abi::c::MPI_PROC_NULL, abi::c::MPI_ANY_TAG, 0));
        assert_eq!(&mem[36..40], &[0; 4]);
    }

    #[test]
    fn string_outputs_are_truncated_to_max_with_their_nul() {
        let mut mem = [0xaau8; 32];
        with_ctx(&mut mem, |cx| {
            cx.write_string(0, 28, "abcdefgh", 5).unwrap();
            // a buffer running past the end of memory: an error, nothing written
            assert_eq!(cx.write_string(30, 24, "abc", 8).unwrap_err().class, abi::c::MPI_ERR_BUFFER);
            assert_eq!(cx.write_string(8, 30, "abc", 8).unwrap_err().class, abi::c::MPI_ERR_BUFFER);
        });
        assert_eq!(&mem[0..6], b"abcd\0\xaa"); // max 5: 4 characters and the NUL, nothing more
        assert_eq!(i32::from_le_bytes(mem[28..32].try_into().unwrap()), 4);
        assert_eq!(&mem[8..12], &[0xaa; 4]);
        assert_eq!(&mem[24..28], &[0xaa; 4]);
    }

    #[test]
    fn string_inputs_stop_at_max_and_at_the_end_of_memory() {
        let mut mem = [b'x'; 16];
        mem[4] = 0;
        with_ctx(&mut mem, |cx| {
            assert_eq!(cx.cstr(0, 4).unwrap().as_bytes(), b"xxxx");
            assert_eq!(cx.cstr(0, 3).unwrap_err().class, abi::c::MPI_ERR_ARG);
            // no NUL before the end of memory
            assert_eq!(cx.cstr(5, 64).unwrap_err().class, abi::c::MPI_ERR_BUFFER);
            assert_eq!(cx.cstr(u32::MAX, 64).unwrap_err().class, abi::c::MPI_ERR_BUFFER);
        });
    }
}

/// Translation helpers used by the generated functions (`generated.rs`) and
/// the hand-written families.
impl Ctx<'_> {
    /// Checks `count` elements of `dt` that start `offset` bytes from `ptr`
    /// (a w-collective block; `offset` may be negative).
    pub fn block(&self, ptr: u32, offset: i64, count: i64, dt: &DatatypeEntry) -> MpiResult {
        self.not_in_place(ptr)?;
        dt.check_committed()?;
        datatype::check_count(count)?;
        let (lo, hi) = dt.hull(count);
        self.hull_at(ptr, (offset as i128 + lo, offset as i128 + hi))?;
        Ok(())
    }

    /// A v-collective buffer: rank i's block holds counts[i] elements at
    /// displs[i] extents from `ptr` (either sign); the hull of all blocks is
    /// checked.
    pub fn vbuffer(&self, ptr: u32, counts: u32, displs: u32, n: i64, dt: &DatatypeEntry) -> MpiResult<*mut u8> {
        self.not_in_place(ptr)?;
        dt.check_committed()?;
        let (counts, displs) = (self.ints(counts, n)?, self.ints(displs, n)?);
        self.hull_at(ptr, vhull(counts.zip(displs), dt)?)
    }
    /// `n` guest ints at `ptr`, checked, read one by one (unaligned).
    fn ints(&self, ptr: u32, n: i64) -> MpiResult<impl Iterator<Item = i32> + '_> {
        let base = self.mem.range(ptr, n.max(0) as u64 * 4)? as *const i32;
        Ok((0..n.max(0) as usize).map(move |i| unsafe { base.add(i).read_unaligned() }))
    }

    /// A guest int array (counts, displacements, ranks) for the host: a host
    /// copy, never the guest's memory, because guest code can run while the
    /// host still reads the array — a user reduction function in the middle
    /// of MPI_Reduce_scatter (Open MPI reads `recvcounts` again after it), or
    /// anything before a nonblocking operation completes — and the buffers
    /// were checked against the values read now.
    pub fn int_array(&mut self, ptr: u32, n: i64) -> MpiResult<*const i32> {
        let copy: Box<[i32]> = self.ints(ptr, n)?.collect();
        let p = copy.as_ptr();
        self.arrays.push(copy); // a Box's contents never move
        Ok(p)
    }

    /// A guest int array the host writes (results, no guest code runs
    /// meanwhile): checked and handed over in place.
    #[inline]
    pub fn int_array_out(&self, ptr: u32, n: i64) -> MpiResult<*mut i32> {
        Ok(self.mem.range(ptr, n.max(0) as u64 * 4)? as *mut i32)
    }

    pub fn sum_ints(&self, ptr: u32, n: i64) -> MpiResult<i64> {
        Ok(self.ints(ptr, n)?.map(i64::from).sum())
    }

    pub fn int_at(&self, ptr: u32, index: i32) -> MpiResult<i32> {
        Ok(self.mem.read_i32(ptr.wrapping_add(4 * index as u32))?)
    }

    /// The host's MPI_UNDEFINED.
    pub fn undefined(&self) -> i32 {
        self.bridge.specials.undefined
    }

    #[inline]
    pub fn in_place(&self) -> *mut u8 {
        self.bridge.in_place as *mut u8
    }

    /// A datatype argument MPI ignores at this rank: the host type if the
    /// handle is valid (some MPIs check it anyway), else the null type.
    #[inline]
    pub fn datatype_or_null(&self, handle: i32) -> host_mpi::ffi::MPI_Datatype {
        self.datatype(handle).map_or(host_mpi::null_datatype().0, |d| d.host.0)
    }

    #[inline]
    pub fn op(&self, handle: i32) -> MpiResult<host_mpi::Op> {
        match self.bridge.ops.get(handle) {
            Some(op) if self.bridge.ready => Ok(*op),
            _ if !self.bridge.ready => Err(self.bridge.not_running()),
            _ => Err(MpiError::new(abi::c::MPI_ERR_OP, format!("invalid operation handle {handle:#x}"))),
        }
    }

    /// Writes an output integer (flag, count, size) to the guest.
    pub fn write_int<T: Copy + Into<i64>>(&self, ptr: u32, value: T) -> MpiResult {
        let bytes = value.into().to_le_bytes();
        Ok(self.mem.write_bytes(ptr, &bytes[..std::mem::size_of::<T>()])?)
    }

    /// A guest-owned status as a host status (MPI_Get_count and friends).
    pub fn read_status(&self, ptr: u32) -> MpiResult<host_mpi::Status> {
        let p = self.mem.range(ptr, abi::STATUS_SIZE as u64)?;
        let mut guest = [0u8; abi::STATUS_SIZE];
        unsafe { std::ptr::copy_nonoverlapping(p, guest.as_mut_ptr(), abi::STATUS_SIZE) };
        let map = self.bridge.status.as_ref().ok_or_else(|| self.bridge.not_running())?;
        let field = |i: usize| i32::from_le_bytes(guest[i * 4..i * 4 + 4].try_into().unwrap());
        let s = &self.bridge.specials;
        let source = match field(0) {
            abi::c::MPI_ANY_SOURCE => s.any_source,
            abi::c::MPI_PROC_NULL => s.proc_null,
            r => r,
        };
        let tag = if field(1) == abi::c::MPI_ANY_TAG { s.any_tag } else { field(1) };
        let mut host = host_mpi::empty_status();
        let bytes = unsafe {
            std::slice::from_raw_parts_mut(&mut host as *mut _ as *mut u8, std::mem::size_of::<host_mpi::Status>())
        };
        map.to_host(&guest, Public { source, tag, error: 0 }, bytes);
        Ok(host)
    }

    /// Records a new host request and writes its guest handle.
    pub fn out_request(&mut self, ptr: u32, host: host_mpi::Request, persistent: bool) -> MpiResult {
        let handle = if host_mpi::is_null_request(host) {
            abi::c::MPI_REQUEST_NULL
        } else {
            let entry = self.request_entry(host, persistent);
            self.bridge.requests.insert(entry)
        };
        Ok(self.mem.write_i32(ptr, handle)?)
    }

    /// The entry for a new host request; it keeps the host copies of this
    /// call's int arrays alive until the request is freed.
    pub fn request_entry(&mut self, host: host_mpi::Request, persistent: bool) -> RequestEntry {
        let comm = self.bridge.comms.get(self.comm).map_or(host_mpi::null_communicator(), |c| c.host);
        let collective = nonblocking_collective(self.function);
        let arrays = std::mem::take(&mut self.arrays);
        RequestEntry { host, persistent, active: !persistent, comm, collective, cancelled: false, new_comm: None, keep: None, arrays }
    }

    #[inline]
    pub fn request(&self, handle: i32) -> MpiResult<host_mpi::Request> {
        match self.bridge.requests.get(handle) {
            Some(r) => Ok(r.host),
            None => Err(MpiError::new(abi::c::MPI_ERR_REQUEST, format!("invalid request handle {handle:#x}"))),
        }
    }

    pub fn out_message(&mut self, ptr: u32, host: host_mpi::Message) -> MpiResult {
        let handle = if host.0 == host_mpi::null_message().0 {
            abi::c::MPI_MESSAGE_NULL
        } else if host.0 == host_mpi::message_no_proc().0 {
            abi::c::MPI_MESSAGE_NO_PROC
        } else {
            self.bridge.messages.insert(host)
        };
        Ok(self.mem.write_i32(ptr, handle)?)
    }

    /// The message a guest handle at `ptr` names (MPI_Mrecv consumes it).
    pub fn message(&self, ptr: u32) -> MpiResult<host_mpi::Message> {
        let handle = self.mem.read_i32(ptr)?;
        self.bridge
            .messages
            .get(handle)
            .copied()
            .ok_or_else(|| MpiError::new(abi::c::MPI_ERR_REQUEST, format!("invalid message handle {handle:#x}")))
    }

    /// After MPI_Mrecv/Imrecv, successful or not: once the host has taken
    /// the message (it nulls its handle, also when the receive then fails,
    /// e.g. truncated) the guest's handle is gone; a second use of it was a
    /// use after free in Open MPI.
    pub fn done_message(&mut self, ptr: u32, host: host_mpi::Message) -> MpiResult {
        if host.0 != host_mpi::null_message().0 {
            return Ok(()); // refused before the host took it: still valid
        }
        let handle = self.mem.read_i32(ptr)?;
        if handle >= crate::handles::USER_BASE {
            self.bridge.messages.remove(handle);
        }
        Ok(self.mem.write_i32(ptr, abi::c::MPI_MESSAGE_NULL)?)
    }
}

/// Communicators, groups and infos made by the bridge.
impl Ctx<'_> {
    /// A communicator argument MPI may ignore (peer_comm at non-leaders):
    /// MPI_COMM_NULL passes through as the host's.
    pub fn comm_or_null(&self, handle: i32) -> MpiResult<host_mpi::ffi::MPI_Comm> {
        if handle == abi::c::MPI_COMM_NULL {
            return Ok(host_mpi::null_communicator().0);
        }
        Ok(self.comm(handle)?.host.0)
    }

    /// Records a new communicator (inheriting its parent's error handler,
    /// as MPI does) and writes its guest handle; MPI_COMM_NULL stays null.
    pub fn out_comm(&mut self, ptr: u32, host: host_mpi::Comm, parent: i32) -> MpiResult {
        let handle = if host.0 == host_mpi::null_communicator().0 {
            abi::c::MPI_COMM_NULL
        } else {
            let errhandler = self.bridge.inherit_errhandler(parent);
            self.bridge.comms.insert(CommEntry::new(host, errhandler))
        };
        Ok(self.mem.write_i32(ptr, handle)?)
    }

    pub fn group(&self, handle: i32) -> MpiResult<host_mpi::Group> {
        self.require_running()?;
        self.bridge
            .groups
            .get(handle)
            .copied()
            .ok_or_else(|| MpiError::new(abi::c::MPI_ERR_GROUP, format!("invalid group handle {handle:#x}")))
    }

    pub fn out_group(&mut self, ptr: u32, host: host_mpi::Group) -> MpiResult {
        let handle = if host.0 == host_mpi::null_group().0 {
            abi::c::MPI_GROUP_NULL
        } else if host.0 == host_mpi::group_empty().0 {
            abi::c::MPI_GROUP_EMPTY
        } else {
            self.bridge.groups.insert(host)
        };
        Ok(self.mem.write_i32(ptr, handle)?)
    }

    pub fn info(&self, handle: i32) -> MpiResult<host_mpi::Info> {
        self.require_running()?;
        self.bridge
            .infos
            .get(handle)
            .copied()
            .ok_or_else(|| MpiError::new(abi::c::MPI_ERR_INFO, format!("invalid info handle {handle:#x}")))
    }

    pub fn out_info(&mut self, ptr: u32, host: host_mpi::Info) -> MpiResult {
        let handle = if host.0 == host_mpi::null_info().0 { abi::c::MPI_INFO_NULL } else { self.bridge.infos.insert(host) };
        Ok(self.mem.write_i32(ptr, handle)?)
    }

    /// A split color: MPI_UNDEFINED is the host's.
    pub fn color(&self, color: i32) -> i32 {
        if color == abi::c::MPI_UNDEFINED { self.undefined() } else { color }
    }

    pub fn split_type(&self, t: i32) -> MpiResult<i32> {
        match t {
            abi::c::MPI_COMM_TYPE_SHARED => Ok(host_mpi::constants().int("MPI_COMM_TYPE_SHARED")),
            abi::c::MPI_UNDEFINED => Ok(self.undefined()),
            _ => Err(MpiError::new(abi::c::MPI_ERR_ARG, format!("unsupported split type {t}"))),
        }
    }

    /// A rank result: MPI_UNDEFINED and MPI_PROC_NULL become the guest's.
    pub fn write_rank(&self, ptr: u32, rank: i32) -> MpiResult {
        let r = if rank == self.undefined() { abi::c::MPI_UNDEFINED } else { self.rank_out(rank) };
        Ok(self.mem.write_i32(ptr, r)?)
    }

    /// MPI_IDENT/CONGRUENT/SIMILAR/UNEQUAL, by name.
    pub fn write_comparison(&self, ptr: u32, host_value: i32) -> MpiResult {
        let host = host_mpi::constants();
        let name = ["MPI_IDENT", "MPI_CONGRUENT", "MPI_SIMILAR", "MPI_UNEQUAL"]
            .into_iter()
            .find(|n| host.int(n) == host_value)
            .ok_or_else(|| MpiError::new(abi::c::MPI_ERR_INTERN, format!("unknown comparison result {host_value}")))?;
        Ok(self.mem.write_i32(ptr, abi::value_of(name).unwrap())?)
    }
}

/// Strings.
impl Ctx<'_> {
    /// A NUL-terminated guest string of at most `max` bytes before the NUL.
    pub fn cstr(&self, ptr: u32, max: usize) -> MpiResult<std::ffi::CString> {
        let mut bytes = Vec::new();
        for i in 0..=max as u32 {
            let b = self.mem.range(ptr.wrapping_add(i), 1).map_err(MpiError::from)?;
            let b = unsafe { *b };
            if b == 0 {
                return Ok(std::ffi::CString::new(bytes).expect("no interior NUL"));
            }
            bytes.push(b);
        }
        Err(MpiError::new(abi::c::MPI_ERR_ARG, format!("string at {ptr:#x} is longer than {max} bytes")))
    }

    /// A NUL-terminated string of at most `max` bytes (terminator included)
    /// and its length, as MPI's string outputs are.
    pub fn write_string(&self, buf: u32, len: u32, text: &str, max: i32) -> MpiResult {
        let mut bytes = text.as_bytes()[..text.len().min(max as usize - 1)].to_vec();
        let n = bytes.len() as i32;
        bytes.push(0);
        self.mem.range(len, 4)?;
        self.mem.write_bytes(buf, &bytes)?;
        Ok(self.mem.write_i32(len, n)?)
    }
}

/// The hull of a v-collective's blocks: `(count, displacement)` pairs, a
/// block being `count` elements of `dt` at `displacement` extents.
fn vhull(blocks: impl Iterator<Item = (i32, i32)>, dt: &DatatypeEntry) -> MpiResult<(i128, i128)> {
    let (mut lo, mut hi) = (i128::MAX, i128::MIN);
    for (c, d) in blocks {
        datatype::check_count(c as i64)?;
        let (l, h) = dt.hull(c as i64);
        if l < h {
            let at = d as i128 * dt.extent as i128;
            (lo, hi) = (lo.min(at + l), hi.max(at + h));
        }
    }
    Ok(if lo < hi { (lo, hi) } else { (0, 0) })
}

#[cfg(test)]
mod span_tests {
    use super::*;

    const SIZE: usize = 64 * 1024;

    fn int(extent: i64) -> DatatypeEntry {
        DatatypeEntry { host: host_mpi::constants().datatypes["MPI_INT"], extent, true_lb: 0, true_extent: 4, committed: true }
    }

    fn with_ctx(f: impl FnOnce(&Ctx)) {
        let mut buf = vec![0u8; SIZE];
        let mem = unsafe { GuestMemory::from_raw(buf.as_mut_ptr(), SIZE as u64) };
        let mut bridge = Bridge::new();
        f(&Ctx::for_test(mem, &mut bridge));
    }

    fn class<T>(r: MpiResult<T>) -> i32 {
        r.err().map_or(abi::c::MPI_SUCCESS, |e| e.class)
    }

    #[test]
    fn negative_extents_are_checked_below_the_pointer() {
        with_ctx(|cx| {
            let down = int(-4);
            // elements at 8, 4, 0: inside
            assert!(cx.buffer(8, 3, &down).is_ok());
            // a fourth element would be at -4
            assert_eq!(class(cx.buffer(8, 4, &down)), abi::c::MPI_ERR_BUFFER);
            // near address 0 with many elements (the old span shrank to nothing)
            assert_eq!(class(cx.buffer(16, 1 << 20, &down)), abi::c::MPI_ERR_BUFFER);
            // the top end is checked as well
            assert!(cx.buffer((SIZE - 4) as u32, 2, &down).is_ok());
            assert_eq!(class(cx.buffer((SIZE - 3) as u32, 2, &down)), abi::c::MPI_ERR_BUFFER);
        });
    }

    #[test]
    fn hulls_past_4_gib_or_at_the_64_bit_extremes_are_refused() {
        with_ctx(|cx| {
            let huge = DatatypeEntry { extent: i64::MAX, true_lb: i64::MAX, true_extent: i64::MAX, ..int(4) };
            assert_eq!(class(cx.buffer(0, i64::MAX, &huge)), abi::c::MPI_ERR_BUFFER);
            let low = DatatypeEntry { extent: i64::MIN, true_lb: i64::MIN, true_extent: 1, ..int(4) };
            assert_eq!(class(cx.buffer(u32::MAX, 2, &low)), abi::c::MPI_ERR_BUFFER);
            assert_eq!(class(cx.buffer(0, 1 << 31, &int(4))), abi::c::MPI_ERR_BUFFER);
        });
    }

    #[test]
    fn blocks_with_negative_offsets_are_checked_where_they_lie() {
        with_ctx(|cx| {
            assert!(cx.block(64, -64, 16, &int(4)).is_ok());
            assert_eq!(class(cx.block(64, -68, 1, &int(4))), abi::c::MPI_ERR_BUFFER);
            // a negative extent and a negative offset add up
            assert!(cx.block(64, -56, 3, &int(-4)).is_ok());
            assert_eq!(class(cx.block(64, -60, 3, &int(-4))), abi::c::MPI_ERR_BUFFER);
            assert_eq!(class(cx.block(64, i64::MIN, 1, &int(4))), abi::c::MPI_ERR_BUFFER);
            assert!(cx.block(64, i64::MIN, 0, &int(4)).is_ok()); // nothing touched
        });
    }

    #[test]
    fn v_hull_spans_every_block_for_any_sign_of_displacement_and_extent() {
        let up = int(4);
        assert_eq!(vhull([(2, 0), (1, 5)].into_iter(), &up).unwrap(), (0, 24));
        assert_eq!(vhull([(1, -3), (0, -1000), (2, 1)].into_iter(), &up).unwrap(), (-12, 12));
        // negative extent: displacement 2 is 8 bytes below, 3 elements go down 8 more
        let down = int(-4);
        assert_eq!(vhull([(3, 2), (1, -1)].into_iter(), &down).unwrap(), (-16, 8));
        assert_eq!(vhull([(0, 7), (0, -7)].into_iter(), &down).unwrap(), (0, 0));
        assert_eq!(class(vhull([(1, 0), (-1, 0)].into_iter(), &up)), abi::c::MPI_ERR_COUNT);
        // the extremes stay exact in i128
        let far = DatatypeEntry { extent: i64::MIN, ..up };
        let (lo, _) = vhull([(i32::MAX, i32::MAX)].into_iter(), &far).unwrap();
        assert_eq!(lo, (i32::MAX as i128 + i32::MAX as i128 - 1) * i64::MIN as i128);
    }

    #[test]
    fn in_place_is_refused_as_a_buffer_and_accepted_only_where_allowed() {
        with_ctx(|cx| {
            let ip = abi::c::MPI_IN_PLACE as u32;
            assert_eq!(class(cx.buffer(ip, 0, &int(4))), abi::c::MPI_ERR_BUFFER);
            assert_eq!(class(cx.block(ip, 0, 1, &int(4))), abi::c::MPI_ERR_BUFFER);
            assert!(cx.in_place_arg(ip, true).unwrap());
            assert_eq!(class(cx.in_place_arg(ip, false)), abi::c::MPI_ERR_BUFFER);
            assert!(!cx.in_place_arg(64, false).unwrap());
        });
    }
}

#[cfg(test)]
mod int_array_tests {
    use super::*;

    #[test]
    fn requests_know_which_calls_are_nonblocking_collectives() {
        for f in ["MPI_Ibarrier", "MPI_Iallreduce", "MPI_Ineighbor_alltoallw", "MPI_Iscatterv", "MPI_Comm_idup"] {
            assert!(nonblocking_collective(f), "{f}");
        }
        for f in ["MPI_Isend", "MPI_Ibsend", "MPI_Issend", "MPI_Irsend", "MPI_Irecv", "MPI_Imrecv", "MPI_Send_init", "MPI_Grequest_start"] {
            assert!(!nonblocking_collective(f), "{f}");
        }
    }

    #[test]
    fn input_arrays_are_host_copies_that_a_request_keeps() {
        let mut buf = vec![0u8; 256];
        let mut bridge = Bridge::new();
        let mut cx = Ctx::for_test(unsafe { GuestMemory::from_raw(buf.as_mut_ptr(), 256) }, &mut bridge);
        cx.mem.write_bytes(16, &[1, 0, 0, 0, 2, 0, 0, 0]).unwrap();
        let copy = cx.int_array(16, 2).unwrap();
        // the guest rewrites its array after the call: the host still sees
        // the values the buffers were checked against
        cx.mem.write_i32(16, 1 << 20).unwrap();
        assert_eq!(unsafe { [*copy, *copy.add(1)] }, [1, 2]);
        assert!(cx.int_array(252, 2).is_err(), "checked like any guest range");
        let entry = cx.request_entry(host_mpi::null_request(), false);
        assert_eq!(entry.arrays.len(), 1);
        assert!(cx.arrays.is_empty(), "the request took them");
        assert_eq!(unsafe { *entry.arrays[0].as_ptr() }, 1);
        // outputs stay in place
        assert_eq!(cx.int_array_out(16, 2).unwrap() as usize, cx.mem.range(16, 8).unwrap() as usize);
    }
}
