//! Per-instance bridge state: the guest's communicators, requests,
//! datatypes and error handlers, the host's special values, and the
//! communicators being freed.
use std::collections::HashMap;

use super::{
    attr,
    datatype::{self, DatatypeEntry},
    errhandler::{self, ErrhandlerEntry},
    errors::{MpiError, MpiResult},
    status::StatusMap,
};
use crate::{abi, handles::Table, host_mpi};

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
    /// This process is its own neighbour in the communicator's topology
    /// (`topo::neighbourhood`): the neighbourhood collectives of every
    /// other communicator skip that check.
    pub own_neighbor: bool,
    /// It is its own neighbour more often as a source than as a
    /// destination or the reverse: an inconsistent graph (MPI-4.1 8.5.4),
    /// on which a neighbourhood collective waits for ever for a block it
    /// never sends itself (MPICH, natively too).
    pub own_unbalanced: bool,
    /// This rank's (in-degree, out-degree) in the topology; `None` (no
    /// topology, or the host could not say) asks the host at each call.
    pub degrees: Option<(i32, i32)>,
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
        // a topology the host cannot describe is checked at every call
        let (own_neighbor, own_unbalanced, degrees) = match super::topo::neighbourhood(host, rank) {
            Ok(n) => (!n.to_self.is_empty() || !n.from_self.is_empty(), n.to_self.len() != n.from_self.len(), n.degrees),
            Err(_) => (true, false, None),
        };
        Self { host, errhandler, rank, inter: inter != 0, peers: peers as i64, local: local as i64, own_neighbor, own_unbalanced, degrees }
    }

    /// A handle whose host communicator is filled in later (MPI_Comm_idup).
    pub fn pending(errhandler: i32) -> Self {
        Self { host: host_mpi::null_communicator(), errhandler, rank: 0, inter: false, peers: 0, local: 0, own_neighbor: false, own_unbalanced: false, degrees: None }
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
pub(super) struct Specials {
    pub(super) any_source: i32,
    pub(super) proc_null: i32,
    pub(super) root: i32,
    pub(super) any_tag: i32,
    pub(super) undefined: i32,
}

impl Specials {
    /// A host rank as the guest sees it.
    #[inline]
    pub(super) fn rank_out(&self, rank: i32) -> i32 {
        match rank {
            r if r >= 0 => r,
            r if r == self.any_source => abi::c::MPI_ANY_SOURCE,
            r if r == self.proc_null => abi::c::MPI_PROC_NULL,
            r if r == self.root => abi::c::MPI_ROOT,
            r => r,
        }
    }
}

/// A host request and what the guest handle must do when it completes.
/// Every nonblocking call makes one and every completion drops one, so it
/// holds what all requests need; the rest is boxed in `extra`.
#[derive(Debug)]
pub struct RequestEntry {
    pub host: host_mpi::Request,
    /// The host communicator the operation runs on: freed by the guest, it
    /// stays allocated on the host until the operation is done (see
    /// `comm::close`).
    pub comm: host_mpi::Comm,
    /// The MPI function that made the request (`collective`).
    pub made_by: &'static str,
    /// Persistent requests stay allocated (inactive) after completion.
    pub persistent: bool,
    /// Started and not yet completed (always true for other requests):
    /// Open MPI crashes cancelling a persistent receive never started.
    pub active: bool,
    /// MPI_Cancel was called since the request was started.
    pub cancelled: bool,
    /// MPI_Psend_init/MPI_Precv_init: how many partitions (0: not partitioned).
    pub partitions: i32,
    /// A partitioned request with MPI_PROC_NULL as its peer, which the host
    /// holds as a persistent send or receive (`Ctx::set_partitions`).
    pub null_peer: bool,
    pub extra: Option<Box<RequestExtra>>,
}

/// What only some requests hold.
#[derive(Debug, Default)]
pub struct RequestExtra {
    /// MPI_Comm_idup: the host writes the new communicator here when the
    /// request completes; the guest handle then points at it.
    pub new_comm: Option<Box<PendingDup>>,
    /// Host arrays the operation reads until it completes (Ialltoallw's
    /// types, Ineighbor_alltoallw's widened displacements).
    #[allow(dead_code)] // held, never read: it only has to live
    pub keep: Option<Box<dyn std::any::Any>>,
    /// Host copies of the guest arrays (counts, displacements) the
    /// operation reads until it completes.
    #[allow(dead_code)] // held, never read: it only has to live
    pub(super) arrays: Vec<super::translate::arrays::HostArray>,
    /// MPI_Grequest_start: the guest's callbacks.
    pub grequest: Option<super::grequest::Grequest>,
    /// MPI_Session_iflush_buffer: the guest session whose buffer it
    /// flushes (`attached::finish_flushes`).
    pub session: Option<i32>,
    /// A nonblocking file operation: the guest file it works on
    /// (`Ctx::finish_file_requests`).
    pub file: Option<i32>,
    /// The user operation and derived datatypes a collective was made with
    /// (held.rs): freed by the guest, they stay on the host until then.
    #[allow(dead_code)] // held, never read: it only has to live
    pub held: Vec<std::rc::Rc<super::held::Held>>,
}

impl RequestEntry {
    /// An entry that holds no arrays (the bridge makes them through
    /// `Ctx::request_entry`, which cannot forget the call's arrays).
    #[cfg(test)]
    pub fn new(host: host_mpi::Request, persistent: bool) -> Self {
        let comm = host_mpi::null_communicator();
        Self { host, comm, made_by: "test", persistent, active: !persistent, cancelled: false, partitions: 0, null_peer: false, extra: None }
    }

    /// The host request a completion call (Wait, Test, their array forms,
    /// Request_get_status) hands the host: MPI_REQUEST_NULL for an inactive
    /// persistent request, which MPI-4.1 (3.7.3) says these calls treat as
    /// null. MPICH does not for a persistent collective never started: its
    /// MPI_Wait (4.0) and MPI_Waitall (4.0, 5.0) hang, its MPI_Test and
    /// MPI_Testall say not complete.
    /// The test is all the usual call pays: the null is looked up out of
    /// line.
    #[inline(always)]
    pub fn host_to_complete(&self) -> host_mpi::Request {
        #[cold]
        #[inline(never)]
        fn inactive() -> host_mpi::Request {
            host_mpi::null_request()
        }
        if self.active { self.host } else { inactive() }
    }

    /// Made by a nonblocking collective (which MPI_Request_free and
    /// MPI_Cancel may not take); asked only by those two.
    pub fn collective(&self) -> bool {
        super::call::nonblocking_collective(self.made_by)
    }

    /// The room for what only some requests hold.
    pub fn extra(&mut self) -> &mut RequestExtra {
        self.extra.get_or_insert_with(Default::default)
    }

    /// MPI_Grequest_start's callbacks, if this is a generalized request.
    pub fn grequest(&self) -> Option<super::grequest::Grequest> {
        self.extra.as_ref()?.grequest
    }

    pub fn grequest_mut(&mut self) -> Option<&mut super::grequest::Grequest> {
        self.extra.as_mut()?.grequest.as_mut()
    }

    /// An MPI_Comm_idup's request.
    pub fn is_idup(&self) -> bool {
        self.extra.as_ref().is_some_and(|x| x.new_comm.is_some())
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
    /// True while MPI may be called: between a successful MPI_Init and
    /// MPI_Finalize, or while a session is open.
    pub(super) ready: bool,
    /// True between a successful MPI_Init and MPI_Finalize (the world model).
    pub(super) world: bool,
    /// The translation tables below are built (at the first MPI_Init or
    /// MPI_Session_init, once: later ones keep the guest's objects).
    pub(super) tables: bool,
    /// The guest made a reduction function (MPI_Op_create): from then on
    /// every call publishes what the host MPI needs to run one
    /// (`callbacks::Active`); before, calls skip it.
    pub(super) user_functions: bool,
    /// The guest started a generalized request (MPI_Grequest_start): only
    /// then can a wait find one that could never complete.
    pub(super) grequests_started: bool,
    /// MPI-4.0 sessions (`session.rs`).
    pub sessions: Table<super::session::SessionEntry>,
    pub comms: Table<CommEntry>,
    pub datatypes: Table<DatatypeEntry>,
    /// Derived types' contents and names; names given to predefined types.
    pub type_meta: HashMap<i32, datatype::TypeMeta>,
    pub predefined_type_names: HashMap<i32, String>,
    /// Names given to MPI_COMM_WORLD and MPI_COMM_SELF (`comm::set_name`).
    pub predefined_comm_names: HashMap<i32, String>,
    pub ops: Table<host_mpi::Op>,
    /// User operation handle -> its trampoline slot.
    pub user_op_slots: HashMap<i32, usize>,
    /// User operations and derived datatypes that requests hold (held.rs).
    pub holds: super::held::Holds,
    /// Predefined operations on long double (binary128), made on first use.
    pub binary128_ops: super::binary128::HostOps,
    /// Generalized-request callbacks to run when the current call is done.
    pub grequests_owed: Vec<super::grequest::Owed>,
    pub attributes: attr::Attributes,
    pub requests: Table<RequestEntry>,
    pub(super) messages: Table<host_mpi::Message>,
    pub groups: Table<host_mpi::Group>,
    pub infos: Table<host_mpi::Info>,
    pub files: Table<super::file::FileEntry>,
    pub wins: Table<super::rma::WinEntry>,
    /// Access and exposure epochs this process opened and has not closed
    /// (MPI_Win_lock, _lock_all, _start, _post and their ends, counted as
    /// the host accepts them: generated/rma.rs), for `rma::free_left_windows`.
    pub open_epochs: i64,
    /// Karmem regions (`karmem.rs`).
    pub regions: Table<super::karmem::Region>,
    /// Guest pages that node segments used and gave back (`node_segment.rs`).
    pub segment_holes: super::node_segment::Holes,
    /// The error handler of MPI_FILE_NULL: what files get when opened, and
    /// what handles errors of MPI_File_open and MPI_File_delete.
    pub file_null_errhandler: i32,
    /// The guest's preopens, through which MPI-IO paths are resolved.
    pub preopens: crate::confined_fs::ConfinedFs,
    pub errhandlers: Table<ErrhandlerEntry>,
    pub user_errors: errhandler::UserErrors,
    /// Host address of MPI_IN_PLACE.
    pub(super) in_place: usize,
    /// Host value of MPI_STATUSES_IGNORE (0 on Open MPI, 1 on MPICH).
    pub(super) statuses_ignore: usize,
    /// Scratch for request and status arrays (reused: no allocation per call
    /// once warm; see `request::Scratch`).
    pub(super) request_scratch: Option<Box<super::request::Scratch>>,
    /// The host copies of guest arrays (`translate::arrays`): a stack whose
    /// first `arrays_used` entries belong to the calls under way (a call's
    /// from its `Ctx::arrays_base`), the rest spares that the next copy
    /// refills.
    pub(super) arrays: Vec<super::translate::arrays::HostArray>,
    pub(super) arrays_used: usize,
    /// Whether a copy in use has grown past what is kept as a spare
    /// (`translate::arrays`, `SPARE_MAX_LEN`).
    pub(super) arrays_oversized: bool,
    /// The buffer given to MPI_Buffer_attach (and the host's stand-in).
    pub attached: HashMap<super::attached::Scope, super::attached::Attached>,
    /// MPI_Abi_set_fortran_info/_booleans: what the program told MPI.
    pub fortran_abi: super::abi_info::FortranAbi,
    /// The guest's arguments (the program's name first), for MPI_INFO_ENV.
    pub guest_args: Vec<Vec<u8>>,
    /// Whether MPI_INFO_ENV is the guest's yet (`info::publish_environment`).
    pub env_info_published: bool,
    /// The last session was finalized with MPI_Init never called: the host
    /// library is down (MPI_Init would crash it, see `environment::init`).
    pub sessions_ended: bool,
    /// Freed by the guest, not yet by the host.
    pub closing: Vec<Closing>,
    pub(super) specials: Specials,
    pub(super) status: Option<StatusMap>,
    /// host error class -> standard-ABI error class
    pub(super) error_classes: HashMap<i32, i32>,
    /// The tool interface's handles (`tools.rs`).
    pub(super) tools: super::tools::Tools,
}

impl Bridge {
    pub fn new() -> Self {
        Self {
            ready: false,
            world: false,
            tables: false,
            user_functions: false,
            grequests_started: false,
            sessions: Table::new(abi::c::MPI_SESSION_NULL, 1),
            comms: Table::new(abi::c::MPI_COMM_NULL, 3),
            datatypes: Table::new(abi::c::MPI_DATATYPE_NULL, 0),
            type_meta: HashMap::new(),
            predefined_type_names: HashMap::new(),
            predefined_comm_names: HashMap::new(),
            ops: Table::new(abi::c::MPI_OP_NULL, 0x20),
            user_op_slots: HashMap::new(),
            holds: HashMap::new(),
            binary128_ops: Default::default(),
            grequests_owed: Vec::new(),
            attributes: attr::Attributes::new(),
            requests: Table::new(abi::c::MPI_REQUEST_NULL, 1),
            messages: Table::new(abi::c::MPI_MESSAGE_NULL, 2),
            groups: Table::new(abi::c::MPI_GROUP_NULL, 2),
            infos: Table::new(abi::c::MPI_INFO_NULL, 2),
            files: Table::new(abi::c::MPI_FILE_NULL, 0),
            wins: Table::new(abi::c::MPI_WIN_NULL, 0),
            open_epochs: 0,
            regions: Table::new(0, 0),
            segment_holes: Default::default(),
            file_null_errhandler: abi::c::MPI_ERRORS_RETURN,
            preopens: Default::default(),
            errhandlers: errhandler::predefined_table(),
            user_errors: Default::default(),
            in_place: 0,
            statuses_ignore: 0,
            request_scratch: None,
            arrays: Vec::new(),
            arrays_used: 0,
            arrays_oversized: false,
            attached: HashMap::new(),
            fortran_abi: Default::default(),
            guest_args: Vec::new(),
            env_info_published: false,
            sessions_ended: false,
            closing: Vec::new(),
            specials: Specials::default(),
            status: None,
            error_classes: HashMap::new(),
            tools: Default::default(),
        }
    }

    /// Builds the translation tables once the host MPI is initialized.
    pub fn on_init(&mut self) -> MpiResult {
        let host = host_mpi::constants();
        self.build_tables();
        for comm in [host.comm_world, host.comm_self] {
            // Errors come back to the bridge, which applies the guest's handler.
            self.check(host_mpi::comm_set_errhandler(comm, host.errors_return))?;
        }
        let fatal = abi::c::MPI_ERRORS_ARE_FATAL;
        self.comms.set_predefined(abi::c::MPI_COMM_WORLD, CommEntry::new(host.comm_world, fatal));
        self.comms.set_predefined(abi::c::MPI_COMM_SELF, CommEntry::new(host.comm_self, fatal));
        self.world = true;
        self.ready = true;
        Ok(())
    }

    /// The tables of predefined objects, at the first MPI_Init or
    /// MPI_Session_init (the host's predefined objects are usable then).
    pub(super) fn build_tables(&mut self) {
        if self.tables {
            return;
        }
        self.tables = true;
        let host = host_mpi::constants();
        self.error_classes = host
            .ints
            .iter()
            .filter(|(n, _)| n.starts_with("MPI_ERR_") || **n == "MPI_SUCCESS")
            .filter_map(|(n, &v)| Some((v, abi::value_of(n)?)))
            .collect();
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
        self.statuses_ignore = host.ptrs["MPI_STATUSES_IGNORE"];
        self.specials = Specials {
            any_source: host.int("MPI_ANY_SOURCE"),
            proc_null: host.int("MPI_PROC_NULL"),
            root: host.int("MPI_ROOT"),
            any_tag: host.int("MPI_ANY_TAG"),
            undefined: host.int("MPI_UNDEFINED"),
        };
        self.status = Some(StatusMap::new(host.status));
    }

    pub fn on_finalize(&mut self) {
        self.world = false;
        self.ready = self.sessions.user_handles().next().is_some();
        // sessions stay open: the world communicators are gone on the host
        for comm in [abi::c::MPI_COMM_WORLD, abi::c::MPI_COMM_SELF] {
            if let Some(c) = self.comms.get_mut(comm) {
                c.host = host_mpi::null_communicator();
            }
        }
    }

    pub(super) fn not_running(&self) -> MpiError {
        MpiError::new(abi::c::MPI_ERR_OTHER, "MPI is not initialized (called before MPI_Init or after MPI_Finalize)")
    }

    /// What an error in a call on `comm` does (calls without a
    /// communicator use MPI_COMM_WORLD's handler).
    pub(super) fn comm_errors(&self, comm: i32) -> ErrorMode {
        let c = self.comms.get(comm).or(self.comms.get(abi::c::MPI_COMM_WORLD));
        c.and_then(|c| self.errhandlers.get(c.errhandler)).map_or(ErrorMode::Fatal, |e| e.mode)
    }

    /// What an error in a call on file `fh` does (MPI_FILE_NULL's handler
    /// for calls without a valid file).
    pub(super) fn file_errors(&self, fh: i32) -> ErrorMode {
        let h = self.files.get(fh).map_or(self.file_null_errhandler, |f| f.errhandler);
        self.errhandlers.get(h).map_or(ErrorMode::Return, |e| e.mode)
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
        Err(MpiError::shared(self.guest_error_class(rc), host_mpi::error_string(rc)))
    }
}

