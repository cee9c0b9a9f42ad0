//! Host copies of the guest's input arrays (counts, displacements, rank
//! lists): the host never reads these from guest memory.
//!
//! Guest code can run while the host still reads an array (a user reduction
//! function in the middle of MPI_Reduce_scatter, which Open MPI follows by
//! reading `recvcounts` again; anything before a nonblocking operation
//! completes), and another rank can write a Karmem shared region mapped
//! into this memory at any moment. So each array is read from the guest
//! once per call, and the same copy is both what the buffer checks use
//! (`vbuffer`, `summed_ints`) and what the host gets (`int_array`): a value
//! cannot change between the check and the use.
//!
//! The copies live in the bridge, a stack of entries that each call fills
//! from the top it found (`Ctx::arrays_base`, `arrays_top`) and gives back
//! when it returns, unless a request took them: a v-collective reads four
//! arrays per call, and allocating and freeing them took more time than the
//! rest of the call; and a list of its own per call cost every MPI call
//! (even `MPI_Comm_rank`) the building and dropping of the list.
use super::super::{call::Ctx, errors::MpiResult, state::Bridge};

/// What a guest array holds, and so its host copy.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Element {
    /// C int, the same on both sides.
    Int,
    /// MPI_Count, 8 bytes on both sides.
    Count,
    /// MPI_Aint: 4 bytes in the guest, widened (sign-extended) to the host's 8.
    Aint,
}

impl Element {
    fn guest_bytes(self) -> u64 {
        match self {
            Element::Int | Element::Aint => 4,
            Element::Count => 8,
        }
    }
}

/// A host copy of the guest array of `len` `of`s at guest address `at`.
#[derive(Debug)]
pub struct HostArray {
    at: u32,
    len: usize,
    of: Element,
    data: Data,
}

/// The copy in the host's element width. A `Vec` is only filled, never
/// grown after the host has its address, so the address stays valid for as
/// long as the `HostArray` lives (moving it moves no element).
#[derive(Debug)]
pub enum Data {
    Int(Vec<i32>),
    Wide(Vec<i64>),
}

impl Data {
    fn of(of: Element) -> Self {
        match of {
            Element::Int => Data::Int(Vec::new()),
            Element::Count | Element::Aint => Data::Wide(Vec::new()),
        }
    }
}

impl HostArray {
    /// The values, as 64-bit integers.
    pub fn values(&self) -> impl Iterator<Item = i64> + '_ {
        let (ints, wide) = match &self.data {
            Data::Int(v) => (&v[..], &[][..]),
            Data::Wide(v) => (&[][..], &v[..]),
        };
        ints.iter().map(|&x| i64::from(x)).chain(wide.iter().copied())
    }

    /// Value `i` (in `0..len`).
    pub fn get(&self, i: usize) -> i64 {
        match &self.data {
            Data::Int(v) => i64::from(v[i]),
            Data::Wide(v) => v[i],
        }
    }

    /// Where the host reads the copy.
    pub fn host_ptr(&self) -> *const u8 {
        match &self.data {
            Data::Int(v) => v.as_ptr() as *const u8,
            Data::Wide(v) => v.as_ptr() as *const u8,
        }
    }

    /// The copy of a C int array.
    pub fn ints(&self) -> Option<&[i32]> {
        match &self.data {
            Data::Int(v) => Some(v),
            Data::Wide(_) => None,
        }
    }
}

/// The largest copy (in elements) kept for reuse: enough for any
/// collective's arrays, without holding on to one huge communicator's
/// arrays forever.
const SPARE_MAX_LEN: usize = 1 << 16;

impl Bridge {
    /// Ends the copies from `base` on (a call that is over and made no
    /// request): their entries stay, vectors and all, for the next call to
    /// refill in place, except vectors grown past `SPARE_MAX_LEN`.
    #[inline]
    pub(in crate::mpi) fn release_arrays(&mut self, base: usize) {
        if self.arrays_oversized {
            self.trim_arrays(base);
        }
        self.arrays_used = base;
    }

    /// Drops the vectors past `SPARE_MAX_LEN` among the copies from `base`
    /// on; the flag stays up while a call below still holds one.
    #[cold]
    #[inline(never)]
    fn trim_arrays(&mut self, base: usize) {
        for a in &mut self.arrays[base..self.arrays_used] {
            if a.data.capacity() > SPARE_MAX_LEN {
                a.data = Data::of(a.of);
            }
        }
        self.arrays_oversized = self.arrays[..base].iter().any(|a| a.data.capacity() > SPARE_MAX_LEN);
    }

    /// One more entry at the top of the stack (none to refill).
    #[cold]
    #[inline(never)]
    fn new_array_entry(&mut self, of: Element) {
        self.arrays.push(HostArray { at: 0, len: 0, of, data: Data::of(of) });
    }
}

impl Data {
    fn capacity(&self) -> usize {
        match self {
            Data::Int(v) => v.capacity(),
            Data::Wide(v) => v.capacity(),
        }
    }
}

impl HostArray {
    /// This entry's emptied int vector, with room for `len`, now the copy
    /// of the `len` ints at guest `at` (once the caller has filled it).
    #[inline]
    fn int_vec(&mut self, at: u32, len: usize) -> &mut Vec<i32> {
        (self.at, self.len, self.of) = (at, len, Element::Int);
        if !matches!(self.data, Data::Int(_)) {
            self.data = Data::of(Element::Int);
        }
        let Data::Int(v) = &mut self.data else { unreachable!() };
        v.clear();
        v.reserve(len);
        v
    }

    /// Refills this entry with the `len` `of`s at host address `from`
    /// (checked guest memory, any alignment).
    ///
    /// Safety: `from` must be readable for `len` elements of `of`.
    #[inline]
    unsafe fn fill(&mut self, at: u32, len: usize, of: Element, from: *const u8) {
        (self.at, self.len, self.of) = (at, len, of);
        match (&mut self.data, of) {
            (Data::Int(v), Element::Int) => {
                v.clear();
                v.extend((0..len).map(|i| (from as *const i32).add(i).read_unaligned()));
            }
            (Data::Wide(v), Element::Count) => {
                v.clear();
                v.extend((0..len).map(|i| (from as *const i64).add(i).read_unaligned()));
            }
            (Data::Wide(v), Element::Aint) => {
                v.clear();
                v.extend((0..len).map(|i| i64::from((from as *const i32).add(i).read_unaligned())));
            }
            // an entry of the other width: replaced, then filled as above
            _ => {
                self.data = Data::of(of);
                self.fill(at, len, of, from);
            }
        }
    }
}

impl Ctx<'_> {
    /// The index of this call's copy of the `n` `of`s at guest `ptr`
    /// (checked), made on first use.
    #[inline]
    pub(in crate::mpi) fn host_copy(&mut self, ptr: u32, n: i64, of: Element) -> MpiResult<usize> {
        let len = n.max(0) as usize;
        match self.copied(ptr, len, of) {
            Some(i) => Ok(i),
            None => self.copy_in(ptr, len, of),
        }
    }

    /// The index of this call's copy of the `len` `of`s at guest `ptr`, if
    /// it made one.
    #[inline]
    fn copied(&self, ptr: u32, len: usize, of: Element) -> Option<usize> {
        let base = self.arrays_base;
        // newest first: the common lookup is of the array just copied
        // (a v-collective's counts, by its buffer check, then for the host)
        let i = self.bridge.arrays[base..self.arrays_top].iter().rposition(|a| a.at == ptr && a.len == len && a.of == of)?;
        Some(base + i)
    }

    /// Copy `i` (an index from `host_copy`).
    #[inline]
    pub(in crate::mpi) fn array(&self, i: usize) -> &HostArray {
        &self.bridge.arrays[i]
    }

    /// A new copy for `host_copy`, in the next entry of the stack.
    #[inline(never)]
    fn copy_in(&mut self, ptr: u32, len: usize, of: Element) -> MpiResult<usize> {
        let from = self.mem.range(ptr, len as u64 * of.guest_bytes())?;
        // the stack's top: a call made during this one has released its own
        let top = self.arrays_top;
        if top == self.bridge.arrays.len() {
            self.bridge.new_array_entry(of);
        }
        // Safety: `range` checked the `len` elements at `from`.
        let entry = &mut self.bridge.arrays[top];
        unsafe { entry.fill(ptr, len, of, from) };
        // tested here, once per copy, so that releasing a call's copies
        // need not look at each (`release_arrays`)
        if entry.data.capacity() > SPARE_MAX_LEN {
            self.bridge.arrays_oversized = true;
        }
        (self.arrays_top, self.bridge.arrays_used) = (top + 1, top + 1);
        Ok(top)
    }

    /// Copies of two guest int arrays of `len` (a v-collective's counts and
    /// displacements) made in one pass that hands each pair of values to
    /// `each` (the buffer check's hull), and where the host reads them
    /// (valid while this call's copies are); `None`, copying nothing, when this
    /// call already copied either (`host_copy` then finds that copy, so the
    /// host gets the values any check saw) or both are one array.
    #[inline(always)]
    pub(in crate::mpi) fn copy_int_pair(&mut self, a: u32, b: u32, len: usize, mut each: impl FnMut(i32, i32)) -> MpiResult<Option<(*const i32, *const i32)>> {
        // one array as both: two copies might differ, so the general way
        if a == b || self.copied(a, len, Element::Int).is_some() || self.copied(b, len, Element::Int).is_some() {
            return Ok(None);
        }
        let top = self.arrays_top;
        let (from_a, from_b) = (self.mem.range(a, len as u64 * 4)? as *const i32, self.mem.range(b, len as u64 * 4)? as *const i32);
        while self.bridge.arrays.len() < top + 2 {
            self.bridge.new_array_entry(Element::Int);
        }
        let (x, y) = self.bridge.arrays[top..top + 2].split_at_mut(1);
        let (va, vb) = (x[0].int_vec(a, len), y[0].int_vec(b, len));
        let (sa, sb) = (&mut va.spare_capacity_mut()[..len], &mut vb.spare_capacity_mut()[..len]);
        for i in 0..len {
            // Safety: `range` checked both arrays' `len` ints.
            let (u, v) = unsafe { (from_a.add(i).read_unaligned(), from_b.add(i).read_unaligned()) };
            sa[i].write(u);
            sb[i].write(v);
            each(u, v);
        }
        // Safety: the first `len` elements of each were written above.
        unsafe { (va.set_len(len), vb.set_len(len)) };
        if va.capacity().max(vb.capacity()) > SPARE_MAX_LEN {
            self.bridge.arrays_oversized = true;
        }
        (self.arrays_top, self.bridge.arrays_used) = (top + 2, top + 2);
        Ok(Some((va.as_ptr(), vb.as_ptr())))
    }

    /// The copies a request made by this call keeps until it is freed.
    #[inline]
    pub(in crate::mpi) fn take_arrays(&mut self) -> Vec<HostArray> {
        let (base, top) = (self.arrays_base, self.arrays_top);
        self.arrays_top = base;
        take_arrays(self.bridge, base, top)
    }

    /// The copied value of the guest int at `at`, if this call copied an
    /// int array that holds it.
    pub(in crate::mpi) fn copied_int(&self, at: u32) -> Option<i32> {
        self.bridge.arrays[self.arrays_base..self.arrays_top].iter().find_map(|a| {
            let offset = at.wrapping_sub(a.at) as usize;
            match &a.data {
                Data::Int(v) if offset % 4 == 0 => v.get(offset / 4).copied(),
                _ => None,
            }
        })
    }

    /// The host's copy of a guest int array (see the module's comment).
    #[inline]
    pub fn int_array(&mut self, ptr: u32, n: i64) -> MpiResult<*const i32> {
        let i = self.host_copy(ptr, n, Element::Int)?;
        Ok(self.array(i).host_ptr() as *const i32)
    }

    /// The host's copy of a guest MPI_Count array.
    #[inline]
    pub fn count_array(&mut self, ptr: u32, n: i64) -> MpiResult<*const i64> {
        let i = self.host_copy(ptr, n, Element::Count)?;
        Ok(self.array(i).host_ptr() as *const i64)
    }

    /// The host's copy of a guest (32-bit) MPI_Aint array, widened.
    #[inline]
    pub fn aint_array(&mut self, ptr: u32, n: i64) -> MpiResult<*const i64> {
        let i = self.host_copy(ptr, n, Element::Aint)?;
        Ok(self.array(i).host_ptr() as *const i64)
    }

    /// A counts array the host gets (C ints), read once, with the sum of
    /// its values: MPI_Reduce_scatter sizes its input by the sum and its
    /// output by this rank's own count, both from the copy the host reads.
    #[inline]
    pub fn summed_ints(&mut self, ptr: u32, n: i64) -> MpiResult<Summed<i32>> {
        let i = self.host_copy(ptr, n, Element::Int)?;
        let v = self.array(i).ints().expect("an int copy");
        // n < 2^31 values of |x| <= 2^31: the sum fits an i64
        Ok(Summed { host: v.as_ptr(), sum: v.iter().map(|&x| i64::from(x)).sum(), len: v.len() })
    }

    /// `summed_ints` of an MPI_Count array (the sum saturating: one past
    /// the memory fails the buffer check anyway).
    #[inline]
    pub fn summed_counts(&mut self, ptr: u32, n: i64) -> MpiResult<Summed<i64>> {
        let i = self.host_copy(ptr, n, Element::Count)?;
        let a = self.array(i);
        Ok(Summed { host: a.host_ptr() as *const i64, sum: a.values().fold(0, i64::saturating_add), len: a.len })
    }
}

/// `Ctx::summed_ints`' result: where the host reads the copy (valid while
/// this call's copies are) and what the buffer checks need of it.
pub struct Summed<T> {
    pub host: *const T,
    pub sum: i64,
    len: usize,
}

impl<T: Copy + Into<i64>> Summed<T> {
    /// Value `index`; 0 outside the array (no block: a rank that is not
    /// in the group the counts describe).
    #[inline]
    pub fn at(&self, index: i32) -> i64 {
        match usize::try_from(index) {
            // Safety: `host` holds `len` values for as long as `self` lives.
            Ok(i) if i < self.len => unsafe { (*self.host.add(i)).into() },
            _ => 0,
        }
    }
}

/// `bridge.arrays[base..top]`, taken out of the bridge (`Ctx::take_arrays`;
/// out of line, and without the context, which then stays in registers).
pub(in crate::mpi) fn take_arrays(bridge: &mut Bridge, base: usize, top: usize) -> Vec<HostArray> {
    bridge.arrays_used = base;
    bridge.arrays.drain(base..top).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{guest_memory::GuestMemory, host_mpi};

    /// A context over the 256-byte guest memory at `buf`.
    fn ctx_on(buf: *mut u8, bridge: &mut Bridge) -> Ctx<'_> {
        Ctx::for_test(unsafe { GuestMemory::from_raw(buf, 256) }, bridge)
    }

    fn with_ctx(f: impl FnOnce(&mut Ctx)) {
        let mut buf = vec![0u8; 256];
        let mut bridge = Bridge::new();
        f(&mut ctx_on(buf.as_mut_ptr(), &mut bridge));
    }

    #[test]
    fn input_arrays_are_host_copies_that_a_request_keeps() {
        with_ctx(|cx| {
            cx.mem.write_bytes(16, &[1, 0, 0, 0, 2, 0, 0, 0]).unwrap();
            let copy = cx.int_array(16, 2).unwrap();
            // the guest rewrites its array after the call: the host still
            // sees the values the buffers were checked against
            cx.mem.write_i32(16, 1 << 20).unwrap();
            assert_eq!(unsafe { [*copy, *copy.add(1)] }, [1, 2]);
            assert!(cx.int_array(252, 2).is_err(), "checked like any guest range");
            let entry = cx.request_entry(host_mpi::null_request(), false);
            let arrays = &entry.extra.as_ref().expect("a request with arrays has extras").arrays;
            assert_eq!(arrays.len(), 1);
            assert_eq!(cx.bridge.arrays_used, cx.arrays_base, "the request took them");
            assert_eq!(arrays[0].ints(), Some(&[1, 2][..]));
            // a request without arrays carries no extras
            assert!(cx.request_entry(host_mpi::null_request(), false).extra.is_none());
            // outputs stay in place
            assert_eq!(cx.int_array_out(16, 2).unwrap() as usize, cx.mem.range(16, 8).unwrap() as usize);
        });
    }

    #[test]
    fn an_array_is_read_once_per_call_whatever_reads_it() {
        with_ctx(|cx| {
            cx.mem.write_bytes(32, &[3, 0, 0, 0, 4, 0, 0, 0]).unwrap();
            let summed = cx.summed_ints(32, 2).unwrap();
            assert_eq!((summed.sum, summed.at(1), summed.at(2), summed.at(-1)), (7, 4, 0, 0));
            // changed after the check (another rank writing a shared
            // region): the host gets the values the check summed
            cx.mem.write_i32(36, 1000).unwrap();
            let host = cx.int_array(32, 2).unwrap();
            assert_eq!(host, summed.host);
            assert_eq!((unsafe { *host.add(1) }, summed.at(1)), (4, 4));
            assert_eq!(cx.bridge.arrays_used, 1, "one copy");
            // another length or element width is another array
            assert_eq!(cx.summed_ints(32, 1).unwrap().sum, 3);
            assert_eq!(cx.aint_array(32, 2).map(|p| unsafe { *p.add(1) }).unwrap(), 1000);
            let counts = cx.summed_counts(32, 1).unwrap();
            assert_eq!((counts.sum, counts.at(0)), (3 + (1000 << 32), 3 + (1000 << 32)));
            assert_eq!(cx.bridge.arrays_used, 4);
            // sums of extreme values: exact for ints, saturating for counts
            cx.mem.write_bytes(64, &[0xff, 0xff, 0xff, 0x7f, 0xff, 0xff, 0xff, 0x7f]).unwrap();
            assert_eq!(cx.summed_ints(64, 2).unwrap().sum, 2 * i64::from(i32::MAX));
            cx.mem.write_bytes(72, &[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f]).unwrap();
            assert_eq!(cx.summed_counts(72, 1).unwrap().sum, i64::MAX);
            cx.mem.write_bytes(80, &[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f]).unwrap();
            assert_eq!(cx.summed_counts(72, 2).unwrap().sum, i64::MAX);
        });
    }

    #[test]
    fn checks_of_single_ints_read_the_copy() {
        with_ctx(|cx| {
            cx.mem.write_bytes(40, &[1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0]).unwrap();
            assert_eq!(cx.int_at(40, 2).unwrap(), 3, "no copy yet: guest memory");
            cx.int_array(44, 2).unwrap();
            cx.mem.write_i32(48, 99).unwrap();
            // inside the copy: the copied value, by any base address
            assert_eq!((cx.int_at(44, 1).unwrap(), cx.int_at(40, 2).unwrap()), (3, 3));
            // outside it (or not on an element): guest memory
            assert_eq!((cx.int_at(40, 0).unwrap(), cx.int_at(52, 0).unwrap()), (1, 0));
            assert_eq!(cx.copied_int(46), None);
        });
    }

    #[test]
    fn negative_aints_are_sign_extended() {
        with_ctx(|cx| {
            cx.mem.write_i32(8, -8).unwrap();
            assert_eq!(unsafe { *cx.aint_array(8, 1).unwrap() }, -8);
        });
    }

    #[test]
    fn a_finished_calls_arrays_are_refilled_by_the_next() {
        let mut buf = vec![0u8; 256];
        let mut bridge = Bridge::new();
        let mut cx = ctx_on(buf.as_mut_ptr(), &mut bridge);
        let first = cx.int_array(0, 4).unwrap();
        let wide = cx.count_array(0, 2).unwrap();
        cx.bridge.release_arrays(cx.arrays_base);
        assert_eq!((bridge.arrays.len(), bridge.arrays_used), (2, 0), "kept as spares");
        let mut cx = ctx_on(buf.as_mut_ptr(), &mut bridge);
        cx.mem.write_i32(8, 5).unwrap();
        assert_eq!(cx.int_array(8, 3).unwrap(), first, "the same vector, refilled");
        assert_eq!(unsafe { *first }, 5);
        // the second entry was wide: an int copy replaces it
        let second = cx.int_array(20, 1).unwrap();
        assert_ne!(second as usize, wide as usize);
        assert_eq!((cx.bridge.arrays.len(), cx.bridge.arrays_used), (2, 2));
        assert!(cx.summed_ints(20, 1).is_ok() && cx.bridge.arrays_used == 2, "found, not copied again");
        // a request keeps what this call copied
        let taken = cx.take_arrays();
        assert_eq!((taken.len(), cx.bridge.arrays_used, cx.bridge.arrays.len()), (2, 0, 0));
        // huge vectors are not kept, small ones are
        let mut big = vec![0u8; 4 * (SPARE_MAX_LEN + 1)];
        let mut cx = Ctx::for_test(unsafe { GuestMemory::from_raw(big.as_mut_ptr(), big.len() as u64) }, &mut bridge);
        cx.int_array(0, 2).unwrap();
        cx.int_array(0, SPARE_MAX_LEN as i64 + 1).unwrap();
        assert!(cx.bridge.arrays_oversized);
        cx.bridge.release_arrays(0);
        assert!(bridge.arrays[0].data.capacity() >= 2, "the small copy is kept");
        assert_eq!(bridge.arrays[1].data.capacity(), 0);
        assert!(!bridge.arrays_oversized);
    }

    #[test]
    fn a_huge_copy_below_a_nested_call_is_trimmed_when_its_own_call_returns() {
        let mut big = vec![0u8; 4 * (SPARE_MAX_LEN + 1)];
        let mut bridge = Bridge::new();
        let mut outer = Ctx::for_test(unsafe { GuestMemory::from_raw(big.as_mut_ptr(), big.len() as u64) }, &mut bridge);
        outer.int_array(0, SPARE_MAX_LEN as i64 + 1).unwrap();
        let bridge: *mut Bridge = outer.bridge;
        let mut inner = Ctx::for_test(unsafe { GuestMemory::from_raw(big.as_mut_ptr(), 256) }, unsafe { &mut *bridge });
        let inner_base = inner.arrays_base;
        inner.int_array(8, 1).unwrap();
        inner.bridge.release_arrays(inner_base);
        let bridge = unsafe { &mut *bridge };
        assert!(bridge.arrays_oversized, "the outer call's copy is still huge");
        bridge.release_arrays(0);
        assert_eq!(bridge.arrays[0].data.capacity(), 0);
        assert!(!bridge.arrays_oversized);
    }

    #[test]
    fn a_call_made_during_another_keeps_to_its_own_copies() {
        let mut buf = vec![0u8; 256];
        let mut bridge = Bridge::new();
        let mut outer = ctx_on(buf.as_mut_ptr(), &mut bridge);
        outer.mem.write_bytes(0, &[7, 0, 0, 0, 8, 0, 0, 0]).unwrap();
        let kept = outer.int_array(0, 2).unwrap();
        let outer_base = outer.arrays_base;
        // a guest callback's MPI call (on the same bridge) copies the same
        // guest array after the guest changed it, and makes a request
        let bridge: *mut Bridge = outer.bridge;
        let mut inner = ctx_on(buf.as_mut_ptr(), unsafe { &mut *bridge });
        assert_eq!(inner.arrays_base, 1);
        inner.mem.write_i32(0, 70).unwrap();
        assert_eq!(inner.summed_ints(0, 2).unwrap().at(0), 70, "its own copy, not the outer call's");
        let entry = inner.request_entry(host_mpi::null_request(), false);
        assert_eq!(entry.extra.expect("the inner request keeps its copy").arrays[0].ints(), Some(&[70, 8][..]));
        let bridge = unsafe { &mut *bridge };
        assert_eq!(bridge.arrays_used, 1, "the outer call's copy is still in use");
        assert_eq!(unsafe { [*kept, *kept.add(1)] }, [7, 8]);
        bridge.release_arrays(outer_base);
        assert_eq!(bridge.arrays_used, 0);
    }
}
