//! Guest buffers and arrays: every byte MPI will touch checked before the
//! host address goes to MPI, and int arrays copied where guest code could
//! change them while the host reads them.
use super::arrays::Element;
use super::super::{
    call::Ctx,
    datatype::{self, DatatypeEntry},
    errors::{MpiError, MpiResult},
};
use crate::{abi, guest_memory::GuestMemory};

impl Ctx<'_> {
    /// The host address of a guest buffer of `count` elements of `dt`, after
    /// checking every byte MPI touches (the datatype's hull, `DatatypeEntry::hull`).
    /// MPI_IN_PLACE is not a buffer: arguments that accept it test for it
    /// before translating (`in_place_arg`).
    #[inline(always)]
    pub fn buffer(&self, ptr: u32, count: i64, dt: &DatatypeEntry) -> MpiResult<*mut u8> {
        // The common case inline, in a few instructions: a dense type
        // (predefined ones, contiguous derived ones) in guest-sized amounts
        // within the memory size this call knows. Its hull is
        // [0, count·extent), and two 32-bit factors cannot overflow.
        if let Some(len) = dt.dense_len(count) {
            if ptr != abi::c::MPI_IN_PLACE as u32 {
                if let Some(p) = self.mem.range_known(ptr, len) {
                    return Ok(p);
                }
            }
        }
        // by value: a reference would keep the caller's copy of the entry in
        // memory, and the fast path above would read it back from there; a
        // view of the memory likewise, not the context or its memory: their
        // addresses then never escape the inlined call, so the context need
        // not be stored whole on every call
        any_buffer(self.mem.view(), ptr, count, *dt)
    }

    /// MPI_IN_PLACE in an argument that does not accept it is an error.
    #[inline]
    pub fn not_in_place(&self, ptr: u32) -> MpiResult {
        not_in_place(ptr)
    }

    /// Whether buffer argument `ptr` is MPI_IN_PLACE, for an argument that
    /// accepts it where `allowed` holds (the standard's rule for this
    /// argument at this rank); MPI_IN_PLACE elsewhere is an error.
    #[inline]
    pub fn in_place_arg(&self, ptr: u32, allowed: bool) -> MpiResult<bool> {
        if ptr != abi::c::MPI_IN_PLACE as u32 {
            return Ok(false);
        }
        if !allowed {
            return Err(MpiError::new(abi::c::MPI_ERR_BUFFER, "MPI_IN_PLACE is not valid for this argument at this rank"));
        }
        Ok(true)
    }

    /// Checks `count` elements of `dt` that start `offset` bytes from `ptr`
    /// (a w-collective block; `offset` may be negative); its bytes from `ptr`.
    pub fn block(&self, ptr: u32, offset: i64, count: i64, dt: &DatatypeEntry) -> MpiResult<(i128, i128)> {
        self.not_in_place(ptr)?;
        dt.check_committed()?;
        datatype::check_count(count)?;
        let (lo, hi) = dt.hull(count);
        let hull = (offset as i128 + lo, offset as i128 + hi);
        hull_at(&self.mem, ptr, hull)?;
        Ok(hull)
    }

    /// A v-collective buffer: rank i's block holds counts[i] elements at
    /// displs[i] extents from `ptr` (either sign); the hull of all blocks is
    /// checked, on the copies of the arrays that the host gets (returned
    /// with the buffer, so the call need not look them up again).
    #[inline]
    pub fn vbuffer(&mut self, ptr: u32, counts: u32, displs: u32, n: i64, dt: &DatatypeEntry) -> MpiResult<VBuffer<i32>> {
        match dt.dense_extent() {
            Some(extent) if ptr != abi::c::MPI_IN_PLACE as u32 => self.vbuffer_dense(ptr, counts, displs, n, dt, extent),
            _ => self.vbuffer_of(ptr, (counts, Element::Int), (displs, Element::Int), n, dt),
        }
    }

    /// `vbuffer` of a dense type (`DatatypeEntry::dense_extent`): block i
    /// is `[displs[i], displs[i] + counts[i])` extents, so the hull needs
    /// neither the type's bounds nor overflow checks (|d·extent| < 2^62,
    /// (d + c)·extent < 2^63), nor 128-bit arithmetic.
    #[inline(never)]
    fn vbuffer_dense(&mut self, ptr: u32, counts: u32, displs: u32, n: i64, dt: &DatatypeEntry, extent: i64) -> MpiResult<VBuffer<i32>> {
        let (mut lo, mut hi, mut least) = (i64::MAX, i64::MIN, 0);
        let hull = |c: i32, d: i32| {
            least = least.min(c);
            let (c, d) = (i64::from(c), i64::from(d));
            if c > 0 {
                (lo, hi) = (lo.min(d * extent), hi.max((d + c) * extent));
            }
        };
        let Some((counts, displs)) = self.copy_int_pair(counts, displs, n.max(0) as usize, hull)? else {
            // an array this call already copied (Alltoallv's send and
            // receive counts may be one array): checked on that copy
            return self.vbuffer_of(ptr, (counts, Element::Int), (displs, Element::Int), n, dt);
        };
        datatype::check_count(least.into())?;
        if lo >= hi {
            return Ok(VBuffer { buf: self.mem.unchecked_empty(ptr), counts, displs, span: SolidSpan::NONE });
        }
        // lo >= -2^62 and hi < 2^63, so hi - lo fits a u64; the exact
        // 128-bit hull only where this fails (for its error)
        let buf = match self.mem.span(ptr, lo, hi.wrapping_sub(lo) as u64) {
            Ok(buf) => buf,
            Err(_) => hull_at(&self.mem, ptr, (lo.into(), hi.into()))?,
        };
        let span = if dt.solid_extent().is_some() { SolidSpan::hull(buf, (lo.into(), hi.into())) } else { SolidSpan::NONE };
        Ok(VBuffer { buf, counts, displs, span })
    }

    /// The large-count form's v-collective buffer: MPI_Count counts, guest
    /// (32-bit) MPI_Aint displacements.
    pub fn vbuffer_c(&mut self, ptr: u32, counts: u32, displs: u32, n: i64, dt: &DatatypeEntry) -> MpiResult<VBuffer<i64>> {
        self.vbuffer_of(ptr, (counts, Element::Count), (displs, Element::Aint), n, dt)
    }

    fn vbuffer_of<T>(&mut self, ptr: u32, counts: (u32, Element), displs: (u32, Element), n: i64, dt: &DatatypeEntry) -> MpiResult<VBuffer<T>> {
        // `T` is the host's element: C int, or 64 bits for Count and Aint
        debug_assert!([counts.1, displs.1].iter().all(|&e| std::mem::size_of::<T>() == if e == Element::Int { 4 } else { 8 }));
        self.not_in_place(ptr)?;
        dt.check_committed()?;
        let c = self.host_copy(counts.0, n, counts.1)?;
        let d = self.host_copy(displs.0, n, displs.1)?;
        let (c, d) = (self.array(c), self.array(d));
        let fast = match (c.ints(), d.ints()) {
            // C int arrays (all but the `_c` forms): indexed, not zipped
            // (a zip of two slice iterators set up more than one block cost)
            (Some(cs), Some(ds)) => {
                let len = cs.len().min(ds.len());
                vhull64((0..len).map(|i| (i64::from(cs[i]), i64::from(ds[i]))), dt)
            }
            _ => vhull64(c.values().zip(d.values()), dt),
        };
        let hull = match fast {
            Some(h) => h,
            None => vhull(c.values().zip(d.values()), dt)?,
        };
        let (counts, displs) = (c.host_ptr() as _, d.host_ptr() as _);
        let buf = hull_at(&self.mem, ptr, hull)?;
        let span = if dt.solid_extent().is_some() { SolidSpan::hull(buf, hull) } else { SolidSpan::NONE };
        Ok(VBuffer { buf, counts, displs, span })
    }

    /// A guest int array the host writes (results, no guest code runs
    /// meanwhile): checked and handed over in place.
    #[inline]
    pub fn int_array_out(&self, ptr: u32, n: i64) -> MpiResult<*mut i32> {
        Ok(self.mem.range(ptr, n.max(0) as u64 * 4)? as *mut i32)
    }

    /// A call's send and receive buffers may not share a byte (an output
    /// may not alias an input, MPI-4.1 2.6.2; a collective reuses its
    /// buffer through MPI_IN_PLACE). The hosts trust it: MPICH asserts in
    /// its local copy (overlapping `memcpy`) and aborts the job, natively
    /// too, for a send to itself (`MPI_Sendrecv`) and the block a
    /// collective's process sends itself; Open MPI copies what it has
    /// already overwritten. Checked where the types' data fill their
    /// buffers (`SolidSpan`).
    #[inline(always)]
    pub fn check_apart(&self, send: SolidSpan, recv: SolidSpan) -> MpiResult {
        if send.meets(recv) {
            return Err(aliased());
        }
        Ok(())
    }

    /// Int `index` of the guest array at `ptr`: from this call's host copy
    /// of the array when there is one (`translate::arrays`), so a check
    /// sees the value the host gets; else from guest memory.
    pub fn int_at(&self, ptr: u32, index: i32) -> MpiResult<i32> {
        let at = ptr.wrapping_add(4 * index as u32);
        if let Some(v) = self.copied_int(at) {
            return Ok(v);
        }
        Ok(self.mem.read_i32(at)?)
    }

    #[inline]
    pub fn in_place(&self) -> *mut u8 {
        self.bridge.in_place as *mut u8
    }

    /// Writes an output integer (flag, count, size) to the guest.
    pub fn write_int<T: Copy + Into<i64>>(&self, ptr: u32, value: T) -> MpiResult {
        let bytes = value.into().to_le_bytes();
        Ok(self.mem.write_bytes(ptr, &bytes[..std::mem::size_of::<T>()])?)
    }
}

/// A checked v-collective buffer and the host copies of its counts and
/// displacements (`T`: C int, or the large-count forms' 64-bit values).
pub struct VBuffer<T> {
    pub buf: *mut u8,
    pub counts: *const T,
    pub displs: *const T,
    /// The hull's host bytes when the type is dense (`SolidSpan`).
    pub span: SolidSpan,
}

/// The host bytes `[start, end)` a buffer of a type whose data fill it
/// (`DatatypeEntry::solid_extent`) covers, every one of them, for
/// `Ctx::check_apart`. Other types' data may legally interleave with
/// another buffer's, so they get `NONE`, as do buffers MPI does not read
/// at this process and MPI_IN_PLACE.
#[derive(Clone, Copy, Debug)]
pub struct SolidSpan {
    start: usize,
    end: usize,
}

impl SolidSpan {
    pub const NONE: Self = Self { start: 0, end: 0 };

    /// `count` elements of `dt` at host address `buf`, a buffer checked
    /// before (empty, and so apart from any other, for a type that is not
    /// solid).
    #[inline(always)]
    pub fn of(buf: *mut u8, count: i64, dt: &DatatypeEntry) -> Self {
        Self { start: buf as usize, end: (buf as usize).wrapping_add(dt.solid_bytes(count)) }
    }

    /// `len` bytes at host address `start` (checked): packed data.
    #[inline]
    pub fn bytes(start: *mut u8, len: u64) -> Self {
        Self { start: start as usize, end: (start as usize).wrapping_add(len as usize) }
    }

    /// The bytes `[lo, hi)` from host address `buf` (checked), all of
    /// them data of solid types.
    pub fn hull(buf: *mut u8, (lo, hi): (i128, i128)) -> Self {
        if lo >= hi {
            return Self::NONE;
        }
        Self { start: buf.wrapping_offset(lo as isize) as usize, end: buf.wrapping_offset(hi as isize) as usize }
    }

    /// Whether the two share a byte (an empty span shares none, wherever
    /// it starts).
    #[inline(always)]
    fn meets(self, other: Self) -> bool {
        self.start.max(other.start) < self.end.min(other.end)
    }
}

/// `Ctx::buffer` for every type and count, and its errors.
#[inline(never)]
fn any_buffer(mem: GuestMemory, ptr: u32, count: i64, dt: DatatypeEntry) -> MpiResult<*mut u8> {
    not_in_place(ptr)?;
    dt.check_committed()?;
    datatype::check_count(count)?;
    // every real buffer in 64-bit arithmetic; the exact 128-bit hull (and
    // its error) for the rest
    if let Some((lo, hi)) = dt.hull64(count) {
        if lo >= hi {
            return Ok(mem.unchecked_empty(ptr));
        }
        if let Ok(p) = mem.span(ptr, lo, (hi - lo) as u64) {
            return Ok(p);
        }
    }
    hull_at(&mem, ptr, dt.hull(count))
}

#[cold]
#[inline(never)]
fn aliased() -> MpiError {
    MpiError::new(abi::c::MPI_ERR_BUFFER, "the send and receive buffers overlap (an output may not alias an input; a collective reuses its buffer through MPI_IN_PLACE)")
}

/// `Ctx::not_in_place`, for the helpers that take no context.
#[inline]
fn not_in_place(ptr: u32) -> MpiResult {
    if ptr == abi::c::MPI_IN_PLACE as u32 {
        return Err(in_place_refused());
    }
    Ok(())
}

/// Checks guest bytes `ptr + [lo, hi)` and returns the host address of
/// `ptr`; an empty hull touches nothing, so any `ptr` will do.
#[inline]
fn hull_at(mem: &GuestMemory, ptr: u32, (lo, hi): (i128, i128)) -> MpiResult<*mut u8> {
    if lo >= hi {
        return Ok(mem.unchecked_empty(ptr));
    }
    // no wasm32 memory reaches past 4 GiB: anything beyond fails here,
    // and what passes fits the 64-bit check below without overflow
    let (start, end) = (ptr as i128 + lo, ptr as i128 + hi);
    if start < 0 || end > 1 << 32 {
        return Err(outside(ptr, start, end));
    }
    Ok(mem.span(ptr, lo as i64, (hi - lo) as u64)?)
}

/// `vhull` in 64-bit arithmetic, enough for every real array; `None` on a
/// negative count or a bound past ±2^62, which `vhull` then handles.
#[inline]
fn vhull64(blocks: impl Iterator<Item = (i64, i64)>, dt: &DatatypeEntry) -> Option<(i128, i128)> {
    let (mut lo, mut hi) = (i64::MAX, i64::MIN);
    for (c, d) in blocks {
        if c < 0 {
            return None;
        }
        let (l, h) = dt.hull64(c)?;
        if l < h {
            let at = d.checked_mul(dt.extent())?;
            (lo, hi) = (lo.min(at.checked_add(l)?), hi.max(at.checked_add(h)?));
        }
    }
    Some(if lo < hi { (lo as i128, hi as i128) } else { (0, 0) })
}

/// The hull of a v-collective's blocks: `(count, displacement)` pairs, a
/// block being `count` elements of `dt` at `displacement` extents.
fn vhull(blocks: impl Iterator<Item = (i64, i64)>, dt: &DatatypeEntry) -> MpiResult<(i128, i128)> {
    let (mut lo, mut hi) = (i128::MAX, i128::MIN);
    for (c, d) in blocks {
        datatype::check_count(c)?;
        let (l, h) = dt.hull(c);
        if l < h {
            let at = d as i128 * dt.extent() as i128;
            (lo, hi) = (lo.min(at + l), hi.max(at + h));
        }
    }
    Ok(if lo < hi { (lo, hi) } else { (0, 0) })
}

#[cfg(test)]
mod span_tests {
    use super::*;
    use crate::{guest_memory::GuestMemory, host_mpi, mpi::state::Bridge};

    const SIZE: usize = 64 * 1024;

    fn int(extent: i64) -> DatatypeEntry {
        DatatypeEntry::int_shaped(extent, 0, 4)
    }

    fn with_ctx(f: impl FnOnce(&Ctx)) {
        let mut buf = vec![0u8; SIZE];
        let mem = unsafe { GuestMemory::from_raw(buf.as_mut_ptr(), SIZE as u64) };
        let mut bridge = Bridge::new();
        f(&Ctx::for_test(mem, &mut bridge));
    }

    fn class<T>(r: MpiResult<T>) -> i32 {
        r.err().map_or(abi::c::MPI_SUCCESS, |e| e.class)
    }

    #[test]
    fn send_and_receive_buffers_may_not_share_a_byte_of_data() {
        with_ctx(|cx| {
            let at = |ptr: u32| cx.buffer(ptr, 0, &int(4)).unwrap();
            let span = |ptr: u32, count: i64, dt: &DatatypeEntry| SolidSpan::of(at(ptr), count, dt);
            let class = |a, b| class(cx.check_apart(a, b));
            assert_eq!(class(span(64, 4, &int(4)), span(76, 4, &int(4))), abi::c::MPI_ERR_BUFFER); // the last int
            assert_eq!(class(span(76, 4, &int(4)), span(64, 4, &int(4))), abi::c::MPI_ERR_BUFFER);
            assert_eq!(class(span(64, 4, &int(4)), span(64, 4, &int(4))), abi::c::MPI_ERR_BUFFER);
            assert_eq!(class(span(64, 4, &int(4)), span(80, 4, &int(4))), abi::c::MPI_SUCCESS); // adjacent
            assert_eq!(class(span(64, 4, &int(4)), span(68, 0, &int(4))), abi::c::MPI_SUCCESS); // empty, inside
            assert_eq!(class(span(64, 4, &int(4)), SolidSpan::NONE), abi::c::MPI_SUCCESS);
            // a gap inside each element (8-byte extent, 4 of data): interleaving is legal
            assert_eq!(class(span(64, 4, &int(8)), span(68, 4, &int(8))), abi::c::MPI_SUCCESS);
            let holey = DatatypeEntry::new(int(4).host, 8, 0, 8, true).of_size(4);
            assert_eq!(class(span(64, 4, &holey), span(68, 4, &holey)), abi::c::MPI_SUCCESS);
            let filled = DatatypeEntry::new(int(4).host, 8, 0, 8, true).of_size(8);
            assert_eq!(class(span(64, 4, &filled), span(68, 4, &filled)), abi::c::MPI_ERR_BUFFER);
            // a hull from byte displacements below the pointer
            let below = SolidSpan::hull(at(64), (-8, 0));
            assert_eq!(class(below, span(60, 1, &int(4))), abi::c::MPI_ERR_BUFFER);
            assert_eq!(class(below, span(64, 1, &int(4))), abi::c::MPI_SUCCESS);
        });
    }

    #[test]
    fn a_buffer_in_memory_grown_since_the_last_call_is_accepted() {
        // the out-of-line path checks on its own view of the memory, which
        // asks for the current size when the known one is too small
        let mut buf = vec![0u8; 2 * SIZE];
        let current = 2 * SIZE;
        let known = std::cell::Cell::new(SIZE as u64);
        let mem = unsafe { GuestMemory::new(buf.as_mut_ptr(), &known, &current) };
        let mut bridge = Bridge::new();
        let cx = Ctx::for_test(mem, &mut bridge);
        assert!(cx.buffer(SIZE as u32, 4, &int(4)).is_ok());
        assert!(cx.buffer((2 * SIZE - 8) as u32, 2, &int(4)).is_ok());
        assert_eq!(class(cx.buffer((2 * SIZE - 8) as u32, 3, &int(4))), abi::c::MPI_ERR_BUFFER);
        // a strided type takes the same path
        let strided = DatatypeEntry::int_shaped(8, 0, 4);
        assert!(cx.buffer(SIZE as u32, 3, &strided).is_ok());
    }

    #[test]
    fn negative_extents_are_checked_below_the_pointer() {
        with_ctx(|cx| {
            let down = int(-4);
            // elements at 8, 4, 0: inside
            assert!(cx.buffer(8, 3, &down).is_ok());
            // a fourth element would be at -4
            assert_eq!(class(cx.buffer(8, 4, &down)), abi::c::MPI_ERR_BUFFER);
            // near address 0 with many elements (the old span shrank to nothing)
            assert_eq!(class(cx.buffer(16, 1 << 20, &down)), abi::c::MPI_ERR_BUFFER);
            // the top end is checked as well
            assert!(cx.buffer((SIZE - 4) as u32, 2, &down).is_ok());
            assert_eq!(class(cx.buffer((SIZE - 3) as u32, 2, &down)), abi::c::MPI_ERR_BUFFER);
        });
    }

    #[test]
    fn hulls_past_4_gib_or_at_the_64_bit_extremes_are_refused() {
        with_ctx(|cx| {
            let huge = DatatypeEntry::int_shaped(i64::MAX, i64::MAX, i64::MAX);
            assert_eq!(class(cx.buffer(0, i64::MAX, &huge)), abi::c::MPI_ERR_BUFFER);
            let low = DatatypeEntry::int_shaped(i64::MIN, i64::MIN, 1);
            assert_eq!(class(cx.buffer(u32::MAX, 2, &low)), abi::c::MPI_ERR_BUFFER);
            assert_eq!(class(cx.buffer(0, 1 << 31, &int(4))), abi::c::MPI_ERR_BUFFER);
        });
    }

    #[test]
    fn blocks_with_negative_offsets_are_checked_where_they_lie() {
        with_ctx(|cx| {
            assert!(cx.block(64, -64, 16, &int(4)).is_ok());
            assert_eq!(class(cx.block(64, -68, 1, &int(4))), abi::c::MPI_ERR_BUFFER);
            // a negative extent and a negative offset add up
            assert!(cx.block(64, -56, 3, &int(-4)).is_ok());
            assert_eq!(class(cx.block(64, -60, 3, &int(-4))), abi::c::MPI_ERR_BUFFER);
            assert_eq!(class(cx.block(64, i64::MIN, 1, &int(4))), abi::c::MPI_ERR_BUFFER);
            assert!(cx.block(64, i64::MIN, 0, &int(4)).is_ok()); // nothing touched
        });
    }

    #[test]
    fn v_hull_spans_every_block_for_any_sign_of_displacement_and_extent() {
        let up = int(4);
        assert_eq!(vhull([(2, 0), (1, 5)].into_iter(), &up).unwrap(), (0, 24));
        assert_eq!(vhull([(1, -3), (0, -1000), (2, 1)].into_iter(), &up).unwrap(), (-12, 12));
        // negative extent: displacement 2 is 8 bytes below, 3 elements go down 8 more
        let down = int(-4);
        assert_eq!(vhull([(3, 2), (1, -1)].into_iter(), &down).unwrap(), (-16, 8));
        assert_eq!(vhull([(0, 7), (0, -7)].into_iter(), &down).unwrap(), (0, 0));
        assert_eq!(class(vhull([(1, 0), (-1, 0)].into_iter(), &up)), abi::c::MPI_ERR_COUNT);
        // the extremes stay exact in i128
        let far = DatatypeEntry::int_shaped(i64::MIN, 0, 4);
        let (lo, _) = vhull([(i32::MAX as i64, i32::MAX as i64)].into_iter(), &far).unwrap();
        assert_eq!(lo, (i32::MAX as i128 + i32::MAX as i128 - 1) * i64::MIN as i128);
    }

    #[test]
    fn the_64_bit_v_hull_agrees_with_the_exact_one_or_declines() {
        let cases: [(&[(i64, i64)], i64); 6] = [
            (&[(2, 0), (1, 5)], 4),
            (&[(1, -3), (0, -1000), (2, 1)], 4),
            (&[(3, 2), (1, -1)], -4),
            (&[(0, 7), (0, -7)], -4),
            (&[(1 << 40, 1 << 20), (5, -(1 << 30))], 8),
            (&[], 4),
        ];
        for (blocks, extent) in cases {
            let dt = int(extent);
            let fast = vhull64(blocks.iter().copied(), &dt).expect("fits 64 bits");
            assert_eq!(fast, vhull(blocks.iter().copied(), &dt).unwrap(), "{blocks:?} extent {extent}");
        }
        // a negative count, and products past 64 bits, go to the exact hull
        assert_eq!(vhull64([(1, 0), (-1, 0)].into_iter(), &int(4)), None);
        let far = DatatypeEntry::int_shaped(i64::MIN, 0, 4);
        assert_eq!(vhull64([(i32::MAX as i64, i32::MAX as i64)].into_iter(), &far), None);
        assert_eq!(vhull64([(1, i32::MAX as i64)].into_iter(), &int(1 << 40)), None);
    }

    #[test]
    fn the_dense_v_buffer_check_agrees_with_the_general_one() {
        let mut buf = vec![0u8; SIZE];
        let mut bridge = Bridge::new();
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = |below: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % below
        };
        for _ in 0..20_000 {
            let n = next(6) as usize;
            let extent = [1, 4, 8, 12, 24, 1000, 1 << 20, i32::MAX as i64][next(8) as usize];
            let ptr = next(SIZE as u64) as u32;
            let mem = unsafe { GuestMemory::from_raw(buf.as_mut_ptr(), SIZE as u64) };
            for i in 0..n {
                // now and then the extremes: a negative count, the largest
                // count, the farthest displacements either way
                let count = match next(50) {
                    0 => -1,
                    1 => i32::MAX,
                    _ => next(40) as i32,
                };
                let displ = match next(50) {
                    0 => i32::MIN,
                    1 => i32::MAX,
                    _ => next(4000) as i32 - 2000,
                };
                mem.write_i32(4 * i as u32, count).unwrap();
                mem.write_i32(256 + 4 * i as u32, displ).unwrap();
            }
            let dt = DatatypeEntry::int_shaped(extent, 0, extent);
            assert_eq!(dt.dense_extent(), Some(extent));
            let guest = mem.view();
            let mut cx = Ctx::for_test(mem, &mut bridge);
            // now and then one array as both, or counts the call already copied
            let displs = if next(8) == 0 { 0 } else { 256 };
            if next(8) == 0 {
                cx.int_array(0, n as i64).unwrap();
            }
            // the arrays come back as the host's copies of the guest's values
            let copies = |v: VBuffer<i32>| {
                for i in 0..n {
                    let at = |a: *const i32| unsafe { *a.add(i) };
                    assert_eq!((at(v.counts), at(v.displs)), (guest.read_i32(4 * i as u32).unwrap(), guest.read_i32(displs + 4 * i as u32).unwrap()));
                }
                v.buf
            };
            let dense = cx.vbuffer(ptr, 0, displs, n as i64, &dt).map(copies).map_err(|e| e.class);
            let general = cx.vbuffer_of(ptr, (0, Element::Int), (displs, Element::Int), n as i64, &dt).map(copies).map_err(|e| e.class);
            assert_eq!(dense, general, "ptr {ptr} n {n} extent {extent}");
            bridge.release_arrays(0);
        }
    }

    #[test]
    fn in_place_is_refused_as_a_buffer_and_accepted_only_where_allowed() {
        with_ctx(|cx| {
            let ip = abi::c::MPI_IN_PLACE as u32;
            assert_eq!(class(cx.buffer(ip, 0, &int(4))), abi::c::MPI_ERR_BUFFER);
            assert_eq!(class(cx.block(ip, 0, 1, &int(4))), abi::c::MPI_ERR_BUFFER);
            assert!(cx.in_place_arg(ip, true).unwrap());
            assert_eq!(class(cx.in_place_arg(ip, false)), abi::c::MPI_ERR_BUFFER);
            assert!(!cx.in_place_arg(64, false).unwrap());
        });
    }
}

#[cfg(test)]
mod request_kind_tests {
    use crate::mpi::call::nonblocking_collective;

    #[test]
    fn requests_know_which_calls_are_nonblocking_collectives() {
        for f in ["MPI_Ibarrier", "MPI_Iallreduce", "MPI_Ineighbor_alltoallw", "MPI_Iscatterv", "MPI_Comm_idup", "MPI_Ibcast_c", "MPI_Bcast_init", "MPI_Allreduce_init_c"] {
            assert!(nonblocking_collective(f), "{f}");
        }
        for f in ["MPI_Isend", "MPI_Ibsend", "MPI_Issend", "MPI_Irsend", "MPI_Irecv", "MPI_Imrecv", "MPI_Send_init", "MPI_Grequest_start", "MPI_Isend_c", "MPI_Isendrecv", "MPI_Isendrecv_replace_c", "MPI_Recv_init_c"] {
            assert!(!nonblocking_collective(f), "{f}");
        }
    }
}

#[cold]
fn outside(ptr: u32, start: i128, end: i128) -> MpiError {
    MpiError::new(
        abi::c::MPI_ERR_BUFFER,
        format!("buffer bytes [{start:#x}, {end:#x}) relative to guest address {ptr:#x} lie outside the guest memory"),
    )
}

#[cold]
fn in_place_refused() -> MpiError {
    MpiError::new(abi::c::MPI_ERR_BUFFER, "MPI_IN_PLACE is not valid for this argument")
}
