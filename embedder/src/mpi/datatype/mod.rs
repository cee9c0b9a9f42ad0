//! Datatypes: the guest's predefined types mapped to host types of the same
//! size and layout on wasm32, the byte span a (count, datatype) buffer
//! covers, and what the bridge records about derived types.
//!
//! Every guest predefined type maps to a host type with the wasm32 size and
//! layout, so a derived type built on the host from the guest's description
//! (displacements widened from 32 bits) has exactly the guest's layout, and
//! the host's sizes and extents are the wasm32 ones. Absolute addresses
//! (MPI_Get_address) are guest offsets: a buffer at MPI_BOTTOM (guest 0) is
//! the memory's base on the host, so base + offset is the host address.
mod construct;
mod pack;
mod query;

use std::rc::Rc;

pub use construct::*;
pub use pack::*;
pub use query::*;

use super::errors::{MpiError, MpiResult};
use crate::{abi, handles::Table, host_mpi};

/// How a derived type was made, as MPI_Type_get_contents reports it: the
/// guest's own arguments (32-bit addresses, guest handles). A type made by
/// an MPI-4.0 large-count constructor (`_c`) has its counts, displacements
/// and extents in `counts` (MPI_Type_get_contents_c's
/// `array_of_large_counts`), as the standard's decoding table has them, and
/// only its C int arguments (ndims, order, distributions) in `ints`; the
/// MPI-3 decoding functions refuse such a type (MPI_ERR_TYPE).
#[derive(Debug)]
pub struct Contents {
    pub combiner: i32,
    pub ints: Vec<i32>,
    pub aints: Vec<i32>,
    pub counts: Vec<i64>,
    pub types: Vec<TypeRef>,
}

/// A type a derived type was made from. Derived ones are kept alive (a
/// host duplicate) so their contents can be returned after the guest freed
/// its handle.
#[derive(Debug, Clone)]
pub enum TypeRef {
    Named(i32),
    Derived(Rc<OwnedType>),
}

#[derive(Debug)]
pub struct OwnedType {
    pub entry: DatatypeEntry,
    pub contents: Rc<Contents>,
}

impl Drop for OwnedType {
    fn drop(&mut self) {
        if host_mpi::active() {
            let mut h = self.entry.host;
            unsafe { host_mpi::ffi::MPI_Type_free(&mut h.0) };
        }
    }
}

/// What the bridge keeps about a derived type besides its entry.
#[derive(Debug)]
pub struct TypeMeta {
    pub contents: Rc<Contents>,
    pub name: Option<String>,
}

/// What the bridge knows of a datatype: its host handle and the bounds
/// that buffer checks need. The bounds are set only by `new` and `commit`,
/// which derive `dense` from them.
#[derive(Clone, Copy, Debug)]
pub struct DatatypeEntry {
    pub host: host_mpi::Datatype,
    extent: i64,
    true_lb: i64,
    true_extent: i64,
    /// Predefined types, and derived ones after MPI_Type_commit. Open MPI
    /// and MPICH trust the caller here: an uncommitted type handed to a
    /// data-moving call (or to the pack-size queries) crashed the host.
    committed: bool,
    /// The extent of a committed type whose elements lie back to back from
    /// the buffer pointer on, when it is below 2^32; else 0. Kept, not
    /// derived on each call: a buffer check of a predefined type is then one
    /// test and a multiplication (`dense_len`), not six tests.
    dense: u32,
    /// Holds long double (binary128) data, whose predefined reductions are
    /// the bridge's (binary128.rs); kept so that a reduction need not walk
    /// the type's contents to know.
    binary128: bool,
    /// The extent when the type's data fill it from the buffer pointer on,
    /// with no gap inside an element either (size = extent = true extent
    /// below 2^32, true lower bound 0; `describe` asks the host for the
    /// size); else 0. Whether the type is committed is `committed`'s to say.
    solid: u32,
}

impl super::state::Bridge {
    /// The predefined (guest) types a datatype's type map is made of:
    /// derived types are followed through the contents the bridge recorded.
    pub fn basic_types(&self, guest: i32) -> std::collections::BTreeSet<i32> {
        match self.type_meta.get(&guest) {
            Some(m) if guest >= crate::handles::USER_BASE => m.contents.basic_types(),
            _ => std::collections::BTreeSet::from([guest]),
        }
    }
}

impl Contents {
    /// The predefined (guest) types of the type map these contents make,
    /// derived constituents followed through their own contents.
    pub fn basic_types(&self) -> std::collections::BTreeSet<i32> {
        fn walk(types: &[TypeRef], into: &mut std::collections::BTreeSet<i32>) {
            for t in types {
                match t {
                    TypeRef::Named(h) => {
                        into.insert(*h);
                    }
                    TypeRef::Derived(o) => walk(&o.contents.types, into),
                }
            }
        }
        let mut set = std::collections::BTreeSet::new();
        walk(&self.types, &mut set);
        set
    }
}

#[cfg(test)]
impl DatatypeEntry {
    /// A committed type of MPI_INT data with these bounds (unit tests).
    pub fn int_shaped(extent: i64, true_lb: i64, true_extent: i64) -> Self {
        Self::new(host_mpi::constants().datatypes["MPI_INT"], extent, true_lb, true_extent, true).of_size(4)
    }
}

impl DatatypeEntry {
    pub fn new(host: host_mpi::Datatype, extent: i64, true_lb: i64, true_extent: i64, committed: bool) -> Self {
        let dense = committed && true_lb == 0 && true_extent == extent && (1..=u32::MAX as i64).contains(&extent);
        Self { host, extent, true_lb, true_extent, committed, dense: if dense { extent as u32 } else { 0 }, binary128: false, solid: 0 }
    }

    /// The entry of a type of `size` bytes of data (`solid`).
    pub fn of_size(self, size: i64) -> Self {
        let solid = self.true_lb == 0 && size == self.extent && size == self.true_extent && (1..=u32::MAX as i64).contains(&size);
        Self { solid: if solid { size as u32 } else { 0 }, ..self }
    }

    /// The entry once MPI_Type_commit has committed the type (as `host`).
    pub fn commit(self, host: host_mpi::Datatype) -> Self {
        Self { binary128: self.binary128, solid: self.solid, ..Self::new(host, self.extent, self.true_lb, self.true_extent, true) }
    }

    /// The entry of a type that does (or does not) hold binary128 data.
    pub fn holding_binary128(self, binary128: bool) -> Self {
        Self { binary128, ..self }
    }

    #[inline]
    pub fn binary128(&self) -> bool {
        self.binary128
    }

    #[inline]
    pub fn extent(&self) -> i64 {
        self.extent
    }

    #[inline]
    pub fn true_extent(&self) -> i64 {
        self.true_extent
    }

    #[inline]
    pub fn committed(&self) -> bool {
        self.committed
    }

    /// Types that describe data the host will move must be committed.
    #[inline]
    pub fn check_committed(&self) -> MpiResult {
        if self.committed {
            return Ok(());
        }
        Err(not_committed())
    }

    /// The bytes `count` elements touch, as a half-open range `[lo, hi)`
    /// relative to the buffer pointer. MPI places element i at
    /// `i·extent + [true_lb, true_lb + true_extent)`, so the hull runs from
    /// the lower of the first and last element to the higher of the two,
    /// whatever the signs of the extent and the true lower bound (a
    /// negative extent puts later elements below the pointer). i128 holds
    /// every product of 64-bit values exactly. Empty (`lo == hi == 0`) when
    /// nothing is touched.
    /// The bytes `count` elements span when the type is committed and
    /// dense (no gap before its first byte or after its last, so the hull
    /// is `[0, count·extent)`) and both factors fit 32 bits; `None` for
    /// every other case, which `hull` handles.
    #[inline]
    pub fn dense_len(&self, count: i64) -> Option<u64> {
        ((count as u64) <= u32::MAX as u64 && self.dense != 0).then(|| count as u64 * self.dense as u64)
    }

    /// The extent of a committed type whose elements lie back to back
    /// with nothing before the first (predefined types, contiguous derived
    /// ones), when it is below 2^31: `count` of them at `d` extents from a
    /// buffer cover `[d·extent, (d + count)·extent)`.
    #[inline]
    pub fn dense_extent(&self) -> Option<i64> {
        (self.dense != 0 && self.dense <= i32::MAX as u32).then_some(self.dense as i64)
    }

    /// The extent of a type whose data fill it (`solid`), when below 2^31.
    #[inline(always)]
    pub fn solid_extent(&self) -> Option<i64> {
        (self.solid != 0 && self.solid <= i32::MAX as u32).then_some(self.solid as i64)
    }

    /// The bytes `count` elements of a solid type hold, every one of them
    /// (wrapping: for a count a buffer check accepted); 0 for other types.
    #[inline(always)]
    pub fn solid_bytes(&self, count: i64) -> usize {
        (count as usize).wrapping_mul(self.solid as usize)
    }

    /// `hull` when it fits 64-bit arithmetic with room for any guest
    /// address (|bounds| < 2^62); `None` for the rest.
    #[inline]
    pub fn hull64(&self, count: i64) -> Option<(i64, i64)> {
        if count <= 0 || self.true_extent <= 0 {
            return Some((0, 0));
        }
        let last = (count - 1).checked_mul(self.extent)?;
        let lo = last.min(0).checked_add(self.true_lb)?;
        let hi = last.max(0).checked_add(self.true_lb)?.checked_add(self.true_extent)?;
        const LIMIT: i64 = 1 << 62;
        (lo > -LIMIT && hi < LIMIT).then_some((lo, hi))
    }

    pub fn hull(&self, count: i64) -> (i128, i128) {
        if count <= 0 || self.true_extent <= 0 {
            return (0, 0);
        }
        let last = (count as i128 - 1) * self.extent as i128;
        let first_byte = self.true_lb as i128;
        (last.min(0) + first_byte, last.max(0) + first_byte + self.true_extent as i128)
    }
}

/// The host type a guest predefined type maps to, by name: `None` for types
/// with no same-layout host type. wasm32 is ILP32, so `long` and `MPI_Aint`
/// are 4 bytes here where the x86-64/aarch64 host's are 8.
pub fn host_name(guest: &str) -> Option<&str> {
    match guest {
        "MPI_DATATYPE_NULL" => None,
        "MPI_LONG" | "MPI_AINT" => Some("MPI_INT32_T"),
        "MPI_UNSIGNED_LONG" => Some("MPI_UINT32_T"),
        "MPI_LONG_INT" => Some("MPI_2INT"),
        // long double: the host's type of the same size moves the bytes;
        // reductions are the bridge's (binary128.rs)
        same => Some(same),
    }
}

/// The predefined datatype table, built once MPI is initialized (host
/// extents are queried from the host library).
pub fn predefined_table() -> Table<DatatypeEntry> {
    const BASE: i32 = abi::c::MPI_DATATYPE_NULL;
    let host = host_mpi::constants();
    let mut table = Table::new(BASE, 0x100);
    for &(name, kind, value) in abi::c::ALL {
        if kind != "handle" || !(BASE..BASE + 0x100).contains(&value) {
            continue;
        }
        let Some(dt) = host_name(name).and_then(|h| host.datatypes.get(h)) else { continue };
        if let Ok(entry) = describe(*dt).map(|e| e.commit(e.host).holding_binary128(super::binary128::is_binary128(value))) {
            if !super::binary128::host_layout_agrees(name, entry.extent()) {
                continue;
            }
            table.set_predefined(value, entry);
            // a user reduction sees the guest type named like the host type
            if host_name(name) == Some(name) {
                super::op::remember_type(value, &entry);
            } else {
                super::op::remember_type_if_new(value, &entry);
            }
        }
    }
    table
}

/// Why a guest datatype handle has no entry.
pub fn invalid(handle: i32) -> MpiError {
    // the ABI's datatype handles are 0b10_xxxxxxxx; other kinds share values
    // with them (0 is MPI_T_ENUM_NULL)
    let datatypes = abi::c::MPI_DATATYPE_NULL..abi::c::MPI_DATATYPE_NULL + 0x200;
    let name = abi::c::ALL
        .iter()
        .find(|(n, k, v)| *k == "handle" && *v == handle && datatypes.contains(v) && n.starts_with("MPI_"))
        .map(|e| e.0);
    match name {
        Some("MPI_DATATYPE_NULL") => MpiError::new(abi::c::MPI_ERR_TYPE, "MPI_DATATYPE_NULL is not a valid datatype"),
        Some(n) if n.contains("LONG_DOUBLE") => MpiError::new(
            abi::c::MPI_ERR_TYPE,
            format!("{n} is not supported on this host: its long double does not have wasm32's 16 bytes"),
        ),
        Some(n) => MpiError::new(abi::c::MPI_ERR_TYPE, format!("{n} is not available on the host MPI")),
        None => MpiError::new(abi::c::MPI_ERR_TYPE, format!("invalid datatype handle {handle:#x}")),
    }
}

#[cold]
fn not_committed() -> MpiError {
    MpiError::new(abi::c::MPI_ERR_TYPE, "the datatype is not committed (call MPI_Type_commit first)")
}

#[inline]
pub fn check_count(count: i64) -> MpiResult {
    if count < 0 {
        return Err(negative_count(count));
    }
    Ok(())
}

#[cold]
fn negative_count(count: i64) -> MpiError {
    MpiError::new(abi::c::MPI_ERR_COUNT, format!("negative count {count}"))
}

/// The width of a guest count argument: C `int` in the MPI-3 functions
/// (and 32-bit `MPI_Aint`, the same 4 bytes on wasm32), `MPI_Count` in
/// MPI-4.0's large-count `_c` forms. The constructors, the decoding
/// functions and pack/unpack are written once over it.
pub trait Width: Copy + Into<i64> {
    /// The `_c` form.
    const LARGE: bool;
    const BYTES: u64;
    /// Reads one value at a checked host address (unaligned).
    ///
    /// # Safety
    /// `p` must address `BYTES` readable bytes.
    unsafe fn read(p: *const u8) -> i64;
    /// The value as this width, if it fits.
    fn narrow(v: i64) -> Option<Self>;
}

impl Width for i32 {
    const LARGE: bool = false;
    const BYTES: u64 = 4;
    unsafe fn read(p: *const u8) -> i64 {
        (p as *const i32).read_unaligned() as i64
    }
    fn narrow(v: i64) -> Option<Self> {
        i32::try_from(v).ok()
    }
}

impl Width for i64 {
    const LARGE: bool = true;
    const BYTES: u64 = 8;
    unsafe fn read(p: *const u8) -> i64 {
        (p as *const i64).read_unaligned()
    }
    fn narrow(v: i64) -> Option<Self> {
        Some(v)
    }
}

/// The `_c` functions are made of the host's int forms, on every host (the
/// host's `_c` datatype functions are no more capable: they describe the
/// same layouts): a wasm32 program rarely has a count past INT_MAX, its
/// memory being 4 GiB. Only a value that does not fit the int form's C int
/// needs the host's own `_c` function; a host without it (Open MPI 4.1 and
/// 5 have none of the datatype ones) then fails the call with
/// MPI_ERR_COUNT. `value` is the first value that does not fit.
pub(crate) fn need_host_large(function: &'static str, value: i64) -> MpiResult {
    let host = host_mpi::library::loaded();
    if host.functions.provided().contains(&function) {
        return Ok(());
    }
    Err(MpiError::new(
        abi::c::MPI_ERR_COUNT,
        format!("{value} does not fit the C int of the host's int form, and the host MPI library {} does not provide {function}", host.path),
    ))
}

/// `values` as C ints for the host's int form; `None` when one does not
/// fit and the host's `_c` function (which has it) must be called instead.
pub(crate) fn host_ints(function: &'static str, values: &[i64]) -> MpiResult<Option<Vec<i32>>> {
    match values.iter().find(|&&v| i32::try_from(v).is_err()) {
        None => Ok(Some(values.iter().map(|&v| v as i32).collect())),
        Some(&big) => need_host_large(function, big).map(|()| None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int() -> DatatypeEntry {
        DatatypeEntry::int_shaped(4, 0, 4)
    }

    #[test]
    fn hull_of_positive_extents_runs_from_the_first_to_the_last_element() {
        assert_eq!(int().hull(0), (0, 0));
        assert_eq!(int().hull(-3), (0, 0));
        assert_eq!(int().hull(1), (0, 4));
        assert_eq!(int().hull(10), (0, 40));
        // a resized type: extent 16, data in the first 4 bytes, lb -8
        let strided = DatatypeEntry::int_shaped(16, -8, 4);
        assert_eq!(strided.hull(3), (-8, 28));
    }

    #[test]
    fn the_64_bit_hull_is_the_exact_one_or_none() {
        let cases = [(4, 0, 4), (16, -8, 4), (-4, 0, 4), (1 << 40, 7, 3), (i64::MAX / 2, 0, 8), (-(1 << 61), -5, 1 << 20)];
        let counts = [-1, 0, 1, 2, 3, 1000, i32::MAX as i64, 1 << 40, i64::MAX];
        let mut exact = 0;
        for (extent, true_lb, true_extent) in cases {
            let dt = DatatypeEntry::int_shaped(extent, true_lb, true_extent);
            for count in counts {
                let (lo, hi) = dt.hull(count);
                match dt.hull64(count) {
                    Some((l, h)) => {
                        assert_eq!((l as i128, h as i128), (lo, hi), "{extent} {true_lb} {true_extent} x {count}");
                        exact += 1;
                    }
                    // left to the 128-bit path only when it does not fit
                    None => assert!(lo <= -(1 << 62) || hi >= 1 << 62, "{extent} {true_lb} {true_extent} x {count}: {lo} {hi}"),
                }
            }
        }
        assert!(exact > 30, "{exact}");
    }

    #[test]
    fn the_dense_length_is_the_hull_or_none() {
        let cases = [(4, 0, 4), (1, 0, 1), (16, -8, 4), (8, 0, 4), (-4, 0, 4), (0, 0, 0), (1 << 32, 0, 1 << 32), (u32::MAX as i64, 0, u32::MAX as i64)];
        let counts = [-1, 0, 1, 2, 1000, u32::MAX as i64, 1 << 32, i64::MAX];
        let mut dense = 0;
        for (extent, true_lb, true_extent) in cases {
            for committed in [true, false] {
                let dt = DatatypeEntry::new(int().host, extent, true_lb, true_extent, committed);
                for count in counts {
                    let Some(len) = dt.dense_len(count) else { continue };
                    assert!(committed && count >= 0);
                    let (lo, hi) = dt.hull(count);
                    assert_eq!((lo.min(0), hi.max(0)), (0, len as i128), "{extent} {true_lb} {true_extent} x {count}");
                    dense += 1;
                }
            }
        }
        assert_eq!(dense, 2 * 5 + 5, "int and byte at five counts, the 2^32-1 extent below 2^32 elements");
    }

    #[test]
    fn hull_of_negative_extents_reaches_below_the_pointer() {
        // MPI_Type_create_resized(MPI_INT, 0, -4): element i at -4i
        let down = DatatypeEntry::int_shaped(-4, 0, 4);
        assert_eq!(down.hull(1), (0, 4));
        assert_eq!(down.hull(3), (-8, 4));
        // extent -16 with the data 8 bytes below each element's origin
        let below = DatatypeEntry::int_shaped(-16, -8, 4);
        assert_eq!(below.hull(2), (-24, -4));
        // a negative true lower bound with a positive extent
        let lb = DatatypeEntry::int_shaped(4, -4096, 4100);
        assert_eq!(lb.hull(2), (-4096, 8));
    }

    #[test]
    fn hull_of_zero_extents_is_one_element() {
        let zero = DatatypeEntry::int_shaped(0, 0, 4);
        assert_eq!(zero.hull(1_000_000), (0, 4));
        // a type with no data touches nothing
        let empty = DatatypeEntry::int_shaped(0, 0, 0);
        assert_eq!(empty.hull(5), (0, 0));
    }

    #[test]
    fn hull_is_exact_at_the_64_bit_extremes() {
        let up = DatatypeEntry::int_shaped(i64::MAX, i64::MAX, i64::MAX);
        let (lo, hi) = up.hull(i64::MAX);
        assert_eq!(lo, i64::MAX as i128);
        assert_eq!(hi, (i64::MAX as i128 - 1) * i64::MAX as i128 + 2 * i64::MAX as i128);
        let down = DatatypeEntry::int_shaped(i64::MIN, i64::MIN, 1);
        let (lo, hi) = down.hull(i64::MAX);
        assert_eq!(lo, (i64::MAX as i128 - 1) * i64::MIN as i128 + i64::MIN as i128);
        assert_eq!(hi, i64::MIN as i128 + 1);
    }

    #[test]
    fn only_committed_types_describe_data() {
        assert!(int().check_committed().is_ok());
        let fresh = DatatypeEntry::new(int().host, 4, 0, 4, false);
        assert_eq!(fresh.check_committed().unwrap_err().class, abi::c::MPI_ERR_TYPE);
    }

    #[test]
    fn ilp32_types_map_to_host_types_of_the_same_size() {
        assert_eq!(host_name("MPI_LONG"), Some("MPI_INT32_T"));
        assert_eq!(host_name("MPI_UNSIGNED_LONG"), Some("MPI_UINT32_T"));
        assert_eq!(host_name("MPI_AINT"), Some("MPI_INT32_T"));
        assert_eq!(host_name("MPI_DOUBLE"), Some("MPI_DOUBLE"));
        assert_eq!(host_name("MPI_LONG_DOUBLE"), Some("MPI_LONG_DOUBLE"));
        // every C datatype maps to a host type (Fortran ones depend on the
        // host's Fortran support and are looked up by name only)
        let fortran = |v: i32| (0x218..0x220).contains(&v) || (0x230..0x238).contains(&v) || v >= 0x2c0;
        for &(name, kind, value) in abi::c::ALL {
            if kind == "handle" && (0x200..0x300).contains(&value) && !fortran(value) {
                if let Some(h) = host_name(name) {
                    assert!(host_mpi::constants().datatypes.contains_key(h), "{name} -> {h}");
                }
            }
        }
    }
}
