//! `MPI_Status` between the host's layout and the guest's 8-int layout.
//!
//! The guest status is SOURCE, TAG, ERROR and 5 ints the embedder owns. The
//! host's private fields (OpenMPI: cancelled flag + 64-bit count; MPICH: count
//! and cancelled bits) are stored there byte for byte, so a host status can be
//! rebuilt from a guest-owned status later (MPI_Get_count and friends).
use super::{call::Ctx, errors::MpiResult, state::Bridge};
use crate::{abi, guest_memory::GuestMemory, host_mpi, host_mpi::StatusLayout};

pub struct StatusMap {
    layout: StatusLayout,
    /// Offsets of the host status bytes that are not SOURCE/TAG/ERROR.
    private: Vec<usize>,
}

/// The public fields, already translated to the side they are written to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Public {
    pub source: i32,
    pub tag: i32,
    pub error: i32,
}

impl StatusMap {
    pub fn new(layout: StatusLayout) -> Self {
        let public = [layout.source, layout.tag, layout.error];
        let private: Vec<usize> =
            (0..layout.size).filter(|&b| !public.iter().any(|&f| (f..f + 4).contains(&b))).collect();
        assert!(
            private.len() <= abi::STATUS_SIZE - abi::STATUS_PRIVATE,
            "host MPI_Status has {} private bytes; the guest status holds 20",
            private.len()
        );
        Self { layout, private }
    }

    pub fn host_public(&self, host: &[u8]) -> Public {
        let field = |off: usize| i32::from_ne_bytes(host[off..off + 4].try_into().unwrap());
        Public { source: field(self.layout.source), tag: field(self.layout.tag), error: field(self.layout.error) }
    }

    /// `host_public` of a host status.
    pub fn public_of(&self, host: &host_mpi::Status) -> Public {
        self.host_public(host_bytes(host))
    }

    /// The guest's 32 bytes for a host status whose public fields were
    /// translated to `public`.
    pub fn to_guest(&self, host: &[u8], public: Public) -> [u8; abi::STATUS_SIZE] {
        let mut g = [0u8; abi::STATUS_SIZE];
        g[0..4].copy_from_slice(&public.source.to_le_bytes());
        g[4..8].copy_from_slice(&public.tag.to_le_bytes());
        g[abi::STATUS_ERROR..abi::STATUS_PRIVATE].copy_from_slice(&public.error.to_le_bytes());
        for (i, &off) in self.private.iter().enumerate() {
            g[abi::STATUS_PRIVATE + i] = host[off];
        }
        g
    }

    /// Rebuilds host status bytes from a guest status (public fields given
    /// already translated to host values).
    #[allow(dead_code)] // MPI_Get_count and friends (bridge part 1)
    pub fn to_host(&self, guest: &[u8; abi::STATUS_SIZE], public: Public, host: &mut [u8]) {
        host[self.layout.source..self.layout.source + 4].copy_from_slice(&public.source.to_ne_bytes());
        host[self.layout.tag..self.layout.tag + 4].copy_from_slice(&public.tag.to_ne_bytes());
        host[self.layout.error..self.layout.error + 4].copy_from_slice(&public.error.to_ne_bytes());
        for (i, &off) in self.private.iter().enumerate() {
            host[off] = guest[abi::STATUS_PRIVATE + i];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // OpenMPI 4: {SOURCE, TAG, ERROR, int cancelled, size_t ucount}
    const OMPI: StatusLayout = StatusLayout { size: 24, source: 0, tag: 4, error: 8 };
    // MPICH 4: {int count_lo, int count_hi_and_cancelled, SOURCE, TAG, ERROR}
    const MPICH: StatusLayout = StatusLayout { size: 20, source: 8, tag: 12, error: 16 };

    #[test]
    fn private_fields_round_trip_through_the_guest_layout() {
        for layout in [OMPI, MPICH, crate::host_mpi::constants().status] {
            let map = StatusMap::new(layout);
            let host: Vec<u8> = (1..=layout.size as u8).collect();
            let public = Public { source: 3, tag: 77, error: 0 };
            let g = map.to_guest(&host, public);
            assert_eq!(&g[0..12], &[3, 0, 0, 0, 77, 0, 0, 0, 0, 0, 0, 0]);
            let mut back = vec![0u8; layout.size];
            map.to_host(&g, map.host_public(&host), &mut back);
            assert_eq!(back, host);
        }
    }

    #[test]
    fn public_fields_are_read_at_the_host_offsets() {
        let map = StatusMap::new(MPICH);
        let mut host = vec![0u8; 20];
        host[8..12].copy_from_slice(&5i32.to_ne_bytes());
        host[12..16].copy_from_slice(&9i32.to_ne_bytes());
        assert_eq!(map.host_public(&host), Public { source: 5, tag: 9, error: 0 });
    }
}

/// Checks a status pointer before the operation that will fill it.
#[inline]
pub fn check_status_ptr(mem: &GuestMemory, ptr: u32) -> MpiResult {
    if ptr != abi::c::MPI_STATUS_IGNORE as u32 {
        mem.range(ptr, abi::STATUS_SIZE as u64)?;
    }
    Ok(())
}

/// Writes a host status to guest address `ptr` (0 = MPI_STATUS_IGNORE).
/// Takes the bridge and a view of guest memory, not the `Ctx` (call.rs).
pub fn write_status(bridge: &Bridge, mem: GuestMemory, ptr: u32, host: &host_mpi::Status) -> MpiResult {
    write_status_as(bridge, mem, ptr, host, true)
}

/// `write_status` for one of the statuses of MPI_Waitall and the other
/// calls that return several: their MPI_ERROR fields are the host's.
pub fn write_status_of_many(bridge: &Bridge, mem: GuestMemory, ptr: u32, host: &host_mpi::Status) -> MpiResult {
    write_status_as(bridge, mem, ptr, host, false)
}

/// A call that returns one status leaves its MPI_ERROR field as it was
/// (MPI-4.1 §3.2.5; Open MPI and MPICH keep the caller's value): the host
/// kept the zero (MPI_SUCCESS) of the bridge's fresh status, so unless the
/// host wrote an error there the guest's value stays.
fn write_status_as(bridge: &Bridge, mem: GuestMemory, ptr: u32, host: &host_mpi::Status, single: bool) -> MpiResult {
    if ptr == abi::c::MPI_STATUS_IGNORE as u32 {
        return Ok(());
    }
    let map = bridge.status.as_ref().ok_or_else(|| bridge.not_running())?;
    let bytes = host_bytes(host);
    let p = map.host_public(bytes);
    let tag = if p.tag == bridge.specials.any_tag { abi::c::MPI_ANY_TAG } else { p.tag };
    let error = match p.error {
        host_mpi::SUCCESS if single => mem.read_i32(ptr.wrapping_add(abi::STATUS_ERROR as u32))?,
        host_mpi::SUCCESS => 0,
        e => bridge.guest_error_class(e),
    };
    let guest = map.to_guest(bytes, Public { source: bridge.specials.rank_out(p.source), tag, error });
    Ok(mem.write_bytes(ptr, &guest)?)
}

/// A host status as its bytes.
fn host_bytes(host: &host_mpi::Status) -> &[u8] {
    // Safety: a host status is plain bytes
    unsafe { std::slice::from_raw_parts(host as *const _ as *const u8, std::mem::size_of::<host_mpi::Status>()) }
}

/// Statuses between the guest's memory and the host.
impl Ctx<'_> {
    /// Checks a status pointer before the operation that will fill it.
    #[inline]
    pub fn check_status_ptr(&self, ptr: u32) -> MpiResult {
        check_status_ptr(&self.mem, ptr)
    }

    /// Writes a host status to guest address `ptr` (0 = MPI_STATUS_IGNORE).
    #[inline]
    pub fn write_status(&self, ptr: u32, host: &host_mpi::Status) -> MpiResult {
        write_status(self.bridge, self.mem.view(), ptr, host)
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
}
