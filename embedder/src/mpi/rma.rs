//! One-sided communication (MPI RMA): windows over guest memory.
//!
//! Every window is a host window over guest memory: MPI_Win_create over the
//! guest's buffer (zero copy), MPI_Win_allocate over memory from the
//! guest's allocator, MPI_Win_allocate_shared over a node segment mapped
//! into each rank's memory (`node_segment.rs`), so MPI_Win_shared_query
//! hands out guest pointers valid at the caller. At creation the ranks
//! exchange their window sizes, displacement units and memory bases, so a
//! target range is checked against the target's window before the host
//! library touches it (dynamic windows: against the target's 4 GiB guest
//! memory, the host library finds the attached region). The data movement
//! and synchronisation calls are generated (generated/rma.rs, errors to the
//! window's handler through `call_win`); here are creation, freeing,
//! queries and the translation helpers they use. Window error handlers and
//! attributes are in errhandler.rs and attr.rs.
use wasmer::FunctionEnvMut;

use super::{
    attr,
    call::{call, call_win, Ctx},
    datatype::DatatypeEntry,
    errors::{Fatal, MpiError, MpiResult},
    node_segment::GuestSegment,
    state::{Bridge, CommEntry},
    MpiEnv,
};
use crate::{abi, host_mpi::{self, ffi}};

const WIN_NULL: i32 = abi::c::MPI_WIN_NULL;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flavor {
    Create,
    Allocate,
    Dynamic,
    Shared,
}

impl Flavor {
    fn guest_value(self) -> i32 {
        match self {
            Flavor::Create => abi::c::MPI_WIN_FLAVOR_CREATE,
            Flavor::Allocate => abi::c::MPI_WIN_FLAVOR_ALLOCATE,
            Flavor::Dynamic => abi::c::MPI_WIN_FLAVOR_DYNAMIC,
            Flavor::Shared => abi::c::MPI_WIN_FLAVOR_SHARED,
        }
    }
}

/// What a rank's window is, as every rank of it learned at creation.
#[derive(Clone, Copy, Debug, Default)]
pub struct Target {
    /// Window bytes and displacement unit.
    pub size: i64,
    pub disp_unit: i64,
    /// Host address of the rank's guest memory (dynamic windows: target
    /// displacements are guest addresses there).
    pub memory: i64,
    /// Guest address of the window (shared windows: where its part starts
    /// in the segment, as an offset from the segment's start).
    pub base: i64,
}

pub struct WinEntry {
    pub host: host_mpi::Win,
    /// The guest error handler (a handle in `Bridge::errhandlers`).
    pub errhandler: i32,
    flavor: Flavor,
    /// This rank's window: guest base and size, displacement unit.
    base: u32,
    size: i64,
    disp_unit: i64,
    /// Per rank of the window's group.
    targets: Box<[Target]>,
    /// Guest ints the MPI_WIN_SIZE, _DISP_UNIT, _CREATE_FLAVOR and _MODEL
    /// attributes point at (allocated on the first query, freed with the window).
    attr_slots: Option<u32>,
    /// MPI_Win_allocate's memory (from the guest's allocator).
    allocated: Option<u32>,
    /// MPI_Win_allocate_shared's node segment.
    shared: Option<GuestSegment>,
    /// When it was made (`free_left_windows` frees in that order).
    made: u64,
}

/// Counts the windows made, for `WinEntry::made`.
static WINDOWS_MADE: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

impl Ctx<'_> {
    /// A one-sided transfer is a send of one side and a receive of the
    /// other (MPI-4.1 12.3.1), and the hosts trust that it matches: MPICH
    /// asserts in its unpack when what arrives ends inside an element of
    /// the receiving type (an `MPI_Put` of 3 chars into an int, natively
    /// too) and aborts the job; Open MPI says MPI_ERR_TRUNCATE for an
    /// `MPI_Get` that does not fit and writes an `MPI_Put` that does not.
    /// A receiving side larger than what is sent is legal, but MPICH 4.0.2
    /// then moves the receiving side's amount (an `MPI_Get` of one int into
    /// two reads two from the target, past the target's checked bytes). So
    /// both sides must hold as many bytes, on every host: MPI_ERR_TRUNCATE
    /// when the receiving side is smaller, MPI_ERR_COUNT when it is larger.
    /// The usual call, solid types of as many bytes, asks the host nothing.
    #[inline]
    pub fn check_rma_transfer(&self, sent: (i64, &DatatypeEntry), received: (i64, &DatatypeEntry)) -> MpiResult {
        let bytes = sent.1.solid_bytes(sent.0);
        if bytes != 0 && bytes == received.1.solid_bytes(received.0) {
            return Ok(());
        }
        rma_transfer(self.bridge, sent, received)
    }


    #[inline]
    pub fn win(&self, handle: i32) -> MpiResult<&WinEntry> {
        match self.bridge.wins.get(handle) {
            Some(w) if self.bridge.ready => Ok(w),
            _ => Err(invalid_win(self.bridge, handle)),
        }
    }

    /// The host rank of `rank`, one of the window's group, or MPI_PROC_NULL
    /// where `proc_null` allows it: the standard allows it as the target of
    /// the communication calls only (MPI-4.1 12.3), and Open MPI 5 takes it
    /// in `MPI_Win_lock`/`unlock`/`flush`/`flush_local` for a peer's index
    /// (a SIGSEGV in Open MPI, natively and under the embedder).
    #[inline]
    pub fn win_rank(&self, win: &WinEntry, rank: i32, proc_null: bool) -> MpiResult<i32> {
        let host = self.rank(rank, false)?;
        if host == self.bridge.specials.proc_null && !proc_null {
            return Err(MpiError::new(abi::c::MPI_ERR_RANK, "MPI_PROC_NULL is no window's rank to lock or flush"));
        }
        if host != self.bridge.specials.proc_null && (host < 0 || host as usize >= win.targets.len()) {
            return Err(MpiError::new(abi::c::MPI_ERR_RANK, format!("rank {rank} is not in the window's group of {}", win.targets.len())));
        }
        Ok(host)
    }

    /// The host displacement for `count` elements of `dt` at displacement
    /// `disp` in window `win` of (host) rank `rank`, after checking that
    /// every byte lies in that rank's window (dynamic windows: in its guest
    /// memory). MPI_PROC_NULL moves nothing and is not checked.
    #[inline]
    pub fn target(&self, win: &WinEntry, rank: i32, disp: i32, count: i64, dt: &DatatypeEntry) -> MpiResult<i64> {
        if rank == self.bridge.specials.proc_null {
            return Ok(disp as i64);
        }
        let t = win.targets.get(rank as usize).filter(|_| rank >= 0).ok_or_else(|| {
            MpiError::new(abi::c::MPI_ERR_RANK, format!("target rank {rank} is not in the window's group of {}", win.targets.len()))
        })?;
        dt.check_committed()?;
        super::datatype::check_count(count)?;
        let (lo, hi) = dt.hull64(count).ok_or_else(|| MpiError::new(abi::c::MPI_ERR_COUNT, "the target range does not fit 64 bits"))?;
        if win.flavor == Flavor::Dynamic {
            // a guest address at the target (MPI_Get_address's value)
            let at = disp as u32 as i64;
            if lo < hi && (at + lo < 0 || at + hi > 1 << 32) {
                return Err(range_error(rank, at + lo, at + hi, "the target's guest memory", 1 << 32));
            }
            return Ok(t.memory + at);
        }
        let at = (disp as i64).checked_mul(t.disp_unit).ok_or_else(|| MpiError::new(abi::c::MPI_ERR_DISP, "displacement overflows"))?;
        if lo < hi && (at + lo < 0 || at + hi > t.size) {
            return Err(range_error(rank, at + lo, at + hi, "its window", t.size));
        }
        Ok(disp as i64)
    }

    /// The host lock type of a guest one.
    pub fn lock_type(&self, lock_type: i32) -> MpiResult<i32> {
        let host = host_mpi::constants();
        match lock_type {
            abi::c::MPI_LOCK_EXCLUSIVE => Ok(host.int("MPI_LOCK_EXCLUSIVE")),
            abi::c::MPI_LOCK_SHARED => Ok(host.int("MPI_LOCK_SHARED")),
            _ => Err(MpiError::new(abi::c::MPI_ERR_LOCKTYPE, format!("invalid lock type {lock_type}"))),
        }
    }

    /// The host's bits for a guest RMA assertion (an OR of MPI_MODE_NO*).
    pub fn rma_assert(&self, assert: i32) -> MpiResult<i32> {
        const MODES: [(i32, &str); 5] = [
            (abi::c::MPI_MODE_NOCHECK, "MPI_MODE_NOCHECK"),
            (abi::c::MPI_MODE_NOSTORE, "MPI_MODE_NOSTORE"),
            (abi::c::MPI_MODE_NOPUT, "MPI_MODE_NOPUT"),
            (abi::c::MPI_MODE_NOPRECEDE, "MPI_MODE_NOPRECEDE"),
            (abi::c::MPI_MODE_NOSUCCEED, "MPI_MODE_NOSUCCEED"),
        ];
        let known = MODES.iter().fold(0, |all, (bit, _)| all | bit);
        if assert & !known != 0 {
            return Err(MpiError::new(abi::c::MPI_ERR_ASSERT, format!("invalid assertion {assert:#x}")));
        }
        let host = host_mpi::constants();
        Ok(MODES.iter().filter(|(bit, _)| assert & bit != 0).fold(0, |all, (_, name)| all | host.int(name)))
    }

    /// A predefined window attribute's guest value (MPI_WIN_BASE: the base
    /// itself; the others: a pointer to the value in guest memory).
    pub fn win_attribute(&mut self, win: i32, keyval: i32) -> MpiResult<Option<u32>> {
        let w = self.win(win)?;
        let (base, size, disp_unit, flavor, host_win) = (w.base, w.size, w.disp_unit, w.flavor, w.host);
        if keyval == abi::c::MPI_WIN_BASE {
            return Ok(Some(base));
        }
        let slots = match self.bridge.wins.get(win).and_then(|w| w.attr_slots) {
            Some(s) => s,
            None => {
                let s = self.guest_alloc(16)?;
                if let Some(w) = self.bridge.wins.get_mut(win) {
                    w.attr_slots = Some(s);
                }
                s
            }
        };
        let (index, value) = match keyval {
            abi::c::MPI_WIN_SIZE => (0, size as i32),
            abi::c::MPI_WIN_DISP_UNIT => (1, disp_unit as i32),
            abi::c::MPI_WIN_CREATE_FLAVOR => (2, flavor.guest_value()),
            abi::c::MPI_WIN_MODEL => (3, memory_model(host_win)),
            _ => return Ok(None),
        };
        let slot = slots + 4 * index;
        self.mem.write_i32(slot, value)?;
        Ok(Some(slot))
    }

    /// A host window over this rank's guest bytes `[base, base + size)`
    /// (host address `at`, checked by the caller), recorded.
    #[allow(clippy::too_many_arguments)]
    fn window_over(&mut self, comm: &CommEntry, info: host_mpi::Info, at: *mut u8, flavor: Flavor, base: u32, size: i32, disp_unit: i32) -> MpiResult<i32> {
        let mut new = host_mpi::null_win();
        self.host(unsafe { ffi::MPI_Win_create(at as _, size as isize, disp_unit, info.0, comm.host.0, &mut new.0) })?;
        self.new_window(comm, new, flavor, base, size as i64, disp_unit as i64)
    }

    /// Records a new host window: errors come back to the bridge, and the
    /// ranks exchange what target checks need. Returns the guest handle.
    fn new_window(&mut self, comm: &CommEntry, mut host: host_mpi::Win, flavor: Flavor, base: u32, size: i64, disp_unit: i64) -> MpiResult<i32> {
        let c = host_mpi::constants();
        let set = unsafe { ffi::MPI_Win_set_errhandler(host.0, c.errors_return.0) };
        let mine = [size, disp_unit, self.guest_base() as i64, base as i64];
        let mut all = vec![Target::default(); comm.local as usize];
        let int64 = c.datatypes["MPI_INT64_T"];
        let rc = if set != host_mpi::SUCCESS {
            set
        } else {
            unsafe { ffi::MPI_Allgather(mine.as_ptr() as _, 4, int64.0, all.as_mut_ptr() as _, 4, int64.0, comm.host.0) }
        };
        if let Err(e) = self.host(rc) {
            unsafe { ffi::MPI_Win_free(&mut host.0) };
            return Err(e);
        }
        let errhandler = abi::c::MPI_ERRORS_ARE_FATAL;
        self.bridge.retain_errhandler(errhandler);
        let entry = WinEntry {
            host, errhandler, flavor, base, size, disp_unit, targets: all.into_boxed_slice(), attr_slots: None, allocated: None, shared: None,
            made: WINDOWS_MADE.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
        };
        Ok(self.bridge.wins.insert(entry))
    }

    /// What a window-creating call checks at this rank (the common
    /// arguments, then `more`), before the ranks of `comm` agree: none
    /// enters the host's collective alone.
    fn creation_args<T>(
        &self,
        comm: i32,
        (size, disp_unit, info, win): (i32, i32, i32, u32),
        more: impl FnOnce(&Self) -> MpiResult<T>,
    ) -> MpiResult<(CommEntry, host_mpi::Info, T)> {
        let comm_ = self.comm(comm)?;
        let local = (|| {
            if let Some(why) = host_mpi::windows_unavailable() {
                return Err(MpiError::new(abi::c::MPI_ERR_UNSUPPORTED_OPERATION, why));
            }
            if comm_.inter {
                return Err(MpiError::new(abi::c::MPI_ERR_COMM, "windows need an intracommunicator"));
            }
            if size < 0 {
                return Err(MpiError::new(abi::c::MPI_ERR_SIZE, format!("negative window size {size}")));
            }
            if disp_unit <= 0 {
                return Err(MpiError::new(abi::c::MPI_ERR_DISP, format!("displacement unit {disp_unit} is not positive")));
            }
            self.mem.range(win, 4)?;
            let info_ = self.info(info)?;
            Ok((info_, more(self)?))
        })();
        let (info_, extra) = self.agree(comm_.host, local)?;
        Ok((comm_, info_, extra))
    }
}

fn range_error(rank: i32, lo: i64, hi: i64, what: &str, size: i64) -> MpiError {
    MpiError::new(
        abi::c::MPI_ERR_RMA_RANGE,
        format!("target bytes [{lo:#x}, {hi:#x}) at rank {rank} lie outside {what} of {size} bytes"),
    )
}

/// The guest's MPI_WIN_UNIFIED or MPI_WIN_SEPARATE for a host window.
fn memory_model(win: host_mpi::Win) -> i32 {
    let c = host_mpi::constants();
    let (mut value, mut flag): (*mut i32, i32) = (std::ptr::null_mut(), 0);
    let rc = unsafe { ffi::MPI_Win_get_attr(win.0, c.int("MPI_WIN_MODEL"), &mut value as *mut _ as *mut _, &mut flag) };
    if rc == host_mpi::SUCCESS && flag != 0 && !value.is_null() && unsafe { *value } == c.int("MPI_WIN_SEPARATE") {
        abi::c::MPI_WIN_SEPARATE
    } else {
        abi::c::MPI_WIN_UNIFIED
    }
}

#[inline]
pub fn win_create(mut env: FunctionEnvMut<MpiEnv>, base: u32, size: i32, disp_unit: i32, info: i32, comm: i32, win: u32) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Win_create", comm, |cx| {
        let (comm_, info_, at) = cx.creation_args(comm, (size, disp_unit, info, win), |cx| {
            Ok(if size > 0 { cx.mem.range(base, size as u64)? } else { cx.mem.unchecked_empty(base) })
        })?;
        let handle = cx.window_over(&comm_, info_, at, Flavor::Create, base, size, disp_unit)?;
        Ok(cx.mem.write_i32(win, handle)?)
    })
}

#[inline]
pub fn win_create_c(env: FunctionEnvMut<MpiEnv>, base: u32, size: i32, disp_unit: i32, info: i32, comm: i32, win: u32) -> Result<i32, Fatal> {
    // MPI_Aint is 32 bits in the guest: the int form holds every disp_unit
    win_create(env, base, size, disp_unit, info, comm, win)
}

#[inline]
pub fn win_allocate(mut env: FunctionEnvMut<MpiEnv>, size: i32, disp_unit: i32, info: i32, comm: i32, baseptr: u32, win: u32) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Win_allocate", comm, |cx| {
        let (comm_, info_, ()) = cx.creation_args(comm, (size, disp_unit, info, win), |cx| Ok(cx.mem.range(baseptr, 4).map(drop)?))?;
        let local = cx.guest_alloc(size.max(1) as u32);
        let mine = local.as_ref().ok().copied();
        let memory = match cx.agree(comm_.host, local) {
            Ok(m) => m,
            Err(e) => {
                // another rank could not allocate: give this rank's back
                if let Some(m) = mine {
                    cx.guest_free(m);
                }
                return Err(e);
            }
        };
        let at = cx.mem.range(memory, size.max(1) as u64)?;
        let handle = match cx.window_over(&comm_, info_, at, Flavor::Allocate, memory, size, disp_unit) {
            Ok(h) => h,
            Err(e) => {
                cx.guest_free(memory);
                return Err(e);
            }
        };
        if let Some(w) = cx.bridge.wins.get_mut(handle) {
            w.allocated = Some(memory);
        }
        cx.mem.write_i32(baseptr, memory as i32)?;
        Ok(cx.mem.write_i32(win, handle)?)
    })
}

#[inline]
pub fn win_allocate_c(env: FunctionEnvMut<MpiEnv>, size: i32, disp_unit: i32, info: i32, comm: i32, baseptr: u32, win: u32) -> Result<i32, Fatal> {
    win_allocate(env, size, disp_unit, info, comm, baseptr, win)
}

/// Where each rank's part of a shared window starts in the segment:
/// contiguous (rank i's first byte follows rank i-1's last), or with
/// `alloc_shared_noncontig`, each part on its own pages.
fn shared_layout(sizes: &[i64], noncontig: bool) -> (Vec<i64>, u64) {
    let mut offsets = Vec::with_capacity(sizes.len());
    let mut at = 0u64;
    for &s in sizes {
        if noncontig {
            at = crate::shared_memory::round_up(at, crate::shared_memory::PAGE);
        }
        offsets.push(at as i64);
        at += s.max(0) as u64;
    }
    (offsets, at)
}

/// Whether info `info` sets `key` to "true".
fn info_is_true(info: host_mpi::Info, key: &str) -> bool {
    if info.0 == host_mpi::null_info().0 {
        return false;
    }
    let key = std::ffi::CString::new(key).expect("no NUL");
    let mut value = [0u8; 16];
    let mut flag = 0;
    let rc = unsafe { ffi::MPI_Info_get(info.0, key.as_ptr(), value.len() as i32 - 1, value.as_mut_ptr() as _, &mut flag) };
    rc == host_mpi::SUCCESS && flag != 0 && value.starts_with(b"true")
}

#[inline]
pub fn win_allocate_shared(mut env: FunctionEnvMut<MpiEnv>, size: i32, disp_unit: i32, info: i32, comm: i32, baseptr: u32, win: u32) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Win_allocate_shared", comm, |cx| {
        let (comm_, info_, ()) = cx.creation_args(comm, (size, disp_unit, info, win), |cx| Ok(cx.mem.range(baseptr, 4).map(drop)?))?;
        cx.check_one_node(&comm_, "MPI_Win_allocate_shared")?;
        let c = host_mpi::constants();
        let int64 = c.datatypes["MPI_INT64_T"];
        let mut sizes = vec![0i64; comm_.local as usize];
        let mine = size as i64;
        cx.host(unsafe { ffi::MPI_Allgather(&mine as *const i64 as _, 1, int64.0, sizes.as_mut_ptr() as _, 1, int64.0, comm_.host.0) })?;
        let (offsets, total) = shared_layout(&sizes, info_is_true(info_, "alloc_shared_noncontig"));
        let seg = cx.map_node_segment(&comm_, "MPI_Win_allocate_shared", total)?;
        let base = seg.at + offsets[comm_.rank as usize] as u32;
        let made = cx.mem.span(base, 0, size as u64).map_err(MpiError::from);
        let handle = match made.and_then(|at| cx.window_over(&comm_, info_, at, Flavor::Shared, base, size, disp_unit)) {
            Ok(h) => h,
            Err(e) => {
                cx.unmap_node_segment(seg);
                return Err(e);
            }
        };
        if let Some(w) = cx.bridge.wins.get_mut(handle) {
            // parts by segment offset (the exchange recorded guest bases,
            // which differ between ranks)
            for (t, off) in w.targets.iter_mut().zip(&offsets) {
                t.base = *off;
            }
            w.shared = Some(seg);
        }
        cx.mem.write_i32(baseptr, base as i32)?;
        Ok(cx.mem.write_i32(win, handle)?)
    })
}

#[inline]
pub fn win_allocate_shared_c(env: FunctionEnvMut<MpiEnv>, size: i32, disp_unit: i32, info: i32, comm: i32, baseptr: u32, win: u32) -> Result<i32, Fatal> {
    win_allocate_shared(env, size, disp_unit, info, comm, baseptr, win)
}

#[inline]
pub fn win_shared_query(mut env: FunctionEnvMut<MpiEnv>, win: i32, rank: i32, size: u32, disp_unit: u32, baseptr: u32) -> Result<i32, Fatal> {
    call_win(&mut env, "MPI_Win_shared_query", win, |cx| {
        let w = cx.win(win)?;
        let Some(seg) = &w.shared else {
            return Err(MpiError::new(abi::c::MPI_ERR_RMA_FLAVOR, "not a window made by MPI_Win_allocate_shared"));
        };
        let index = if rank == abi::c::MPI_PROC_NULL {
            // the lowest rank with a non-empty part
            w.targets.iter().position(|t| t.size > 0).unwrap_or(0)
        } else if rank >= 0 && (rank as usize) < w.targets.len() {
            rank as usize
        } else {
            return Err(MpiError::new(abi::c::MPI_ERR_RANK, format!("rank {rank} is not in the window's group")));
        };
        let t = w.targets[index];
        let base = seg.at as i64 + t.base;
        for p in [size, disp_unit, baseptr] {
            cx.mem.range(p, 4)?;
        }
        cx.mem.write_i32(size, t.size as i32)?;
        cx.mem.write_i32(disp_unit, t.disp_unit as i32)?;
        Ok(cx.mem.write_i32(baseptr, base as i32)?)
    })
}

#[inline]
pub fn win_shared_query_c(env: FunctionEnvMut<MpiEnv>, win: i32, rank: i32, size: u32, disp_unit: u32, baseptr: u32) -> Result<i32, Fatal> {
    // the guest's MPI_Aint disp_unit is an int's size
    win_shared_query(env, win, rank, size, disp_unit, baseptr)
}

#[inline]
pub fn win_create_dynamic(mut env: FunctionEnvMut<MpiEnv>, info: i32, comm: i32, win: u32) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Win_create_dynamic", comm, |cx| {
        let (comm_, info_, ()) = cx.creation_args(comm, (0, 1, info, win), |_| Ok(()))?;
        let mut new = host_mpi::null_win();
        cx.host(unsafe { ffi::MPI_Win_create_dynamic(info_.0, comm_.host.0, &mut new.0) })?;
        let handle = cx.new_window(&comm_, new, Flavor::Dynamic, abi::c::MPI_BOTTOM as u32, 0, 1)?;
        Ok(cx.mem.write_i32(win, handle)?)
    })
}

#[inline]
pub fn win_attach(mut env: FunctionEnvMut<MpiEnv>, win: i32, base: u32, size: i32) -> Result<i32, Fatal> {
    call_win(&mut env, "MPI_Win_attach", win, |cx| {
        let w = cx.win(win)?;
        if w.flavor != Flavor::Dynamic {
            return Err(MpiError::new(abi::c::MPI_ERR_RMA_FLAVOR, "MPI_Win_attach needs a window made by MPI_Win_create_dynamic"));
        }
        let host = w.host;
        if size < 0 {
            return Err(MpiError::new(abi::c::MPI_ERR_SIZE, format!("negative size {size}")));
        }
        let at = cx.mem.range(base, size as u64)?;
        cx.host(unsafe { ffi::MPI_Win_attach(host.0, at as _, size as isize) })
    })
}

#[inline]
pub fn win_detach(mut env: FunctionEnvMut<MpiEnv>, win: i32, base: u32) -> Result<i32, Fatal> {
    call_win(&mut env, "MPI_Win_detach", win, |cx| {
        let host = cx.win(win)?.host;
        // the host library finds the region attached at this address
        let at = cx.mem.range(base, 0)?;
        cx.host(unsafe { ffi::MPI_Win_detach(host.0, at as _) })
    })
}

#[inline]
pub fn win_free(mut env: FunctionEnvMut<MpiEnv>, win: u32) -> Result<i32, Fatal> {
    let mut handle = WIN_NULL;
    let rc = call_win(&mut env, "MPI_Win_free", WIN_NULL, |cx| {
        handle = cx.mem.read_i32(win)?;
        cx.win(handle).map(drop)
    })?;
    if rc != abi::c::MPI_SUCCESS {
        return Ok(rc);
    }
    // attribute delete callbacks run first, with the window still valid
    let rc = attr::delete_all(&mut env, "MPI_Win_free", attr::Kind::Win, handle)?;
    if rc != abi::c::MPI_SUCCESS {
        return Ok(rc);
    }
    call_win(&mut env, "MPI_Win_free", handle, |cx| {
        let mut host = cx.win(handle)?.host;
        cx.host(unsafe { ffi::MPI_Win_free(&mut host.0) })?;
        let w = cx.bridge.wins.remove(handle).expect("checked above");
        cx.bridge.release_errhandler(w.errhandler);
        for memory in [w.allocated, w.attr_slots].into_iter().flatten() {
            cx.guest_free(memory);
        }
        if let Some(seg) = w.shared {
            cx.unmap_node_segment(seg);
        }
        Ok(cx.mem.write_i32(win, WIN_NULL)?)
    })
}

/// At MPI_Finalize, frees on the host the windows the program left open.
/// A program may end without freeing its objects (MPI-4.1 11.2.2), but
/// Debian's MPICH 4.0.2 over UCX then aborts in MPI_Finalize (an assertion
/// in UCX's registration cache: the window's memory is still registered),
/// natively too. MPI_Win_free is collective over the window's group, and a
/// rank with an access or exposure epoch open gets an error from it and
/// leaves while the others wait: so for each window, in the order the
/// windows were made (the same at every rank of a group), its ranks first
/// agree, over a communicator of the window's group, that none has an
/// epoch open (`Bridge::open_epochs`) or a session (whose window it may
/// be). A window they do not agree on is left to the host as before. No
/// attribute delete callbacks run: MPI_Finalize frees no object.
pub fn free_left_windows(cx: &mut Ctx) -> MpiResult {
    let wins = &cx.bridge.wins;
    let mut left: Vec<(u64, i32)> = wins.user_handles().filter_map(|h| wins.get(h).map(|w| (w.made, h))).collect();
    left.sort_unstable();
    let world = cx.comm(abi::c::MPI_COMM_WORLD)?.host;
    for (_, handle) in left {
        let mut host = cx.win(handle)?.host;
        let (mut group, mut comm) = (host_mpi::null_group(), host_mpi::null_communicator());
        // a window over processes outside MPI_COMM_WORLD (spawned, joined) stays
        let made = unsafe {
            ffi::MPI_Win_get_group(host.0, &mut group.0) == host_mpi::SUCCESS
                && ffi::MPI_Comm_create_group(world.0, group.0, LEFT_WINDOWS_TAG, &mut comm.0) == host_mpi::SUCCESS
        };
        unsafe { ffi::MPI_Group_free(&mut group.0) };
        if !made {
            continue;
        }
        let quiet = if cx.bridge.open_epochs != 0 {
            Err(MpiError::new(abi::c::MPI_ERR_RMA_SYNC, "an epoch is open"))
        } else if cx.bridge.sessions.user_handles().next().is_some() {
            Err(MpiError::new(abi::c::MPI_ERR_SESSION, "a session is open"))
        } else {
            Ok(())
        };
        let agreed = cx.agree(comm, quiet).is_ok();
        unsafe { ffi::MPI_Comm_free(&mut comm.0) };
        if agreed && unsafe { ffi::MPI_Win_free(&mut host.0) } == host_mpi::SUCCESS {
            cx.bridge.wins.remove(handle);
        }
    }
    Ok(())
}

/// The tag of `free_left_windows`'s MPI_Comm_create_group calls (no other
/// is pending at MPI_Finalize).
const LEFT_WINDOWS_TAG: i32 = 0x5749;

#[inline]
pub fn win_set_name(mut env: FunctionEnvMut<MpiEnv>, win: i32, name: u32) -> Result<i32, Fatal> {
    call_win(&mut env, "MPI_Win_set_name", win, |cx| {
        let host = cx.win(win)?.host;
        let name = cx.cstr(name, abi::c::MPI_MAX_OBJECT_NAME as usize)?;
        cx.host(unsafe { ffi::MPI_Win_set_name(host.0, name.as_ptr()) })
    })
}

#[inline]
pub fn win_get_name(mut env: FunctionEnvMut<MpiEnv>, win: i32, name: u32, resultlen: u32) -> Result<i32, Fatal> {
    call_win(&mut env, "MPI_Win_get_name", win, |cx| {
        let host = cx.win(win)?.host;
        let mut buf = vec![0u8; host_mpi::constants().int("MPI_MAX_OBJECT_NAME") as usize + 1];
        let mut len = 0;
        cx.host(unsafe { ffi::MPI_Win_get_name(host.0, buf.as_mut_ptr() as *mut _, &mut len) })?;
        buf.truncate(len.max(0) as usize);
        cx.write_string(name, resultlen, &String::from_utf8_lossy(&buf), abi::c::MPI_MAX_OBJECT_NAME)
    })
}

/// The error of an invalid window handle (given the bridge: see
/// `rma_transfer`).
#[cold]
#[inline(never)]
fn invalid_win(bridge: &Bridge, handle: i32) -> MpiError {
    if bridge.ready {
        MpiError::new(abi::c::MPI_ERR_WIN, format!("invalid window handle {handle:#x}"))
    } else {
        bridge.not_running()
    }
}

/// `check_rma_transfer`'s sizes from the host (given the bridge: a context
/// that reaches a function not inlined is stored on every call, call.rs).
#[inline(never)]
fn rma_transfer(bridge: &Bridge, sent: (i64, &DatatypeEntry), (count, dt): (i64, &DatatypeEntry)) -> MpiResult {
    let (sent, room) = (bridge.host_bytes(sent.0, sent.1.host.0)?, bridge.host_bytes(count, dt.host.0)?);
    if sent > room {
        return Err(MpiError::new(abi::c::MPI_ERR_TRUNCATE, format!("the {sent} bytes sent do not fit the receiving side's {room}")));
    }
    if sent < room {
        return Err(MpiError::new(
            abi::c::MPI_ERR_COUNT,
            format!("the receiving side's {room} bytes are more than the {sent} sent: one-sided transfers must move as many bytes on both sides here"),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_parts_are_contiguous_unless_asked_otherwise() {
        assert_eq!(shared_layout(&[10, 0, 7], false), (vec![0, 10, 10], 17));
        assert_eq!(shared_layout(&[10, 0, 7], true), (vec![0, 4096, 4096], 4103));
        assert_eq!(shared_layout(&[], false), (vec![], 0));
    }
}
