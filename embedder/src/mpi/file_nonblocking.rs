//! Nonblocking data calls the host does not complete right.
//!
//! Reads that reach past the end of the file: Open MPI's OMPIO (4.1 and 5.0
//! alike) never completes a nonblocking read that reaches past the end of
//! the file: its asynchronous read comes back short and is posted again,
//! for ever. `MPI_File_iread*` and the split collective reads then hang in
//! the wait, natively too, although reading past the end is legal (the
//! status counts what was read). MPICH gets them right. So:
//!
//! - a split collective runs whole in its `_begin` on every host (the
//!   standard allows it, MPI-4.1 14.4.5; ROMIO does so itself), its status
//!   kept for the `_end` (generated/file.rs, `Ctx::split_begin`);
//! - on Open MPI, a nonblocking read that could reach past the end runs as
//!   the blocking read of the same data, and the guest gets a request that
//!   is already complete with that read's status. One that stays inside the
//!   file stays nonblocking. A shared-file-pointer read is always made
//!   blocking (another rank may move the pointer between the check and the
//!   read). A nonblocking collective read is this rank's own part on every
//!   host (below): OMPIO makes them from individual nonblocking reads
//!   anyway, so no rank waits for another in them, and a rank that reads
//!   blocking beside ranks that do not cannot hang them.
//!
//! Writes that fail when they complete (a full disk, a quota, an offset
//! past the file system's largest file): Open MPI 4.1 and 5.0 die of
//! SIGSEGV in the completion call (its error path reads the file's error
//! handler through the request, which carries no file), and MPICH 4.0 and
//! 5.0 never complete an individual one (`MPI_Wait` never returns), both
//! natively too; a check before the completion call would race with the
//! write failing inside it. So a nonblocking write runs as the blocking
//! write of the same data, and the guest gets a request already complete
//! with its status, or the call's error (a nonblocking call may report an
//! error it finds at once); a collective one as this rank's own part (as
//! for reads). The price is the overlap of a write with computation: the
//! write is done when the call returns.
//!
//! Datatypes freed while a collective one is pending: MPICH's ROMIO (4.0.2
//! and 5.0.2) looks the operation's datatype up again by its handle while a
//! nonblocking collective read or write progresses, so once the program
//! frees the type (legal: it stays valid for pending operations) and makes
//! another, the operation moves the new type's data, natively too: wrong
//! counts and data, and with a new type whose lower bound was 2^63 - 1,
//! ROMIO's copy reached 2^63 bytes past the guest's buffer (MPI-call
//! fuzzer, MPICH, seed 93009; the bridge frees the types it makes for a
//! call, `Ctx::large_file_count`, right after it, too). Its individual
//! nonblocking calls take the type's layout when they are posted. So on
//! every host a collective read is this rank's own individual read, and a
//! collective write its own blocking write.
use std::ffi::{c_int, c_void};

use super::{call::Ctx, errors::MpiResult};
use crate::host_mpi::{self, ffi};

/// Where a read or write starts.
#[derive(Clone, Copy, Debug)]
pub enum Kind {
    /// At the individual file pointer (`iread`, `iread_all`, `iwrite`, ...).
    Individual,
    /// At an explicit offset in etypes (`iread_at`, `iwrite_at_all`, ...).
    At(i64),
    /// At the shared file pointer (`iread_shared`, `iwrite_shared`).
    Shared,
}

/// A nonblocking read or write as the guest asked for it, its arguments
/// translated.
pub struct Access {
    /// The guest's handle and the host's.
    pub guest: i32,
    pub file: host_mpi::File,
    pub kind: Kind,
    /// A write reads it only.
    pub buf: *mut c_void,
    pub count: i64,
    pub datatype: host_mpi::Datatype,
    /// The large-count form (`_c`): the host's `_c` functions.
    pub large: bool,
    /// `iread_all`, `iread_at_all`, `iwrite_all`, `iwrite_at_all`.
    pub collective: bool,
    pub write: bool,
}

impl Ctx<'_> {
    /// The host request for `access`: `post` (the host's own nonblocking
    /// call), or the blocking call and a request already complete where
    /// the host would not complete it (module comment).
    pub fn nonblocking_access(
        &mut self,
        access: &Access,
        request: &mut ffi::MPI_Request,
        post: impl FnOnce(&mut ffi::MPI_Request) -> c_int,
    ) -> MpiResult {
        let open_mpi = host_mpi::library::loaded().family == host_mpi::Family::OpenMpi;
        if !access.write && !(open_mpi && self.may_pass_end(access)) {
            return self.host(if access.collective { unsafe { individual_read(access, request) } } else { post(request) });
        }
        let mut status = host_mpi::empty_status();
        self.host(unsafe { blocking_access(access, &mut status) })?;
        self.host(unsafe { completed_request(status, request) })
    }

    /// Whether `read` may reach past the end of its file: its end, as the
    /// file's view places it, lies past the file's size. Conservative: a
    /// view's holes after the last byte read count as read, and any query
    /// the host refuses says yes.
    fn may_pass_end(&self, read: &Access) -> bool {
        let start = match read.kind {
            Kind::Shared => return true,
            Kind::At(offset) => offset,
            Kind::Individual => {
                let mut position: ffi::MPI_Offset = 0;
                if unsafe { ffi::MPI_File_get_position(read.file.0, &mut position) } != 0 {
                    return true;
                }
                position
            }
        };
        let mut size: ffi::MPI_Count = 0;
        if unsafe { ffi::MPI_Type_size_x(read.datatype.0, &mut size) } != 0 {
            return true;
        }
        let bytes = i128::from(size) * i128::from(read.count);
        if bytes <= 0 {
            return false;
        }
        let etype = i128::from(self.bridge.files.get(read.guest).map_or(1, |f| f.etype_size).max(1));
        let Ok(end) = i64::try_from(i128::from(start) + (bytes + etype - 1) / etype) else { return true };
        let (mut end_byte, mut file_size): (ffi::MPI_Offset, ffi::MPI_Offset) = (0, 0);
        let refused = unsafe {
            ffi::MPI_File_get_byte_offset(read.file.0, end, &mut end_byte) != 0 || ffi::MPI_File_get_size(read.file.0, &mut file_size) != 0
        };
        refused || end_byte > file_size
    }
}

/// The individual nonblocking read of the same data from the same place.
unsafe fn individual_read(read: &Access, request: &mut ffi::MPI_Request) -> c_int {
    let (fh, buf, dt) = (read.file.0, read.buf, read.datatype.0);
    match (read.kind, read.large) {
        (Kind::At(offset), false) => ffi::MPI_File_iread_at(fh, offset, buf, read.count as c_int, dt, request),
        (Kind::At(offset), true) => ffi::MPI_File_iread_at_c(fh, offset, buf, read.count, dt, request),
        (_, false) => ffi::MPI_File_iread(fh, buf, read.count as c_int, dt, request),
        (_, true) => ffi::MPI_File_iread_c(fh, buf, read.count, dt, request),
    }
}

/// The blocking read or write of the same data at the same place (a
/// collective one as this rank's own part).
unsafe fn blocking_access(a: &Access, status: &mut host_mpi::Status) -> c_int {
    let (fh, buf, dt, st) = (a.file.0, a.buf, a.datatype.0, status as *mut _);
    let n = a.count as c_int; // the count of a form that is not `_c` is an int
    match (a.write, a.kind, a.large) {
        (false, Kind::Individual, false) => ffi::MPI_File_read(fh, buf, n, dt, st),
        (false, Kind::Individual, true) => ffi::MPI_File_read_c(fh, buf, a.count, dt, st),
        (false, Kind::At(offset), false) => ffi::MPI_File_read_at(fh, offset, buf, n, dt, st),
        (false, Kind::At(offset), true) => ffi::MPI_File_read_at_c(fh, offset, buf, a.count, dt, st),
        (false, Kind::Shared, false) => ffi::MPI_File_read_shared(fh, buf, n, dt, st),
        (false, Kind::Shared, true) => ffi::MPI_File_read_shared_c(fh, buf, a.count, dt, st),
        (true, Kind::Individual, false) => ffi::MPI_File_write(fh, buf, n, dt, st),
        (true, Kind::Individual, true) => ffi::MPI_File_write_c(fh, buf, a.count, dt, st),
        (true, Kind::At(offset), false) => ffi::MPI_File_write_at(fh, offset, buf, n, dt, st),
        (true, Kind::At(offset), true) => ffi::MPI_File_write_at_c(fh, offset, buf, a.count, dt, st),
        (true, Kind::Shared, false) => ffi::MPI_File_write_shared(fh, buf, n, dt, st),
        (true, Kind::Shared, true) => ffi::MPI_File_write_shared_c(fh, buf, a.count, dt, st),
    }
}

/// A host request that is complete and reports `status` (of a call that
/// succeeded): a generalized request whose query function hands the status
/// over.
unsafe fn completed_request(mut status: host_mpi::Status, request: &mut ffi::MPI_Request) -> c_int {
    // Open MPI's wait returns a request's MPI_ERROR, which a read or write
    // need not set
    let error = host_mpi::constants().status.error;
    status.bytes[error..error + 4].fill(0);
    let state = Box::into_raw(Box::new(status)) as *mut c_void;
    let rc = ffi::MPI_Grequest_start(query as ffi::Callback, free as ffi::Callback, cancel as ffi::Callback, state, request);
    if rc != 0 {
        drop(Box::from_raw(state as *mut host_mpi::Status));
        return rc;
    }
    ffi::MPI_Grequest_complete(*request)
}

unsafe extern "C" fn query(state: *mut c_void, status: *mut c_void) -> c_int {
    // the host's own status size: `MPI_Status` here is the largest of them
    let size = host_mpi::constants().status.size;
    std::ptr::copy_nonoverlapping(state as *const u8, status as *mut u8, size);
    0
}

unsafe extern "C" fn free(state: *mut c_void) -> c_int {
    drop(Box::from_raw(state as *mut host_mpi::Status));
    0
}

unsafe extern "C" fn cancel(_state: *mut c_void, _complete: c_int) -> c_int {
    0 // complete from the start: nothing to cancel
}
