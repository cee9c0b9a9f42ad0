//! Guest handles to host handles and back: communicators, datatypes,
//! operations, requests, messages, groups and infos.
use super::super::{
    call::Ctx,
    datatype::{self, DatatypeEntry},
    errors::{MpiError, MpiResult},
    held,
    state::*,
};
use crate::{abi, host_mpi};

// The lookups every call makes are inlined; their errors are built out of
// line (#[cold]), which keeps the inlined part a few instructions.
impl Ctx<'_> {
    /// A communicator the guest may use: not one an MPI_Comm_idup has not
    /// made yet (`CommEntry::pending`, no host communicator and no group,
    /// which the checks that index per-process arrays by this rank rely on).
    #[inline]
    pub fn comm(&self, handle: i32) -> MpiResult<CommEntry> {
        match self.bridge.comms.get(handle) {
            Some(c) if self.bridge.ready && c.local != 0 => Ok(*c),
            _ => Err(unusable_comm(&*self.bridge, handle)),
        }
    }

    #[inline]
    pub fn datatype(&self, handle: i32) -> MpiResult<DatatypeEntry> {
        match self.bridge.datatypes.get(handle) {
            Some(d) if self.bridge.ready => Ok(*d),
            _ => Err(invalid(&*self.bridge, handle, datatype::invalid)),
        }
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
            _ => Err(invalid(&*self.bridge, handle, invalid_op)),
        }
    }

    /// Records a new host request and writes its guest handle. Inlined, as
    /// `request_entry`.
    #[inline(always)]
    pub fn out_request(&mut self, ptr: u32, host: host_mpi::Request, persistent: bool) -> MpiResult {
        let handle = if host_mpi::is_null_request(host) {
            abi::c::MPI_REQUEST_NULL
        } else {
            let entry = self.request_entry(host, persistent);
            self.bridge.requests.insert(entry)
        };
        Ok(self.mem.write_i32(ptr, handle)?)
    }

    /// `out_request` for a request the bridge must find again by what it
    /// works on (`mark` fills that in its extras: a session's flush, a
    /// file's operation), to complete it before that goes.
    pub fn out_request_marked(&mut self, ptr: u32, host: host_mpi::Request, mark: impl FnOnce(&mut RequestExtra)) -> MpiResult {
        if host_mpi::is_null_request(host) {
            return self.out_request(ptr, host, false);
        }
        let mut entry = self.request_entry(host, false);
        mark(entry.extra());
        let handle = self.bridge.requests.insert(entry);
        Ok(self.mem.write_i32(ptr, handle)?)
    }

    /// `out_request` for a nonblocking or persistent collective: the request
    /// holds the user operation and derived datatypes of `objects` (held.rs).
    /// With predefined ones only, as most calls, it is `out_request`.
    #[inline(always)]
    pub fn out_request_holding(&mut self, ptr: u32, host: host_mpi::Request, persistent: bool, objects: &[held::Of]) -> MpiResult {
        if objects.iter().all(|o| o.predefined()) || host_mpi::is_null_request(host) {
            return self.out_request(ptr, host, persistent);
        }
        self.out_request_held(ptr, host, persistent, objects)
    }

    #[inline(never)]
    fn out_request_held(&mut self, ptr: u32, host: host_mpi::Request, persistent: bool, objects: &[held::Of]) -> MpiResult {
        let mut entry = self.request_entry(host, persistent);
        let held = held::hold_all(self.bridge, objects.iter().copied());
        if !held.is_empty() {
            entry.extra().held = held;
        }
        let handle = self.bridge.requests.insert(entry);
        Ok(self.mem.write_i32(ptr, handle)?)
    }

    /// The entry for a new host request; it keeps the host copies of this
    /// call's int arrays alive until the request is freed. Inlined: an
    /// out-of-line call would take the context's address (call.rs).
    #[inline(always)]
    pub fn request_entry(&mut self, host: host_mpi::Request, persistent: bool) -> RequestEntry {
        let comm = self.bridge.comms.get(self.comm).map_or(host_mpi::null_communicator(), |c| c.host);
        let extra = if self.arrays_top == self.arrays_base {
            None
        } else {
            Some(Box::new(RequestExtra { arrays: self.take_arrays(), ..Default::default() }))
        };
        RequestEntry { host, comm, made_by: self.function, persistent, active: !persistent, cancelled: false, partitions: 0, null_peer: false, extra }
    }

    /// The elements of `partitions` partitions of `count` each; neither may
    /// be negative (Open MPI 5 takes either, and a negative pair would pass
    /// the buffer check as a positive product).
    pub fn partitioned(&self, partitions: i32, count: i64) -> MpiResult<i64> {
        if partitions < 0 {
            return Err(MpiError::new(abi::c::MPI_ERR_ARG, format!("negative partitions {partitions}")));
        }
        if count < 0 {
            return Err(MpiError::new(abi::c::MPI_ERR_COUNT, format!("negative count {count}")));
        }
        Ok(partitions as i64 * count)
    }

    /// Records how many partitions the partitioned request at `ptr` has,
    /// and whether its peer is MPI_PROC_NULL (the host then holds a
    /// persistent send or receive with MPI_PROC_NULL: gen_bridge.py,
    /// PROC_NULL_PARTITIONED).
    pub fn set_partitions(&mut self, ptr: u32, partitions: i32, null_peer: bool) -> MpiResult {
        let handle = self.mem.read_i32(ptr)?;
        if let Some(e) = self.bridge.requests.get_mut(handle) {
            e.partitions = partitions;
            e.null_peer = null_peer;
        }
        Ok(())
    }

    /// Partition numbers must name partitions of the request (not every
    /// host MPI checks them before indexing its partition arrays). True:
    /// the request's peer is MPI_PROC_NULL, there is nothing to tell the host.
    pub fn check_partitions(&self, request: i32, parts: impl IntoIterator<Item = i32>) -> MpiResult<bool> {
        let (n, null_peer) = self.bridge.requests.get(request).map_or((0, false), |e| (e.partitions, e.null_peer));
        if n == 0 {
            return Err(MpiError::new(abi::c::MPI_ERR_REQUEST, format!("request {request:#x} is not a partitioned send")));
        }
        match parts.into_iter().find(|p| !(0..n).contains(p)) {
            Some(p) => Err(MpiError::new(abi::c::MPI_ERR_ARG, format!("partition {p} is not one of the request's {n}"))),
            None => Ok(null_peer),
        }
    }

    pub fn check_partition_range(&self, request: i32, low: i32, high: i32) -> MpiResult<bool> {
        let null_peer = self.check_partitions(request, [low, high])?;
        if low > high {
            return Err(MpiError::new(abi::c::MPI_ERR_ARG, format!("partition range {low}..{high} is empty")));
        }
        Ok(null_peer)
    }

    #[inline]
    pub fn request(&self, handle: i32) -> MpiResult<host_mpi::Request> {
        match self.bridge.requests.get(handle) {
            Some(r) => Ok(r.host),
            None => Err(invalid_request(handle)),
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
}

impl Ctx<'_> {
    /// An open file's host handle.
    #[inline]
    pub fn file(&self, handle: i32) -> MpiResult<host_mpi::File> {
        self.require_running()?;
        self.bridge
            .files
            .get(handle)
            .map(|f| f.host)
            .ok_or_else(|| MpiError::new(abi::c::MPI_ERR_FILE, format!("invalid file handle {handle:#x}")))
    }
}

#[cold]
fn unusable_comm(bridge: &Bridge, handle: i32) -> MpiError {
    if bridge.ready && bridge.comms.get(handle).is_some() {
        let why = format!("communicator {handle:#x} does not exist yet: the MPI_Comm_idup that makes it has not completed");
        return MpiError::new(abi::c::MPI_ERR_COMM, why);
    }
    invalid(bridge, handle, invalid_comm)
}

fn invalid_comm(handle: i32) -> MpiError {
    MpiError::new(abi::c::MPI_ERR_COMM, format!("invalid communicator handle {handle:#x}"))
}

fn invalid_op(handle: i32) -> MpiError {
    MpiError::new(abi::c::MPI_ERR_OP, format!("invalid operation handle {handle:#x}"))
}

#[cold]
pub(in crate::mpi) fn invalid_request(handle: i32) -> MpiError {
    MpiError::new(abi::c::MPI_ERR_REQUEST, format!("invalid request handle {handle:#x}"))
}

/// The error for a handle that is not in its table (or for any handle
/// while MPI is not running). Takes the bridge, not the call context, so
/// that the context's address never escapes on the hot path.
#[cold]
#[inline(never)]
fn invalid(bridge: &Bridge, handle: i32, error: fn(i32) -> MpiError) -> MpiError {
    if bridge.ready {
        error(handle)
    } else {
        bridge.not_running()
    }
}
