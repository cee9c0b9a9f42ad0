//! The standard ABI's special values (ranks, tags, MPI_UNDEFINED, split
//! types, comparison results) against the host's.
use super::super::{call::Ctx, errors::{MpiError, MpiResult}, state::CommEntry};
use crate::{abi, host_mpi};

impl Ctx<'_> {
    /// A destination/source rank: ranks pass through, the standard ABI's
    /// special values become the host's, other negative values are errors
    /// (they could alias a host special value). MPI_ROOT is only a root
    /// (`root`): Open MPI 5's partitioned calls crash on it as a peer.
    #[inline]
    pub fn rank(&self, rank: i32, allow_any: bool) -> MpiResult<i32> {
        if rank >= 0 {
            return Ok(rank);
        }
        let s = &self.bridge.specials;
        match rank {
            abi::c::MPI_PROC_NULL => Ok(s.proc_null),
            abi::c::MPI_ANY_SOURCE if allow_any => Ok(s.any_source),
            _ => Err(MpiError::new(abi::c::MPI_ERR_RANK, format!("invalid rank {rank}"))),
        }
    }

    /// A rooted collective's root: a rank, or on an intercommunicator
    /// MPI_ROOT (the root itself) or MPI_PROC_NULL (the rest of its group).
    #[inline]
    pub fn root(&self, root: i32) -> MpiResult<i32> {
        if root == abi::c::MPI_ROOT { Ok(self.bridge.specials.root) } else { self.rank(root, false) }
    }

    /// A peer of `comm` (its remote group's on an intercommunicator), for
    /// calls whose host MPI does not check the range itself: Open MPI 5's
    /// partitioned calls abort the job on a rank past the group.
    pub fn peer(&self, comm: &CommEntry, rank: i32, allow_any: bool) -> MpiResult<i32> {
        if rank >= 0 && rank as i64 >= comm.peers {
            return Err(MpiError::new(abi::c::MPI_ERR_RANK, format!("rank {rank} is not in the communicator's group of {}", comm.peers)));
        }
        self.rank(rank, allow_any)
    }

    /// Whether a translated rank is the host's MPI_PROC_NULL.
    pub fn is_proc_null(&self, host_rank: i32) -> bool {
        host_rank == self.bridge.specials.proc_null
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
        self.bridge.specials.rank_out(rank)
    }

    /// The host's MPI_UNDEFINED.
    pub fn undefined(&self) -> i32 {
        self.bridge.specials.undefined
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


/// The standard ABI's special ranks/tags against the host's (Open MPI and
/// MPICH number them differently from the guest), and string outputs.
#[cfg(test)]
mod special_value_tests {
    use super::*;
    use crate::{guest_memory::GuestMemory, host_mpi, mpi::state::{Bridge, Specials}, mpi::status::StatusMap};

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
            assert_eq!(cx.root(abi::c::MPI_ROOT).unwrap(), host.int("MPI_ROOT"));
            assert_eq!(cx.root(abi::c::MPI_PROC_NULL).unwrap(), host.int("MPI_PROC_NULL"));
            // MPI_ROOT names no peer
            assert_eq!(cx.rank(abi::c::MPI_ROOT, true).unwrap_err().class, abi::c::MPI_ERR_RANK);
            assert_eq!(cx.rank(abi::c::MPI_ANY_SOURCE, true).unwrap(), host.int("MPI_ANY_SOURCE"));
            // ANY_SOURCE only where the call accepts it
            assert_eq!(cx.rank(abi::c::MPI_ANY_SOURCE, false).unwrap_err().class, abi::c::MPI_ERR_RANK);
            for special in [abi::c::MPI_PROC_NULL, abi::c::MPI_ANY_SOURCE] {
                assert_eq!(cx.rank_out(cx.rank(special, true).unwrap()), special);
            }
            assert_eq!(cx.rank_out(cx.root(abi::c::MPI_ROOT).unwrap()), abi::c::MPI_ROOT);
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
                    assert_eq!(cx.root(v).unwrap_err().class, abi::c::MPI_ERR_RANK, "root {v}");
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

/// MPI-IO access modes, guest bit and host constant.
const ACCESS_MODES: [(i32, &str); 9] = [
    (abi::c::MPI_MODE_APPEND, "MPI_MODE_APPEND"),
    (abi::c::MPI_MODE_CREATE, "MPI_MODE_CREATE"),
    (abi::c::MPI_MODE_DELETE_ON_CLOSE, "MPI_MODE_DELETE_ON_CLOSE"),
    (abi::c::MPI_MODE_EXCL, "MPI_MODE_EXCL"),
    (abi::c::MPI_MODE_RDONLY, "MPI_MODE_RDONLY"),
    (abi::c::MPI_MODE_RDWR, "MPI_MODE_RDWR"),
    (abi::c::MPI_MODE_SEQUENTIAL, "MPI_MODE_SEQUENTIAL"),
    (abi::c::MPI_MODE_UNIQUE_OPEN, "MPI_MODE_UNIQUE_OPEN"),
    (abi::c::MPI_MODE_WRONLY, "MPI_MODE_WRONLY"),
];

impl Ctx<'_> {
    /// A guest access mode (OR of MPI_MODE_*) as the host's.
    pub fn amode(&self, amode: i32) -> MpiResult<i32> {
        let host = host_mpi::constants();
        let mut out = 0;
        let mut left = amode;
        for (guest, name) in ACCESS_MODES {
            if amode & guest != 0 {
                out |= host.int(name);
                left &= !guest;
            }
        }
        if left != 0 {
            return Err(MpiError::new(abi::c::MPI_ERR_AMODE, format!("access mode {amode:#x} has bits no MPI_MODE_* constant has ({left:#x})")));
        }
        Ok(out)
    }

    /// Writes a host access mode as the guest's.
    pub fn write_amode(&self, ptr: u32, host_amode: i32) -> MpiResult {
        let host = host_mpi::constants();
        let guest = ACCESS_MODES.iter().filter(|(_, name)| host_amode & host.int(name) != 0).fold(0, |m, (g, _)| m | g);
        Ok(self.mem.write_i32(ptr, guest)?)
    }

    /// MPI_SEEK_SET/CUR/END as the host's.
    pub fn whence(&self, whence: i32) -> MpiResult<i32> {
        let name = match whence {
            abi::c::MPI_SEEK_SET => "MPI_SEEK_SET",
            abi::c::MPI_SEEK_CUR => "MPI_SEEK_CUR",
            abi::c::MPI_SEEK_END => "MPI_SEEK_END",
            _ => return Err(MpiError::new(abi::c::MPI_ERR_ARG, format!("invalid whence {whence} (not MPI_SEEK_SET, _CUR or _END)"))),
        };
        Ok(host_mpi::constants().int(name))
    }

    /// A view displacement: MPI_DISPLACEMENT_CURRENT is the host's; others
    /// are byte offsets, never negative (Open MPI's OMPIO takes a negative
    /// one and later divides by it: i64::MIN ended a fuzzed run with SIGFPE
    /// in MPI_File_iread_all; ROMIO refuses it as MPI_ERR_ARG, so do we).
    pub fn displacement(&self, disp: i64) -> MpiResult<i64> {
        if disp == abi::c::MPI_DISPLACEMENT_CURRENT as i64 {
            return Ok(host_mpi::constants().int("MPI_DISPLACEMENT_CURRENT") as i64);
        }
        if disp < 0 {
            return Err(MpiError::new(abi::c::MPI_ERR_ARG, format!("negative view displacement {disp}")));
        }
        Ok(disp)
    }
}
