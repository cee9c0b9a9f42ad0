//! Per-instance bridge state and the per-call context every MPI host
//! function runs in: guest memory bounds, handle lookups, special-value
//! translation and the guest-visible error handling.
use std::collections::HashMap;

use wasmer::FunctionEnvMut;

use super::{
    datatype::{self, DatatypeEntry},
    errors::{Fatal, MpiError, MpiResult},
    status::{Public, StatusMap},
    MpiEnv,
};
use crate::{abi, guest_memory::GuestMemory, handles::Table, host_mpi};

/// What an MPI error on a communicator does in the guest.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorMode {
    /// MPI_ERRORS_ARE_FATAL (the default) and MPI_ERRORS_ABORT.
    Fatal,
    /// MPI_ERRORS_RETURN: the error class is returned to the guest.
    #[allow(dead_code)] // set by MPI_Comm_set_errhandler (bridge part 2)
    Return,
}

#[derive(Clone, Copy, Debug)]
pub struct CommEntry {
    pub host: host_mpi::Comm,
    pub errors: ErrorMode,
}

/// Host values of the ranks and tags with special meaning, which differ
/// between OpenMPI, MPICH and the standard ABI.
#[derive(Clone, Copy, Default)]
struct Specials {
    any_source: i32,
    proc_null: i32,
    root: i32,
    any_tag: i32,
}

pub struct Bridge {
    /// True between a successful MPI_Init and MPI_Finalize.
    ready: bool,
    comms: Table<CommEntry>,
    datatypes: Table<DatatypeEntry>,
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
        self.comms.set_predefined(abi::c::MPI_COMM_WORLD, CommEntry { host: host.comm_world, errors: ErrorMode::Fatal });
        self.comms.set_predefined(abi::c::MPI_COMM_SELF, CommEntry { host: host.comm_self, errors: ErrorMode::Fatal });
        self.datatypes = datatype::predefined_table();
        self.specials = Specials {
            any_source: host.int("MPI_ANY_SOURCE"),
            proc_null: host.int("MPI_PROC_NULL"),
            root: host.int("MPI_ROOT"),
            any_tag: host.int("MPI_ANY_TAG"),
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

    fn comm_errors(&self, comm: i32) -> ErrorMode {
        self.comms.get(comm).or(self.comms.get(abi::c::MPI_COMM_WORLD)).map_or(ErrorMode::Fatal, |c| c.errors)
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
    pub mem: GuestMemory,
    pub bridge: &'a mut Bridge,
}

/// Runs one MPI function body and turns its result into what the guest
/// sees: MPI_SUCCESS, an error class (MPI_ERRORS_RETURN), or the end of the
/// job (MPI_ERRORS_ARE_FATAL). `comm` selects the error handler.
#[inline]
pub fn call(
    env: &mut FunctionEnvMut<MpiEnv>,
    function: &'static str,
    comm: i32,
    body: impl FnOnce(&mut Ctx) -> MpiResult,
) -> Result<i32, Fatal> {
    let (data, store) = env.data_and_store_mut();
    let Some(memory) = data.memory.as_ref() else {
        return Err(Fatal::Mpi { function, class: abi::c::MPI_ERR_OTHER, detail: "called before the module was instantiated".into() });
    };
    let mem = GuestMemory::new(&memory.view(&store));
    let mut cx = Ctx { mem, bridge: &mut data.bridge };
    match body(&mut cx) {
        Ok(()) => Ok(abi::c::MPI_SUCCESS),
        Err(e) => match cx.bridge.comm_errors(comm) {
            ErrorMode::Return => Ok(e.class),
            ErrorMode::Fatal => Err(Fatal::Mpi { function, class: e.class, detail: e.detail }),
        },
    }
}

impl Ctx<'_> {
    /// A host return code as a result, with the guest's error class.
    #[inline]
    pub fn host(&self, rc: i32) -> MpiResult {
        self.bridge.check(rc)
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
    /// checking every byte of its span.
    #[inline]
    pub fn buffer(&self, ptr: u32, count: i32, dt: &DatatypeEntry) -> MpiResult<*mut u8> {
        datatype::check_count(count)?;
        if count == 0 {
            return Ok(self.mem.unchecked_empty(ptr));
        }
        let (lb, len) = dt.span(count).ok_or_else(|| MpiError::new(abi::c::MPI_ERR_COUNT, "buffer size overflows"))?;
        Ok(self.mem.span(ptr, lb, len)?)
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

    fn rank_out(&self, rank: i32) -> i32 {
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
