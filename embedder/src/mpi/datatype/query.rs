//! Datatype life cycle and queries: commit, free, sizes and extents (the
//! host's answers are the wasm32 ones: same layouts), envelope and
//! contents, names, addresses, and the removed MPI-1 extent queries.
use std::rc::Rc;

use wasmer::FunctionEnvMut;

use super::{Contents, TypeMeta, TypeRef, Width};
use crate::{
    abi,
    handles::USER_BASE,
    host_mpi::{self, ffi},
    mpi::{
        attr,
        call::{call, Ctx},
        errors::{Fatal, MpiError, MpiResult},
        held, op,
        state::Bridge,
        MpiEnv,
    },
};

const WORLD: i32 = abi::c::MPI_COMM_WORLD;

/// The most bytes a status may count for MPI_Get_elements with a derived
/// datatype: what a wasm32 receive can deliver.
const MAX_ELEMENT_BYTES: i64 = 1 << 32;

// On the bridge, not the call context: the checks that ask the host for
// sizes are out of line, and a context whose address reaches a function that
// is not inlined is stored whole on every call (call.rs).
impl Bridge {
    /// The size in bytes of a host datatype.
    pub fn host_type_size(&self, datatype: ffi::MPI_Datatype) -> MpiResult<i64> {
        let mut size: ffi::MPI_Count = 0;
        self.check(unsafe { ffi::MPI_Type_size_x(datatype, &mut size) })?;
        Ok(size)
    }

    /// The bytes of `count` elements of a host datatype, exactly (the
    /// checks that compare two sides' amounts).
    pub fn host_bytes(&self, count: i64, datatype: ffi::MPI_Datatype) -> MpiResult<i128> {
        Ok(count as i128 * self.host_type_size(datatype)? as i128)
    }
}

impl Ctx<'_> {

    /// MPI_Get_elements(_x) with a derived datatype: Open MPI walks the
    /// bytes beyond the last whole datatype element by element, so a status
    /// whose count (guest-written) is far beyond anything a wasm32 receive
    /// can deliver, with a type larger than that, took hours (found by the
    /// MPI-call fuzzer).
    pub fn check_element_count(&self, status: &host_mpi::Status, datatype: i32, dt: &super::DatatypeEntry) -> MpiResult {
        if datatype < USER_BASE {
            return Ok(());
        }
        let mut bytes = 0;
        let byte = self.datatype(abi::c::MPI_BYTE)?.host.0;
        self.host(unsafe { ffi::MPI_Get_elements_x(status, byte, &mut bytes) })?;
        let size = self.bridge.host_type_size(dt.host.0)?;
        if size > 0 && bytes % size > MAX_ELEMENT_BYTES {
            return Err(MpiError::new(
                abi::c::MPI_ERR_ARG,
                format!("the status counts {bytes} bytes, {} past the last whole datatype: more than a wasm32 receive delivers", bytes % size),
            ));
        }
        Ok(())
    }

    /// MPI_Status_set_elements(_x, _c): the status holds the count in
    /// bytes, as an MPI_Count. MPICH asserts that `count` elements of the
    /// type fit there and aborts the job when they do not (a guest's
    /// INT64_MAX elements of 4 bytes; the fuzzer found it); a negative count
    /// is no count either. Both are MPI_ERR_COUNT here, on every host.
    pub fn check_set_elements(&self, dt: &super::DatatypeEntry, count: i64) -> MpiResult {
        super::check_count(count)?;
        let size = self.bridge.host_type_size(dt.host.0)?;
        match count.checked_mul(size) {
            Some(bytes) if bytes < i64::MAX => Ok(()),
            _ => Err(MpiError::new(abi::c::MPI_ERR_COUNT, format!("{count} elements of {size} bytes do not fit in a status's MPI_Count"))),
        }
    }

    /// Writes a guest MPI_Aint (32 bits on wasm32).
    pub fn write_aint(&self, ptr: u32, value: i64) -> MpiResult {
        let v = i32::try_from(value)
            .map_err(|_| MpiError::new(abi::c::MPI_ERR_TYPE, format!("{value} does not fit in a wasm32 MPI_Aint; use the _x query")))?;
        Ok(self.mem.write_i32(ptr, v)?)
    }
}

#[inline]
pub fn type_commit(mut env: FunctionEnvMut<MpiEnv>, datatype: u32) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Type_commit", WORLD, |cx| {
        let h = cx.mem.read_i32(datatype)?;
        cx.commit_datatype(h)
    })
}

#[inline]
pub fn type_free(mut env: FunctionEnvMut<MpiEnv>, datatype: u32) -> Result<i32, Fatal> {
    let mut handle = 0;
    let rc = call(&mut env, "MPI_Type_free", WORLD, |cx| {
        handle = cx.mem.read_i32(datatype)?;
        cx.datatype(handle)?;
        if handle < USER_BASE {
            return Err(MpiError::new(abi::c::MPI_ERR_TYPE, "predefined datatypes cannot be freed"));
        }
        Ok(())
    })?;
    if rc != abi::c::MPI_SUCCESS {
        return Ok(rc);
    }
    let rc = attr::delete_all(&mut env, "MPI_Type_free", attr::Kind::Type, handle)?;
    if rc != abi::c::MPI_SUCCESS {
        return Ok(rc);
    }
    call(&mut env, "MPI_Type_free", WORLD, |cx| {
        let mut entry = cx.datatype(handle)?;
        // a pending or persistent collective may still use it (held.rs)
        if !held::retire(cx.bridge, held::Of::Type(handle)) {
            cx.host(unsafe { ffi::MPI_Type_free(&mut entry.host.0) })?;
            op::forget_type(handle);
        }
        cx.bridge.datatypes.remove(handle);
        cx.bridge.type_meta.remove(&handle);
        Ok(cx.mem.write_i32(datatype, abi::c::MPI_DATATYPE_NULL)?)
    })
}

/// MPI_Type_dup: a new handle with the same layout and contents DUP, and
/// the attributes copied by their keyvals' copy callbacks.
#[inline]
pub fn type_dup(mut env: FunctionEnvMut<MpiEnv>, oldtype: i32, newtype: u32) -> Result<i32, Fatal> {
    let mut new = 0;
    let rc = call(&mut env, "MPI_Type_dup", WORLD, |cx| {
        new = super::dup_type(cx, oldtype, newtype)?;
        Ok(())
    })?;
    if rc != abi::c::MPI_SUCCESS {
        return Ok(rc);
    }
    attr::copy_all(&mut env, "MPI_Type_dup", attr::Kind::Type, oldtype, new)
}

#[inline]
pub fn type_size(mut env: FunctionEnvMut<MpiEnv>, datatype: i32, size: u32) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Type_size", WORLD, |cx| {
        let dt = cx.datatype(datatype)?;
        let mut s = 0;
        cx.host(unsafe { ffi::MPI_Type_size(dt.host.0, &mut s) })?;
        // a size past INT_MAX is the host's MPI_UNDEFINED: give the guest's
        Ok(cx.mem.write_i32(size, if s == cx.undefined() { abi::c::MPI_UNDEFINED } else { s })?)
    })
}

#[inline]
pub fn type_size_x(mut env: FunctionEnvMut<MpiEnv>, datatype: i32, size: u32) -> Result<i32, Fatal> {
    size_as_count(&mut env, "MPI_Type_size_x", datatype, size)
}

/// MPI-4.0's large-count query, answered by the MPI-3 `_x` one every host has.
#[inline]
pub fn type_size_c(mut env: FunctionEnvMut<MpiEnv>, datatype: i32, size: u32) -> Result<i32, Fatal> {
    size_as_count(&mut env, "MPI_Type_size_c", datatype, size)
}

fn size_as_count(env: &mut FunctionEnvMut<MpiEnv>, function: &'static str, datatype: i32, size: u32) -> Result<i32, Fatal> {
    call(env, function, WORLD, |cx| {
        let dt = cx.datatype(datatype)?;
        let s = cx.bridge.host_type_size(dt.host.0)?;
        cx.write_int(size, s)
    })
}

/// (lb, extent) or the true ones.
fn extent_of(cx: &Ctx, datatype: i32, true_extent: bool) -> MpiResult<(i64, i64)> {
    let dt = cx.datatype(datatype)?;
    let r = if true_extent { host_mpi::type_true_extent(dt.host) } else { host_mpi::type_extent(dt.host) };
    r.map_err(|rc| cx.host(rc).unwrap_err())
}

fn write_extent(env: &mut FunctionEnvMut<MpiEnv>, function: &'static str, datatype: i32, lb: u32, extent: u32, true_extent: bool, count: bool) -> Result<i32, Fatal> {
    call(env, function, WORLD, |cx| {
        let (l, e) = extent_of(cx, datatype, true_extent)?;
        if count {
            cx.mem.range(extent, 8)?;
            cx.write_int(lb, l)?;
            return cx.write_int(extent, e);
        }
        // MPI-3.0 on: a value the argument cannot express is MPI_UNDEFINED
        // (extents past 2 GiB in a wasm32 MPI_Aint; the _x query has them)
        cx.mem.range(extent, 4)?;
        cx.mem.range(lb, 4)?;
        let fit = |v: i64| i32::try_from(v).unwrap_or(abi::c::MPI_UNDEFINED);
        cx.mem.write_i32(lb, fit(l))?;
        Ok(cx.mem.write_i32(extent, fit(e))?)
    })
}

#[inline]
pub fn type_get_extent(mut env: FunctionEnvMut<MpiEnv>, datatype: i32, lb: u32, extent: u32) -> Result<i32, Fatal> {
    write_extent(&mut env, "MPI_Type_get_extent", datatype, lb, extent, false, false)
}

#[inline]
pub fn type_get_extent_x(mut env: FunctionEnvMut<MpiEnv>, datatype: i32, lb: u32, extent: u32) -> Result<i32, Fatal> {
    write_extent(&mut env, "MPI_Type_get_extent_x", datatype, lb, extent, false, true)
}

#[inline]
pub fn type_get_extent_c(mut env: FunctionEnvMut<MpiEnv>, datatype: i32, lb: u32, extent: u32) -> Result<i32, Fatal> {
    write_extent(&mut env, "MPI_Type_get_extent_c", datatype, lb, extent, false, true)
}

#[inline]
pub fn type_get_true_extent_c(mut env: FunctionEnvMut<MpiEnv>, datatype: i32, lb: u32, extent: u32) -> Result<i32, Fatal> {
    write_extent(&mut env, "MPI_Type_get_true_extent_c", datatype, lb, extent, true, true)
}

#[inline]
pub fn type_get_true_extent(mut env: FunctionEnvMut<MpiEnv>, datatype: i32, lb: u32, extent: u32) -> Result<i32, Fatal> {
    write_extent(&mut env, "MPI_Type_get_true_extent", datatype, lb, extent, true, false)
}

#[inline]
pub fn type_get_true_extent_x(mut env: FunctionEnvMut<MpiEnv>, datatype: i32, lb: u32, extent: u32) -> Result<i32, Fatal> {
    write_extent(&mut env, "MPI_Type_get_true_extent_x", datatype, lb, extent, true, true)
}

/// MPI-1's MPI_Type_extent, MPI_Type_lb and MPI_Type_ub (removed in
/// MPI-3.0, still called by old codes): one value each.
fn mpi1_extent(env: &mut FunctionEnvMut<MpiEnv>, function: &'static str, datatype: i32, out: u32, pick: fn(i64, i64) -> i64) -> Result<i32, Fatal> {
    call(env, function, WORLD, |cx| {
        let (lb, extent) = extent_of(cx, datatype, false)?;
        cx.write_aint(out, pick(lb, extent))
    })
}

#[inline]
pub fn type_extent(mut env: FunctionEnvMut<MpiEnv>, datatype: i32, extent: u32) -> Result<i32, Fatal> {
    mpi1_extent(&mut env, "MPI_Type_extent", datatype, extent, |_, e| e)
}

#[inline]
pub fn type_lb(mut env: FunctionEnvMut<MpiEnv>, datatype: i32, displacement: u32) -> Result<i32, Fatal> {
    mpi1_extent(&mut env, "MPI_Type_lb", datatype, displacement, |lb, _| lb)
}

#[inline]
pub fn type_ub(mut env: FunctionEnvMut<MpiEnv>, datatype: i32, displacement: u32) -> Result<i32, Fatal> {
    mpi1_extent(&mut env, "MPI_Type_ub", datatype, displacement, |lb, e| lb + e)
}

#[inline]
pub fn type_get_envelope(mut env: FunctionEnvMut<MpiEnv>, datatype: i32, num_integers: u32, num_addresses: u32, num_datatypes: u32, combiner: u32) -> Result<i32, Fatal> {
    envelope::<i32>(&mut env, "MPI_Type_get_envelope", datatype, [num_integers, num_addresses, 0, num_datatypes], combiner)
}

#[allow(clippy::too_many_arguments)]
pub fn type_get_envelope_c(
    mut env: FunctionEnvMut<MpiEnv>,
    datatype: i32,
    num_integers: u32,
    num_addresses: u32,
    num_large_counts: u32,
    num_datatypes: u32,
    combiner: u32,
) -> Result<i32, Fatal> {
    envelope::<i64>(&mut env, "MPI_Type_get_envelope_c", datatype, [num_integers, num_addresses, num_large_counts, num_datatypes], combiner)
}

/// MPI-4.0: a type made by a `_c` constructor has large counts, which the
/// MPI-3 decoding functions cannot return: they fail with MPI_ERR_TYPE (MPI
/// 4.0 errata, mpi-forum/mpi-issues#327; MPICH 4.0.2 says MPI_ERR_OTHER,
/// MPICH 4.2 on MPI_ERR_TYPE).
fn decodable<W: Width>(function: &str, contents: &Contents) -> MpiResult {
    if !W::LARGE && !contents.counts.is_empty() {
        return Err(MpiError::new(
            abi::c::MPI_ERR_TYPE,
            format!("the datatype was made by a large-count (_c) constructor: decode it with {function}_c"),
        ));
    }
    Ok(())
}

/// `nums`: num_integers, num_addresses, num_large_counts (`_c` only) and
/// num_datatypes, of width `W`.
fn envelope<W: Width>(env: &mut FunctionEnvMut<MpiEnv>, function: &'static str, datatype: i32, nums: [u32; 4], combiner: u32) -> Result<i32, Fatal> {
    call(env, function, WORLD, |cx| {
        cx.datatype(datatype)?;
        let outs: Vec<u32> = nums.iter().enumerate().filter(|&(i, _)| i != 2 || W::LARGE).map(|(_, &p)| p).collect();
        for &p in &outs {
            cx.mem.range(p, W::BYTES)?;
        }
        cx.mem.range(combiner, 4)?;
        let (n, c) = match cx.bridge.type_meta.get(&datatype) {
            Some(m) => {
                decodable::<W>(function, &m.contents)?;
                let k = &m.contents;
                ([k.ints.len(), k.aints.len(), k.counts.len(), k.types.len()], k.combiner)
            }
            None => ([0; 4], abi::c::MPI_COMBINER_NAMED),
        };
        let values: Vec<usize> = n.iter().enumerate().filter(|&(i, _)| i != 2 || W::LARGE).map(|(_, &v)| v).collect();
        for (&p, &v) in outs.iter().zip(&values) {
            cx.write_width::<W>(p, v as i64)?;
        }
        Ok(cx.mem.write_i32(combiner, c)?)
    })
}

/// Derived input types come back as new handles (the guest frees them).
#[allow(clippy::too_many_arguments)]
pub fn type_get_contents(
    mut env: FunctionEnvMut<MpiEnv>,
    datatype: i32,
    max_integers: i32,
    max_addresses: i32,
    max_datatypes: i32,
    integers: u32,
    addresses: u32,
    datatypes: u32,
) -> Result<i32, Fatal> {
    let max = [max_integers, max_addresses, 0, max_datatypes].map(i64::from);
    contents::<i32>(&mut env, "MPI_Type_get_contents", datatype, max, [integers, addresses, 0, datatypes])
}

#[allow(clippy::too_many_arguments)]
pub fn type_get_contents_c(
    mut env: FunctionEnvMut<MpiEnv>,
    datatype: i32,
    max_integers: i64,
    max_addresses: i64,
    max_large_counts: i64,
    max_datatypes: i64,
    integers: u32,
    addresses: u32,
    large_counts: u32,
    datatypes: u32,
) -> Result<i32, Fatal> {
    let max = [max_integers, max_addresses, max_large_counts, max_datatypes];
    contents::<i64>(&mut env, "MPI_Type_get_contents_c", datatype, max, [integers, addresses, large_counts, datatypes])
}

/// `max` and `arrays`: integers, addresses (32-bit guest MPI_Aint in both
/// forms), large counts (`_c` only) and datatypes.
fn contents<W: Width>(env: &mut FunctionEnvMut<MpiEnv>, function: &'static str, datatype: i32, max: [i64; 4], arrays: [u32; 4]) -> Result<i32, Fatal> {
    call(env, function, WORLD, |cx| {
        cx.datatype(datatype)?;
        let Some(contents) = cx.bridge.type_meta.get(&datatype).map(|m| m.contents.clone()) else {
            return Err(MpiError::new(abi::c::MPI_ERR_TYPE, "a predefined datatype has no contents (its combiner is MPI_COMBINER_NAMED)"));
        };
        decodable::<W>(function, &contents)?;
        let (ni, na, nc, nd) = (contents.ints.len(), contents.aints.len(), contents.counts.len(), contents.types.len());
        if max[0] < ni as i64 || max[1] < na as i64 || max[2] < nc as i64 || max[3] < nd as i64 {
            let large = if W::LARGE { format!(", {nc} large counts") } else { String::new() };
            return Err(MpiError::new(abi::c::MPI_ERR_ARG, format!("the arrays must hold {ni} integers, {na} addresses{large} and {nd} datatypes")));
        }
        let [integers, addresses, large_counts, datatypes] = arrays;
        cx.mem.range(integers, ni as u64 * 4)?;
        cx.mem.range(addresses, na as u64 * 4)?;
        cx.mem.range(large_counts, nc as u64 * 8)?;
        cx.mem.range(datatypes, nd as u64 * 4)?;
        for (i, v) in contents.ints.iter().enumerate() {
            cx.mem.write_i32(integers + 4 * i as u32, *v)?;
        }
        for (i, v) in contents.aints.iter().enumerate() {
            cx.mem.write_i32(addresses + 4 * i as u32, *v)?;
        }
        for (i, v) in contents.counts.iter().enumerate() {
            cx.write_int(large_counts + 8 * i as u32, *v)?;
        }
        for (i, t) in contents.types.iter().enumerate() {
            let handle = match t {
                TypeRef::Named(h) => *h,
                TypeRef::Derived(owned) => {
                    let mut dup = host_mpi::null_datatype();
                    cx.host(unsafe { ffi::MPI_Type_dup(owned.entry.host.0, &mut dup.0) })?;
                    let h = cx.new_datatype(dup, Rc::clone(&owned.contents))?;
                    // the standard leaves their committed state open; usable
                    // at once, as Open MPI's and MPICH's are
                    cx.commit_datatype(h)?;
                    h
                }
            };
            cx.mem.write_i32(datatypes + 4 * i as u32, handle)?;
        }
        Ok(())
    })
}

#[inline]
pub fn type_set_name(mut env: FunctionEnvMut<MpiEnv>, datatype: i32, name: u32) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Type_set_name", WORLD, |cx| {
        cx.datatype(datatype)?;
        let text = cx.cstr(name, abi::c::MPI_MAX_OBJECT_NAME as usize - 1)?.to_string_lossy().into_owned();
        match cx.bridge.type_meta.get_mut(&datatype) {
            Some(m) => m.name = Some(text),
            None => {
                cx.bridge.predefined_type_names.insert(datatype, text);
            }
        }
        Ok(())
    })
}

#[inline]
pub fn type_get_name(mut env: FunctionEnvMut<MpiEnv>, datatype: i32, name: u32, resultlen: u32) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Type_get_name", WORLD, |cx| {
        cx.datatype(datatype)?;
        let text = match cx.bridge.type_meta.get(&datatype) {
            Some(TypeMeta { name, .. }) => name.clone().unwrap_or_default(),
            None => cx.bridge.predefined_type_names.get(&datatype).cloned().unwrap_or_else(|| predefined_name(datatype).to_string()),
        };
        cx.write_string(name, resultlen, &text, abi::c::MPI_MAX_OBJECT_NAME)
    })
}

/// The standard name of a predefined datatype handle.
fn predefined_name(handle: i32) -> &'static str {
    abi::c::ALL
        .iter()
        .find(|(n, k, v)| *k == "handle" && *v == handle && n.starts_with("MPI_") && (0x200..0x300).contains(v))
        .map_or("", |e| e.0)
}

/// A guest address is its offset in the linear memory; MPI_BOTTOM is 0.
#[inline]
pub fn get_address(mut env: FunctionEnvMut<MpiEnv>, location: u32, address: u32) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Get_address", WORLD, |cx| Ok(cx.mem.write_i32(address, location as i32)?))
}

pub fn aint_add(_env: FunctionEnvMut<MpiEnv>, base: i32, disp: i32) -> i32 {
    base.wrapping_add(disp)
}

pub fn aint_diff(_env: FunctionEnvMut<MpiEnv>, addr1: i32, addr2: i32) -> i32 {
    addr1.wrapping_sub(addr2)
}

/// The predefined C type of a type class and size.
#[inline]
pub fn type_match_size(mut env: FunctionEnvMut<MpiEnv>, typeclass: i32, size: i32, datatype: u32) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Type_match_size", WORLD, |cx| {
        use abi::c::*;
        let t = match (typeclass, size) {
            (MPI_TYPECLASS_INTEGER, 1) => MPI_INT8_T,
            (MPI_TYPECLASS_INTEGER, 2) => MPI_INT16_T,
            (MPI_TYPECLASS_INTEGER, 4) => MPI_INT32_T,
            (MPI_TYPECLASS_INTEGER, 8) => MPI_INT64_T,
            (MPI_TYPECLASS_REAL, 4) => MPI_FLOAT,
            (MPI_TYPECLASS_REAL, 8) => MPI_DOUBLE,
            (MPI_TYPECLASS_REAL, 16) => MPI_LONG_DOUBLE,
            (MPI_TYPECLASS_COMPLEX, 8) => MPI_C_FLOAT_COMPLEX,
            (MPI_TYPECLASS_COMPLEX, 16) => MPI_C_DOUBLE_COMPLEX,
            (MPI_TYPECLASS_COMPLEX, 32) => MPI_C_LONG_DOUBLE_COMPLEX,
            _ => return Err(MpiError::new(MPI_ERR_ARG, format!("no predefined type of class {typeclass} and size {size}"))),
        };
        cx.datatype(t)?; // long double: only where the host's has wasm32's size
        Ok(cx.mem.write_i32(datatype, t)?)
    })
}

/// MPI-4.1: the predefined (value, index) pair type for MINLOC/MAXLOC, or
/// MPI_DATATYPE_NULL.
#[inline]
pub fn type_get_value_index(mut env: FunctionEnvMut<MpiEnv>, value_type: i32, index_type: i32, pair_type: u32) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Type_get_value_index", WORLD, |cx| {
        use abi::c::*;
        cx.datatype(value_type)?;
        cx.datatype(index_type)?;
        let pair = match (value_type, index_type) {
            (MPI_FLOAT, MPI_INT) => MPI_FLOAT_INT,
            (MPI_DOUBLE, MPI_INT) => MPI_DOUBLE_INT,
            (MPI_LONG, MPI_INT) => MPI_LONG_INT,
            (MPI_INT, MPI_INT) => MPI_2INT,
            (MPI_SHORT, MPI_INT) => MPI_SHORT_INT,
            (MPI_LONG_DOUBLE, MPI_INT) => MPI_LONG_DOUBLE_INT,
            (MPI_REAL, MPI_REAL) => MPI_2REAL,
            (MPI_DOUBLE_PRECISION, MPI_DOUBLE_PRECISION) => MPI_2DOUBLE_PRECISION,
            (MPI_INTEGER, MPI_INTEGER) => MPI_2INTEGER,
            _ => MPI_DATATYPE_NULL,
        };
        Ok(cx.mem.write_i32(pair_type, pair)?)
    })
}
