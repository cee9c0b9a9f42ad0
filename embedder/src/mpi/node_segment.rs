//! Segments shared by the ranks of one node, mapped into each rank's guest
//! memory (the OS side is `crate::shared_memory`): what MPI shared windows
//! (`rma.rs`) and Karmem regions (`karmem.rs`) are made of.
//!
//! Opening is collective over a communicator whose ranks the host MPI
//! places on one node: its rank 0 creates the segment, the others open it
//! through the creator's (pid, fd), every rank maps it into guest pages the
//! embedder grows for it (or that an earlier segment left), and the ranks
//! agree that all of them succeeded before any uses it.
use super::{
    call::Ctx,
    errors::{MpiError, MpiResult},
    state::CommEntry,
};
use crate::{
    abi, host_mpi::{self, ffi},
    shared_memory::{self, round_up, Segment, WASM_PAGE},
};

/// A node segment mapped at guest address `at` (page-aligned), `len` bytes.
pub struct GuestSegment {
    pub segment: Segment,
    pub at: u32,
}

impl GuestSegment {
    pub fn len(&self) -> u64 {
        self.segment.len
    }
}

/// Guest pages the embedder took for segments and got back: never the
/// allocator's, reused by later segments (first fit).
#[derive(Default)]
pub struct Holes(Vec<(u32, u64)>);

impl Holes {
    fn take(&mut self, len: u64) -> Option<u32> {
        let i = self.0.iter().position(|&(_, l)| l >= len)?;
        let (at, l) = self.0[i];
        if l == len {
            self.0.remove(i);
        } else {
            self.0[i] = (at + len as u32, l - len);
        }
        Some(at)
    }

    fn give(&mut self, at: u32, len: u64) {
        self.0.push((at, len));
    }
}

impl Ctx<'_> {
    /// Fails unless the host MPI places every rank of `comm` on this node.
    pub fn check_one_node(&self, comm: &CommEntry, what: &str) -> MpiResult {
        if comm.inter {
            return Err(MpiError::shared(abi::c::MPI_ERR_COMM, format!("{what} needs an intracommunicator")));
        }
        let host = host_mpi::constants();
        let mut node = host_mpi::null_communicator();
        let split = host.int("MPI_COMM_TYPE_SHARED");
        self.host(unsafe { ffi::MPI_Comm_split_type(comm.host.0, split, 0, host_mpi::null_info().0, &mut node.0) })?;
        let mut size = 0;
        host_mpi::comm_size(node, &mut size);
        unsafe { ffi::MPI_Comm_free(&mut node.0) };
        if size as i64 != comm.local {
            return Err(MpiError::shared(
                abi::c::MPI_ERR_COMM,
                format!("{what}: the communicator's {} ranks are not all on one node (this node has {size} of them); \
                         use MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)", comm.local),
            ));
        }
        Ok(())
    }

    /// Collective over `comm` (one node): a zero-filled segment of at least
    /// `len` bytes mapped into every rank's guest memory.
    pub fn map_node_segment(&mut self, comm: &CommEntry, name: &str, len: u64) -> MpiResult<GuestSegment> {
        let len = round_up(len.max(1), WASM_PAGE);
        let host = host_mpi::constants();
        let (int64, max) = (host.datatypes["MPI_INT64_T"], host.ops["MPI_MAX"]);
        // rank 0: [errno or 0, pid, fd]
        let mut made = None;
        let mut locator = [0i64; 3];
        if comm.rank == 0 {
            match Segment::create(name, len) {
                Ok(s) => {
                    let (pid, fd) = s.locator();
                    locator = [0, pid, fd];
                    made = Some(s);
                }
                Err(e) => locator[0] = e.raw_os_error().unwrap_or(libc::EIO) as i64,
            }
        }
        self.host(unsafe { ffi::MPI_Bcast(locator.as_mut_ptr() as _, 3, int64.0, 0, comm.host.0) })?;
        if locator[0] != 0 {
            let e = std::io::Error::from_raw_os_error(locator[0] as i32);
            return Err(MpiError::shared(abi::c::MPI_ERR_NO_MEM, format!("cannot create the node segment for {name}: {e}")));
        }
        let local = match made {
            Some(s) => Ok(s),
            None => Segment::open(locator[1], locator[2], len)
                .map_err(|e| format!("cannot open rank 0's segment for {name} (/proc/{}/fd/{}): {e}", locator[1], locator[2])),
        }
        .and_then(|segment| {
            let at = self.carve(len).map_err(|e| e.into_detail())?;
            // Safety: [at, at + len) is guest memory the embedder owns (carve).
            match unsafe { segment.map_at(self.guest_base(), at) } {
                Ok(()) => Ok(GuestSegment { segment, at }),
                Err(e) => {
                    self.bridge.segment_holes.give(at, len);
                    Err(format!("cannot map the node segment for {name}: {e}"))
                }
            }
        });
        // every rank mapped it, or none keeps it
        let failed = local.is_err() as i64;
        let mut any = 0i64;
        self.host(unsafe { ffi::MPI_Allreduce(&failed as *const i64 as _, &mut any as *mut i64 as _, 1, int64.0, max.0, comm.host.0) })?;
        match local {
            Err(why) => Err(MpiError::shared(abi::c::MPI_ERR_NO_MEM, why)),
            Ok(seg) if any != 0 => {
                self.unmap_node_segment(seg);
                Err(MpiError::shared(abi::c::MPI_ERR_NO_MEM, format!("another rank could not map the node segment for {name}")))
            }
            Ok(seg) => Ok(seg),
        }
    }

    /// This rank's mapping goes; its guest pages become private zero pages,
    /// kept for the next segment.
    pub fn unmap_node_segment(&mut self, seg: GuestSegment) {
        let len = seg.len();
        // Safety: the segment was mapped there, inside the guest memory.
        if unsafe { shared_memory::unmap_from(self.guest_base(), seg.at, len) }.is_ok() {
            self.bridge.segment_holes.give(seg.at, len);
        }
        // else the pages stay mapped to the segment: never handed out again
    }

    /// `len` bytes (a multiple of WASM_PAGE) of guest memory for a segment:
    /// an earlier segment's pages, or pages the memory grows by.
    fn carve(&mut self, len: u64) -> MpiResult<u32> {
        if let Some(at) = self.bridge.segment_holes.take(len) {
            return Ok(at);
        }
        let pages = (len / WASM_PAGE) as u32;
        let old = self.grow_guest_memory(pages).map_err(|e| {
            MpiError::new(abi::c::MPI_ERR_NO_MEM, format!("the guest memory cannot grow by {len} bytes for a shared segment: {e}"))
        })?;
        Ok((old as u64 * WASM_PAGE) as u32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holes_are_reused_first_fit_and_split() {
        let mut h = Holes::default();
        assert_eq!(h.take(WASM_PAGE), None);
        h.give(0x10000, 3 * WASM_PAGE);
        assert_eq!(h.take(4 * WASM_PAGE), None, "too small");
        assert_eq!(h.take(WASM_PAGE), Some(0x10000));
        assert_eq!(h.take(2 * WASM_PAGE), Some(0x20000), "the rest of the hole");
        assert_eq!(h.take(WASM_PAGE), None);
    }
}
