//! The one place where guest addresses become host addresses.
//!
//! The guest's linear memory is a fixed reservation in the host address space
//! (Wasmer's static memory style, asserted at instantiation), so a guest
//! pointer is an offset from its base and stays valid across `memory.grow`.
//! Every range handed to the host is checked in full against the memory's
//! current size, with 64-bit arithmetic so `ptr + len` cannot wrap.
//! A wasm memory never shrinks, so a range inside the last size seen is
//! inside the current memory: the size is cached across calls and re-read
//! only when a range does not fit it.
//! Wasmer's `WasmPtr::deref` is not used: it rounds pointers down to the
//! type's alignment and checks only `size_of::<T>()` bytes.
use std::{cell::Cell, fmt};

/// The guest memory's base and a size it has at least.
pub struct GuestMemory<'a> {
    base: *mut u8,
    size: Cell<u64>,
    /// How to learn that the memory grew; `None` for a fixed view.
    growth: Option<Growth<'a>>,
}

/// Where the memory's current size is (the engine's own record of it, read
/// through a pointer: a closure to ask for it cost each call the building of
/// the closure), and where each size read is recorded for the next call's
/// memory to start from: so what any view of the memory learns (an
/// out-of-line check works on a `view`) carries over, not just what the
/// first view learns.
#[derive(Clone, Copy)]
struct Growth<'a> {
    current: *const usize,
    known: &'a Cell<u64>,
}

/// A guest range `[start, start + len)` that does not lie inside the memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OutOfBounds {
    pub start: i64,
    pub len: u64,
    pub size: u64,
}

impl fmt::Display for OutOfBounds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "guest range [{:#x}, {:#x}) ({} bytes) is outside the guest memory of {} bytes",
            self.start,
            self.start as i128 + self.len as i128,
            self.len,
            self.size
        )
    }
}

impl<'a> GuestMemory<'a> {
    /// # Safety
    /// `base` must be the memory's (fixed) base, `known` a size it has had
    /// (updated whenever a view reads the size), and `current` must hold
    /// its current size in bytes for as long as the view lives.
    pub unsafe fn new(base: *mut u8, known: &'a Cell<u64>, current: *const usize) -> Self {
        Self { base, size: Cell::new(known.get()), growth: Some(Growth { current, known }) }
    }

    /// A view at a fixed size, for the host's own work between guest calls
    /// (callbacks): it does not notice later growth.
    ///
    /// # Safety
    /// `base` must be valid for reads and writes of `size` bytes.
    pub unsafe fn from_raw(base: *mut u8, size: u64) -> Self {
        Self { base, size: Cell::new(size), growth: None }
    }

    /// A second view of the same memory, from the size this one knows
    /// (what it learns of growth stays with it, and is recorded for the
    /// next call).
    #[inline]
    pub fn view(&self) -> Self {
        Self { base: self.base, size: Cell::new(self.size.get()), growth: self.growth }
    }

    /// The largest size this view has seen.
    #[cfg(test)]
    pub fn known_size(&self) -> u64 {
        self.size.get()
    }

    /// `range` against the size this view already knows, without asking
    /// whether the memory grew (`None` then: `range` decides); for the
    /// inlined fast path of the per-call buffer checks.
    #[inline(always)]
    pub fn range_known(&self, ptr: u32, len: u64) -> Option<*mut u8> {
        let inside = (ptr as u64).checked_add(len).is_some_and(|end| end <= self.size.get());
        inside.then(|| self.base.wrapping_add(ptr as usize))
    }

    /// The host address of guest bytes `[ptr, ptr + len)`, all of them checked.
    #[inline]
    pub fn range(&self, ptr: u32, len: u64) -> Result<*mut u8, OutOfBounds> {
        self.span(ptr, 0, len)
    }

    /// The host address of guest address `ptr`, after checking the bytes
    /// `[ptr + lb, ptr + lb + len)`; `lb` is a datatype's (possibly negative)
    /// true lower bound.
    #[inline]
    pub fn span(&self, ptr: u32, lb: i64, len: u64) -> Result<*mut u8, OutOfBounds> {
        let start = ptr as i64 + lb; // |lb| < 2^63 - 2^32: no overflow for real extents
        let fits = |size: u64| start >= 0 && (start as u64).checked_add(len).is_some_and(|end| end <= size);
        if !fits(self.size.get()) {
            if let Some(Growth { current, known }) = self.growth {
                // the memory may have grown since. Safety: `new`'s contract.
                let size = unsafe { current.read() } as u64;
                self.size.set(size);
                known.set(size);
            }
            if !fits(self.size.get()) {
                return Err(OutOfBounds { start, len, size: self.size.get() });
            }
        }
        // In bounds, so `ptr` itself lies inside the reservation (or at its end
        // when lb > 0 only reaches forward); wrapping_add never leaves it.
        Ok(self.base.wrapping_add(ptr as usize))
    }

    /// Guest address for a buffer MPI will not touch (count 0): any value is
    /// fine for MPI, but the address we hand over stays inside the memory.
    #[inline]
    pub fn unchecked_empty(&self, ptr: u32) -> *mut u8 {
        self.base.wrapping_add((ptr as u64).min(self.size.get()) as usize)
    }

    /// The guest address of host pointer `p` when the bytes `[p + lo, p + hi)`
    /// (an operand the host MPI hands over) all lie inside the memory, so
    /// the guest can use `p` as it is; `None` when they do not.
    pub fn guest_address(&self, p: *const u8, lo: i64, hi: i64) -> Option<u32> {
        let start = p as i128 - self.base as i128;
        let size = self.size.get() as i128;
        let inside = lo < hi && start + lo as i128 >= 0 && start + hi as i128 <= size;
        inside.then(|| u32::try_from(start).ok()).flatten()
    }

    pub fn read_i32(&self, ptr: u32) -> Result<i32, OutOfBounds> {
        let p = self.range(ptr, 4)?;
        Ok(unsafe { (p as *const i32).read_unaligned() })
    }

    pub fn write_i32(&self, ptr: u32, value: i32) -> Result<(), OutOfBounds> {
        let p = self.range(ptr, 4)?;
        unsafe { (p as *mut i32).write_unaligned(value) };
        Ok(())
    }

    /// A copy of `len` guest bytes.
    pub fn read_bytes(&self, ptr: u32, len: u32) -> Result<Vec<u8>, OutOfBounds> {
        let p = self.range(ptr, len as u64)?;
        Ok(unsafe { std::slice::from_raw_parts(p, len as usize) }.to_vec())
    }

    pub fn write_bytes(&self, ptr: u32, bytes: &[u8]) -> Result<(), OutOfBounds> {
        let p = self.range(ptr, bytes.len() as u64)?;
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), p, bytes.len()) };
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SIZE: usize = 64 * 1024;

    fn mem(buf: &mut Vec<u8>) -> GuestMemory<'static> {
        unsafe { GuestMemory::from_raw(buf.as_mut_ptr(), buf.len() as u64) }
    }

    #[test]
    fn in_bounds_ranges_translate_to_base_plus_offset() {
        let mut buf = vec![0u8; SIZE];
        let m = mem(&mut buf);
        let base = buf.as_mut_ptr();
        assert_eq!(m.range(0, 1).unwrap(), base);
        assert_eq!(m.range(100, 200).unwrap(), base.wrapping_add(100));
        assert_eq!(m.range(0, SIZE as u64).unwrap(), base);
    }

    #[test]
    fn a_range_ending_exactly_at_the_end_is_allowed() {
        let mut buf = vec![0u8; SIZE];
        let m = mem(&mut buf);
        assert!(m.range((SIZE - 8) as u32, 8).is_ok());
        assert!(m.range(SIZE as u32, 0).is_ok());
    }

    #[test]
    fn one_byte_past_the_end_is_rejected() {
        let mut buf = vec![0u8; SIZE];
        let m = mem(&mut buf);
        let err = m.range((SIZE - 8) as u32, 9).unwrap_err();
        assert_eq!(err, OutOfBounds { start: (SIZE - 8) as i64, len: 9, size: SIZE as u64 });
        assert!(m.range(SIZE as u32, 1).is_err());
        // the whole buffer is checked, not just its first element
        assert!(m.range(16, SIZE as u64).is_err());
    }

    #[test]
    fn ptr_plus_len_wrapping_in_32_bits_is_rejected() {
        let mut buf = vec![0u8; SIZE];
        let m = mem(&mut buf);
        // 0xffff_fff0 + 0x20 wraps to 0x10 in 32-bit arithmetic
        assert!(m.range(0xffff_fff0, 0x20).is_err());
        assert!(m.range(u32::MAX, 1).is_err());
        assert!(m.range(8, u64::MAX).is_err());
        assert!(m.range(0, u32::MAX as u64 + 1).is_err());
    }

    #[test]
    fn a_grown_memory_is_noticed_when_a_range_does_not_fit_the_known_size() {
        let mut buf = vec![0u8; 2 * SIZE];
        let current_size = Cell::new(SIZE);
        let known = Cell::new(SIZE as u64);
        let m = unsafe { GuestMemory::new(buf.as_mut_ptr(), &known, current_size.as_ptr()) };
        assert!(m.range(SIZE as u32, 8).is_err(), "not grown yet");
        current_size.set(2 * SIZE); // memory.grow
        assert!(m.range(SIZE as u32, 8).is_ok());
        assert_eq!(m.known_size(), 2 * SIZE as u64);
        assert!(m.range((2 * SIZE - 4) as u32, 8).is_err());
    }

    #[test]
    fn a_view_starts_from_the_known_size_and_keeps_what_it_learns() {
        let mut buf = vec![0u8; 2 * SIZE];
        let base = buf.as_mut_ptr();
        let current_size = Cell::new(SIZE);
        let known = Cell::new(SIZE as u64);
        let m = unsafe { GuestMemory::new(base, &known, current_size.as_ptr()) };
        current_size.set(2 * SIZE); // memory.grow
        let v = m.view();
        assert_eq!(v.known_size(), SIZE as u64);
        assert_eq!(v.range(SIZE as u32, 8), Ok(base.wrapping_add(SIZE)));
        assert_eq!(v.known_size(), 2 * SIZE as u64);
        assert_eq!(m.known_size(), SIZE as u64, "the first view learns growth only when it asks");
        assert!(m.range(SIZE as u32, 8).is_ok());
        assert!(v.range((2 * SIZE - 4) as u32, 8).is_err());
    }

    #[test]
    fn growth_a_view_learns_is_recorded_for_the_next_call() {
        let mut buf = vec![0u8; 2 * SIZE];
        let base = buf.as_mut_ptr();
        let (current_size, known) = (Cell::new(SIZE), Cell::new(SIZE as u64));
        let m = unsafe { GuestMemory::new(base, &known, current_size.as_ptr()) };
        current_size.set(2 * SIZE); // memory.grow
        assert!(m.range_known(SIZE as u32, 8).is_none());
        // only a view (an out-of-line check) asks
        assert!(m.view().range(SIZE as u32, 8).is_ok());
        assert_eq!(m.known_size(), SIZE as u64);
        assert_eq!(known.get(), 2 * SIZE as u64);
        // the next call starts from the recorded size: its inline check passes
        let next = unsafe { GuestMemory::new(base, &known, current_size.as_ptr()) };
        assert_eq!(next.range_known(SIZE as u32, 8), Some(base.wrapping_add(SIZE)));
    }

    #[test]
    fn the_known_size_fast_path_agrees_with_range_and_never_asks_for_growth() {
        let mut buf = vec![0u8; 2 * SIZE];
        let current_size = Cell::new(2 * SIZE);
        let known = Cell::new(SIZE as u64);
        let m = unsafe { GuestMemory::new(buf.as_mut_ptr(), &known, current_size.as_ptr()) };
        let cases = [(0, 0), (0, SIZE as u64), (SIZE as u32 - 8, 8), (SIZE as u32 - 8, 9), (SIZE as u32, 0), (SIZE as u32, 1), (u32::MAX, 1), (8, u64::MAX), (0xffff_fff0, 0x20)];
        for (ptr, len) in cases {
            let fast = m.range_known(ptr, len);
            // what it knew before the check: the fast path never learned the growth
            assert_eq!((m.known_size(), known.get()), (SIZE as u64, SIZE as u64), "{ptr:#x} {len}");
            if let Some(p) = fast {
                assert_eq!(Ok(p), m.range(ptr, len), "{ptr:#x} {len}");
            } else {
                assert!(ptr as u64 + len.min(1 << 40) > SIZE as u64, "{ptr:#x} {len} fits the known size");
            }
        }
        // once `range` has seen the memory grow, the fast path knows it too
        assert!(m.range(SIZE as u32, 8).is_ok());
        assert!(m.range_known(SIZE as u32, 8).is_some());
    }

    #[test]
    fn negative_lower_bounds_are_checked_below_the_pointer() {
        let mut buf = vec![0u8; SIZE];
        let m = mem(&mut buf);
        assert!(m.span(8, -8, 16).is_ok());
        assert!(m.span(8, -9, 16).is_err());
    }

    #[test]
    fn scalar_access_is_unaligned_and_checked() {
        let mut buf = vec![0u8; SIZE];
        let m = mem(&mut buf);
        m.write_i32(1, -5).unwrap();
        assert_eq!(m.read_i32(1).unwrap(), -5);
        assert_eq!(&buf[1..5], &(-5i32).to_le_bytes());
        let m = mem(&mut buf);
        assert!(m.write_i32((SIZE - 3) as u32, 1).is_err());
        assert!(m.write_bytes((SIZE - 2) as u32, b"abc").is_err());
        assert_eq!(m.unchecked_empty(u32::MAX), buf.as_mut_ptr().wrapping_add(SIZE));
    }

    #[test]
    fn host_pointers_map_back_only_when_the_whole_operand_is_inside() {
        let mut buf = vec![0u8; SIZE];
        let m = mem(&mut buf);
        let base = buf.as_ptr();
        assert_eq!(m.guest_address(base.wrapping_add(16), 0, 8), Some(16));
        assert_eq!(m.guest_address(base.wrapping_add(16), -16, 8), Some(16));
        assert_eq!(m.guest_address(base.wrapping_add(16), -17, 8), None, "starts below the memory");
        assert_eq!(m.guest_address(base.wrapping_add(SIZE - 8), 0, 9), None, "ends past it");
        // a pointer past the end whose operand lies below it (negative
        // extent) is still a wasm32 address the guest can count back from
        assert_eq!(m.guest_address(base.wrapping_add(SIZE + 64), -128, -64), Some(SIZE as u32 + 64));
        assert_eq!(m.guest_address(base.wrapping_add(SIZE + 64), -128, -63), None, "reaches past the end");
        assert_eq!(m.guest_address(base.wrapping_sub(64), 0, 8), None, "host memory before the base");
        assert_eq!(m.guest_address(base, 0, 0), None, "empty operand");
    }
}
