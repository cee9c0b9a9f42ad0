//! Node-shared segments mapped into a guest's linear memory: the host side
//! of MPI shared windows and Karmem regions (the MPI collectives around it
//! are in `mpi/node_segment.rs`).
//!
//! A segment is a memfd: it has no name in any file system, so nothing is
//! left in /dev/shm when a job dies, whatever killed it. The creating rank
//! publishes (pid, fd); the node's other ranks open `/proc/<pid>/fd/<fd>`,
//! which gives them the same file.
//!
//! A segment is mapped `MAP_SHARED | MAP_FIXED` over pages of the guest's
//! linear memory that the embedder itself added with `memory.grow`: the
//! guest's allocator never got them (its sbrk only sees what comes after),
//! they lie inside the 4 GiB the sandbox reserves (never in the guard
//! after it), and the memory never moves. When a segment is unmapped its
//! pages become private zero pages again and are kept for the next segment.
//!
//! Page protection enforces who may write (Karmem policies). A store the
//! policy forbids faults; `report_faults`' signal handler names the region
//! on stderr and passes the fault on to Wasmer's handler, which turns a
//! guest's fault into a trap (a host library's fault ends the process).
use std::{
    ffi::CString,
    io,
    os::fd::{AsRawFd, FromRawFd, OwnedFd},
    sync::atomic::{AtomicPtr, AtomicUsize, Ordering},
};

/// Host pages are at most this large on the systems we run on; segments
/// and their parts are aligned to it so protections apply to them alone.
pub const PAGE: u64 = 4096;
/// Guest memory grows by wasm pages.
pub const WASM_PAGE: u64 = 65536;

pub fn round_up(n: u64, to: u64) -> u64 {
    n.div_ceil(to) * to
}

/// A memfd segment this process created or opened.
pub struct Segment {
    fd: OwnedFd,
    pub len: u64,
}

impl Segment {
    /// A new zero-filled segment of `len` bytes (a multiple of WASM_PAGE).
    pub fn create(name: &str, len: u64) -> io::Result<Self> {
        let cname = CString::new(format!("wasm-mpi:{name}")).unwrap_or_default();
        // Safety: a valid C string; the fd is checked and owned below.
        let fd = unsafe { libc::memfd_create(cname.as_ptr(), libc::MFD_CLOEXEC) };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        let fd = unsafe { OwnedFd::from_raw_fd(fd) };
        if unsafe { libc::ftruncate(fd.as_raw_fd(), len as libc::off_t) } != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(Self { fd, len })
    }

    /// The segment another process on this node created, from its (pid, fd).
    pub fn open(pid: i64, fd: i64, len: u64) -> io::Result<Self> {
        let path = CString::new(format!("/proc/{pid}/fd/{fd}")).expect("no NUL");
        let fd = unsafe { libc::open(path.as_ptr(), libc::O_RDWR | libc::O_CLOEXEC) };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        let fd = unsafe { OwnedFd::from_raw_fd(fd) };
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        if unsafe { libc::fstat(fd.as_raw_fd(), &mut st) } != 0 {
            return Err(io::Error::last_os_error());
        }
        if (st.st_size as u64) < len {
            return Err(io::Error::new(io::ErrorKind::InvalidData, format!("the segment has {} bytes, not {len}", st.st_size)));
        }
        Ok(Self { fd, len })
    }

    /// (pid, fd) for the node's other ranks.
    pub fn locator(&self) -> (i64, i64) {
        (std::process::id() as i64, self.fd.as_raw_fd() as i64)
    }

    /// Maps the segment over guest bytes `[at, at + len)` of the memory
    /// whose base is `base`. Those bytes must be guest pages the embedder
    /// owns (grown for the purpose, or a previous segment's).
    ///
    /// # Safety
    /// `base + at .. base + at + len` must lie inside the guest memory.
    pub unsafe fn map_at(&self, base: *mut u8, at: u32) -> io::Result<()> {
        let addr = base.add(at as usize) as *mut libc::c_void;
        let flags = libc::MAP_SHARED | libc::MAP_FIXED;
        let p = libc::mmap(addr, self.len as usize, libc::PROT_READ | libc::PROT_WRITE, flags, self.fd.as_raw_fd(), 0);
        if p == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }

    /// A second, host-only mapping (for what the host writes whatever the
    /// guest's protections are, e.g. a region header).
    pub fn map_host(&self) -> io::Result<HostView> {
        let p = unsafe {
            libc::mmap(std::ptr::null_mut(), self.len as usize, libc::PROT_READ | libc::PROT_WRITE, libc::MAP_SHARED, self.fd.as_raw_fd(), 0)
        };
        if p == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        Ok(HostView { at: p as *mut u8, len: self.len as usize })
    }
}

/// A host-only mapping of a segment.
pub struct HostView {
    pub at: *mut u8,
    len: usize,
}

impl Drop for HostView {
    fn drop(&mut self) {
        unsafe { libc::munmap(self.at as *mut libc::c_void, self.len) };
    }
}

/// Puts private zero pages back over guest bytes `[at, at + len)` (a
/// segment mapped there is released by this process).
///
/// # Safety
/// The range must lie inside the guest memory.
pub unsafe fn unmap_from(base: *mut u8, at: u32, len: u64) -> io::Result<()> {
    let addr = base.add(at as usize) as *mut libc::c_void;
    let flags = libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED;
    let p = libc::mmap(addr, len as usize, libc::PROT_READ | libc::PROT_WRITE, flags, -1, 0);
    if p == libc::MAP_FAILED {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Sets the protection of guest bytes `[at, at + len)` (page-aligned):
/// writable or read-only.
///
/// # Safety
/// The range must lie inside the guest memory, over a mapped segment.
pub unsafe fn protect(base: *mut u8, at: u64, len: u64, writable: bool) -> io::Result<()> {
    if len == 0 {
        return Ok(());
    }
    let prot = if writable { libc::PROT_READ | libc::PROT_WRITE } else { libc::PROT_READ };
    if libc::mprotect(base.add(at as usize) as *mut libc::c_void, len as usize, prot) != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

// ---- naming the region a forbidden store hit ----

/// Host ranges under a write policy, and the message naming each. Fixed
/// slots of atomics: the signal handler reads them without locking.
const SLOTS: usize = 64;
struct Slot {
    start: AtomicUsize,
    end: AtomicUsize,
    /// The guest memory's base, to print guest addresses.
    base: AtomicUsize,
    /// A leaked message (`len` bytes); null when the slot is free.
    message: AtomicPtr<u8>,
    len: AtomicUsize,
}
#[allow(clippy::declare_interior_mutable_const)]
const FREE: Slot = Slot {
    start: AtomicUsize::new(0),
    end: AtomicUsize::new(0),
    base: AtomicUsize::new(0),
    message: AtomicPtr::new(std::ptr::null_mut()),
    len: AtomicUsize::new(0),
};
static WATCHED: [Slot; SLOTS] = [FREE; SLOTS];
/// The SIGSEGV action in place before ours (Wasmer's), as a leaked box.
static PREVIOUS: AtomicPtr<libc::sigaction> = AtomicPtr::new(std::ptr::null_mut());

/// Names the host range `[start, end)` (inside the guest memory at `base`)
/// in the message printed when a store there faults; returns the slot to
/// pass to `unwatch`, or None when every slot is taken (then a fault there
/// is reported as a plain trap).
pub fn watch(base: *mut u8, start: *mut u8, end: *mut u8, message: String) -> Option<usize> {
    install_handler();
    let text: &'static mut [u8] = Box::leak(message.into_bytes().into_boxed_slice());
    for (i, slot) in WATCHED.iter().enumerate() {
        if slot.message.compare_exchange(std::ptr::null_mut(), text.as_mut_ptr(), Ordering::AcqRel, Ordering::Acquire).is_ok() {
            slot.len.store(text.len(), Ordering::Release);
            slot.base.store(base as usize, Ordering::Release);
            slot.start.store(start as usize, Ordering::Release);
            slot.end.store(end as usize, Ordering::Release);
            return Some(i);
        }
    }
    // Safety: leaked above and never published.
    drop(unsafe { Box::from_raw(text as *mut [u8]) });
    None
}

pub fn unwatch(slot: usize) {
    let s = &WATCHED[slot];
    s.end.store(0, Ordering::Release);
    s.start.store(0, Ordering::Release);
    let text = s.message.swap(std::ptr::null_mut(), Ordering::AcqRel);
    if !text.is_null() {
        let len = s.len.load(Ordering::Acquire);
        // Safety: the slot's leaked message, taken out of the slot above.
        drop(unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(text, len)) });
    }
}

/// The watched slot whose range holds host address `addr`.
fn watched(addr: usize) -> Option<&'static Slot> {
    WATCHED.iter().find(|s| {
        let (start, end) = (s.start.load(Ordering::Acquire), s.end.load(Ordering::Acquire));
        start <= addr && addr < end
    })
}

fn install_handler() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| crate::segv_chain::install(libc::SIGSEGV, on_fault, &PREVIOUS));
}

/// Writes the region's message if the fault is in a watched range, then
/// hands the fault to the handler that was there before.
extern "C" fn on_fault(sig: libc::c_int, info: *mut libc::siginfo_t, context: *mut libc::c_void) {
    // Safety: the kernel passes a valid siginfo; only async-signal-safe
    // calls (write) below.
    let addr = unsafe { (*info).si_addr() } as usize;
    if let Some(slot) = watched(addr) {
        let text = slot.message.load(Ordering::Acquire);
        if !text.is_null() {
            let len = slot.len.load(Ordering::Acquire);
            let mut hex = [0u8; 32];
            let guest = addr - slot.base.load(Ordering::Acquire);
            let n = format_hex(guest as u64, &mut hex);
            unsafe {
                libc::write(2, text as *const libc::c_void, len);
                libc::write(2, hex.as_ptr() as *const libc::c_void, n);
                libc::write(2, b"\n".as_ptr() as *const libc::c_void, 1);
            }
        }
    }
    // Safety: this handler's own arguments.
    unsafe { crate::segv_chain::forward(&PREVIOUS, sig, info, context) }
}

/// `0x...` of `v` into `out`; returns the length.
pub(crate) fn format_hex(v: u64, out: &mut [u8; 32]) -> usize {
    out[0] = b'0';
    out[1] = b'x';
    let digits = (64 - v.leading_zeros()).div_ceil(4).max(1) as usize;
    for i in 0..digits {
        let d = ((v >> (4 * (digits - 1 - i))) & 0xf) as u8;
        out[2 + i] = if d < 10 { b'0' + d } else { b'a' + d - 10 };
    }
    2 + digits
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_formatting() {
        let mut b = [0u8; 32];
        let n = format_hex(0x1a2f0, &mut b);
        assert_eq!(&b[..n], b"0x1a2f0");
        let n = format_hex(0, &mut b);
        assert_eq!(&b[..n], b"0x0");
        let n = format_hex(u64::MAX, &mut b);
        assert_eq!(&b[..n], b"0xffffffffffffffff");
    }

    #[test]
    fn a_segment_opened_through_proc_shares_its_bytes() {
        let a = Segment::create("test", WASM_PAGE).unwrap();
        let (pid, fd) = a.locator();
        let b = Segment::open(pid, fd, WASM_PAGE).unwrap();
        let (va, vb) = (a.map_host().unwrap(), b.map_host().unwrap());
        unsafe {
            *va.at.add(100) = 42;
            assert_eq!(*vb.at.add(100), 42);
        }
        assert!(Segment::open(pid, fd, 2 * WASM_PAGE).is_err(), "a segment shorter than asked for is refused");
    }

    #[test]
    fn mapping_over_private_pages_and_back() {
        // stands in for a guest memory: 4 wasm pages
        let len = 4 * WASM_PAGE as usize;
        let base = unsafe {
            libc::mmap(std::ptr::null_mut(), len, libc::PROT_READ | libc::PROT_WRITE, libc::MAP_PRIVATE | libc::MAP_ANONYMOUS, -1, 0)
        } as *mut u8;
        let seg = Segment::create("test", WASM_PAGE).unwrap();
        let view = seg.map_host().unwrap();
        unsafe {
            seg.map_at(base, WASM_PAGE as u32).unwrap();
            *base.add(WASM_PAGE as usize + 8) = 7;
            assert_eq!(*view.at.add(8), 7, "a store in guest memory reaches the segment");
            *base.add(8) = 1;
            assert_eq!(*view.at, 0, "the pages before are not the segment");
            unmap_from(base, WASM_PAGE as u32, WASM_PAGE).unwrap();
            assert_eq!(*base.add(WASM_PAGE as usize + 8), 0, "private zero pages again");
            *base.add(WASM_PAGE as usize + 8) = 9;
            assert_eq!(*view.at.add(8), 7, "no longer shared");
            libc::munmap(base as *mut libc::c_void, len);
        }
    }
}
