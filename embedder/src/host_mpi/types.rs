//! The host's C types as the embedder passes them, whatever the library.
//!
//! A host handle is pointer-sized: Open MPI's and the standard ABI's are
//! pointers, MPICH's are `int`s held zero-extended. A single handle passes by
//! value or through a pointer to a zeroed slot (a 4-byte write fills its low
//! half); arrays of handles must have the library's element width, so they
//! go through `HandleVec` (or `HandleArray`, a few on the stack). Statuses likewise: one fits in `MPI_Status`, an
//! array needs the library's stride (`StatusVec`).
#![allow(non_camel_case_types)]
use std::ffi::c_void;

pub type Handle = usize;
pub type MPI_Comm = Handle;
pub type MPI_Datatype = Handle;
pub type MPI_Op = Handle;
pub type MPI_Errhandler = Handle;
pub type MPI_Request = Handle;
pub type MPI_Message = Handle;
pub type MPI_Group = Handle;
pub type MPI_Info = Handle;
pub type MPI_Win = Handle;
pub type MPI_File = Handle;
pub type MPI_Session = Handle;
/// The tool interface's handles: pointers in every family (MPICH's too).
pub type MPI_T_enum = Handle;
pub type MPI_T_cvar_handle = Handle;
pub type MPI_T_pvar_handle = Handle;
pub type MPI_T_pvar_session = Handle;
pub type MPI_T_event_registration = Handle;
pub type MPI_T_event_instance = Handle;
/// C enumerations (int-sized).
pub type MPI_T_cb_safety = std::ffi::c_int;
pub type MPI_T_source_order = std::ffi::c_int;
pub type MPI_Aint = isize;
pub type MPI_Count = i64;
pub type MPI_Offset = i64;
/// A C function pointer handed to the host (reduction, attribute copy, ...).
pub type Callback = *const c_void;

/// Room for one host status of any supported library (Open MPI: 24 bytes,
/// MPICH: 20, the standard ABI: 32); the fields are at the library's offsets
/// (`StatusLayout`).
#[repr(C, align(8))]
#[derive(Clone, Copy)]
pub struct MPI_Status {
    pub bytes: [u8; MAX_STATUS],
}
pub const MAX_STATUS: usize = 32;

impl MPI_Status {
    pub fn zeroed() -> Self {
        Self { bytes: [0; MAX_STATUS] }
    }
}

/// An array of host handles in the library's own element width.
pub enum HandleVec {
    Wide(Vec<usize>),
    Narrow(Vec<u32>),
}

impl HandleVec {
    pub fn new() -> Self {
        let mut v = Self::default();
        v.clear();
        v
    }

    /// Empties the array (keeping its room) in the library's width.
    pub fn clear(&mut self) {
        match (super::library::handle_width(), &mut *self) {
            (4, HandleVec::Narrow(v)) => v.clear(),
            (4, _) => *self = HandleVec::Narrow(Vec::new()),
            (_, HandleVec::Wide(v)) => v.clear(),
            (_, _) => *self = HandleVec::Wide(Vec::new()),
        }
    }

    pub fn from_iter(handles: impl IntoIterator<Item = Handle>) -> Self {
        let mut v = Self::new();
        for h in handles {
            v.push(h);
        }
        v
    }

    pub fn push(&mut self, h: Handle) {
        match self {
            HandleVec::Wide(v) => v.push(h),
            HandleVec::Narrow(v) => v.push(h as u32),
        }
    }

    /// Appends `f(item)` for every item, in the library's width (decided
    /// once for the array, not per element); `Err(i)` if `f` has no handle
    /// for `items[i]` (the array then holds the first `i`).
    #[inline]
    pub fn extend_mapped<T: Copy>(&mut self, items: &[T], f: impl Fn(T) -> Option<Handle>) -> Result<(), usize> {
        fn fill<T: Copy, W>(v: &mut Vec<W>, items: &[T], f: impl Fn(T) -> Option<W>) -> Result<(), usize> {
            v.reserve(items.len());
            for (i, &x) in items.iter().enumerate() {
                v.push(f(x).ok_or(i)?);
            }
            Ok(())
        }
        match self {
            HandleVec::Wide(v) => fill(v, items, f),
            HandleVec::Narrow(v) => fill(v, items, |x| f(x).map(|h| h as u32)),
        }
    }

    pub fn get(&self, i: usize) -> Handle {
        match self {
            HandleVec::Wide(v) => v[i],
            HandleVec::Narrow(v) => v[i] as usize,
        }
    }

    #[cfg(test)]
    pub fn len(&self) -> usize {
        match self {
            HandleVec::Wide(v) => v.len(),
            HandleVec::Narrow(v) => v.len(),
        }
    }

    #[cfg(test)]
    pub fn capacity(&self) -> usize {
        match self {
            HandleVec::Wide(v) => v.capacity(),
            HandleVec::Narrow(v) => v.capacity(),
        }
    }

    /// For the host's `MPI_X array[]` parameters (read or written).
    pub fn as_mut_ptr(&mut self) -> *mut Handle {
        match self {
            HandleVec::Wide(v) => v.as_mut_ptr(),
            HandleVec::Narrow(v) => v.as_mut_ptr() as *mut Handle,
        }
    }

    pub fn as_ptr(&self) -> *const Handle {
        match self {
            HandleVec::Wide(v) => v.as_ptr(),
            HandleVec::Narrow(v) => v.as_ptr() as *const Handle,
        }
    }
}

/// `HandleVec`'s counterpart for at most `N` handles, on the stack (a few
/// requests' worth, where a vector's bookkeeping costs more than the call).
pub enum HandleArray<const N: usize> {
    Wide([usize; N]),
    Narrow([u32; N]),
}

impl<const N: usize> HandleArray<N> {
    pub fn new() -> Self {
        if super::library::handle_width() == 4 { HandleArray::Narrow([0; N]) } else { HandleArray::Wide([0; N]) }
    }

    pub fn set(&mut self, i: usize, h: Handle) {
        match self {
            HandleArray::Wide(a) => a[i] = h,
            HandleArray::Narrow(a) => a[i] = h as u32,
        }
    }

    pub fn get(&self, i: usize) -> Handle {
        match self {
            HandleArray::Wide(a) => a[i],
            HandleArray::Narrow(a) => a[i] as usize,
        }
    }

    /// For the host's `MPI_X array[]` parameters (read or written).
    pub fn as_mut_ptr(&mut self) -> *mut Handle {
        match self {
            HandleArray::Wide(a) => a.as_mut_ptr(),
            HandleArray::Narrow(a) => a.as_mut_ptr() as *mut Handle,
        }
    }
}

impl Default for HandleVec {
    /// Empty, without loading the library (`clear` picks the width).
    fn default() -> Self {
        HandleVec::Wide(Vec::new())
    }
}

/// Reads one host handle the library wrote at `p` (a callback's `MPI_X *`).
///
/// # Safety
/// `p` points at a handle of the library's width.
pub unsafe fn read_handle(p: *const c_void) -> Handle {
    if super::library::handle_width() == 4 { *(p as *const u32) as usize } else { *(p as *const usize) }
}

/// An array of host statuses with the library's stride.
#[derive(Default)]
pub struct StatusVec {
    words: Vec<u64>,
    stride: usize,
}

impl StatusVec {
    /// Room for `n` statuses (keeping the allocation). Room already there
    /// keeps what the host wrote last, new room is zeroed: the host writes
    /// the status of every request it completes, and only those are read
    /// (zeroing them on every call showed in the cost of a Waitall).
    pub fn reset(&mut self, n: usize) {
        self.stride = super::constants().status.size;
        let words = (n * self.stride).div_ceil(8);
        if self.words.len() < words {
            self.words.resize(words, 0);
        }
    }

    pub fn as_mut_ptr(&mut self) -> *mut MPI_Status {
        self.words.as_mut_ptr() as *mut MPI_Status
    }

    pub fn get(&self, i: usize) -> MPI_Status {
        status_in(&self.words, self.stride, i)
    }
}

/// Status `i` of a host status array of `stride`-byte statuses held in
/// `words`.
pub fn status_in(words: &[u64], stride: usize, i: usize) -> MPI_Status {
    let mut s = MPI_Status::zeroed();
    let bytes = unsafe { std::slice::from_raw_parts(words.as_ptr() as *const u8, words.len() * 8) };
    s.bytes[..stride].copy_from_slice(&bytes[i * stride..(i + 1) * stride]);
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extend_mapped_keeps_the_width_and_reports_the_first_miss() {
        for mut v in [HandleVec::Wide(Vec::new()), HandleVec::Narrow(Vec::new())] {
            let map = |h: i32| (h > 0).then_some(h as Handle * 16);
            assert_eq!(v.extend_mapped(&[1, 2, 3], map), Ok(()));
            assert_eq!((0..3).map(|i| v.get(i)).collect::<Vec<_>>(), [16, 32, 48]);
            assert_eq!(v.extend_mapped(&[4, 0, 5], map), Err(1), "stops at index 1");
            assert_eq!(v.len(), 4, "the handles before the miss are there");
            let narrow = matches!(v, HandleVec::Narrow(_));
            let stride = unsafe { (v.as_ptr() as *const u8).add(if narrow { 4 } else { 8 }) as *const u32 };
            assert_eq!(unsafe { stride.read_unaligned() }, 32, "elements in the vector's own width");
        }
    }

    #[test]
    fn a_stack_array_lays_handles_out_in_its_width() {
        for mut a in [HandleArray::<4>::Wide([0; 4]), HandleArray::<4>::Narrow([0; 4])] {
            a.set(1, 32);
            a.set(3, 0xfeed);
            assert_eq!((a.get(0), a.get(1), a.get(3)), (0, 32, 0xfeed));
            let width = if matches!(a, HandleArray::Narrow(_)) { 4 } else { 8 };
            let p = a.as_mut_ptr() as *const u8;
            assert_eq!(unsafe { (p.add(width) as *const u32).read_unaligned() }, 32, "element 1 where the host reads it");
            assert_eq!(unsafe { (p.add(3 * width) as *const u32).read_unaligned() }, 0xfeed);
        }
    }
}
