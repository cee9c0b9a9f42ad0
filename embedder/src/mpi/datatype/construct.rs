//! Derived datatype constructors: each reads the guest's description
//! (32-bit MPI_Aint values widened, guest handles translated, ABI constants
//! mapped), builds the type on the host, and records the description for
//! MPI_Type_get_contents.
use std::rc::Rc;

use wasmer::FunctionEnvMut;

use super::{Contents, DatatypeEntry, OwnedType, TypeMeta, TypeRef};
use crate::{
    abi,
    handles::USER_BASE,
    host_mpi::{self, ffi},
    mpi::{
        call::{call, Ctx},
        errors::{Fatal, MpiError, MpiResult},
        op, MpiEnv,
    },
};

type HostType = ffi::MPI_Datatype;

/// A constructor's arguments as MPI_Type_get_contents returns them.
struct Description {
    combiner: i32,
    ints: Vec<i32>,
    aints: Vec<i32>,
    types: Vec<i32>,
}

impl Description {
    fn new(combiner: i32, ints: Vec<i32>, aints: Vec<i32>, types: Vec<i32>) -> Self {
        Self { combiner, ints, aints, types }
    }
}

/// The extent and true extent of a host type, for bounds checks.
pub fn describe(host: host_mpi::Datatype) -> Result<DatatypeEntry, i32> {
    let (_, extent) = host_mpi::type_extent(host)?;
    let (true_lb, true_extent) = host_mpi::type_true_extent(host)?;
    Ok(DatatypeEntry { host, extent, true_lb, true_extent, committed: false })
}

/// Builds a type with `make(host types of desc.types, &mut new)` and gives
/// the guest a handle to it at `newtype`.
fn construct(cx: &mut Ctx, newtype: u32, desc: Description, make: impl FnOnce(&host_mpi::HandleVec, &mut HostType) -> i32) -> MpiResult {
    cx.mem.range(newtype, 4)?;
    let entries = desc.types.iter().map(|&t| cx.datatype(t)).collect::<MpiResult<Vec<_>>>()?;
    let hosts = host_mpi::HandleVec::from_iter(entries.iter().map(|e| e.host.0));
    let mut new = host_mpi::null_datatype();
    cx.host(make(&hosts, &mut new.0))?;
    let types = desc.types.iter().zip(&entries).map(|(&g, e)| cx.type_ref(g, e)).collect::<MpiResult<Vec<_>>>()?;
    let contents = Contents { combiner: desc.combiner, ints: desc.ints, aints: desc.aints, types };
    let handle = cx.new_datatype(new, Rc::new(contents))?;
    Ok(cx.mem.write_i32(newtype, handle)?)
}

impl Ctx<'_> {
    /// Records a new host type (freed again if it cannot be described).
    /// Commits a guest type on the host and records it (the host may hand
    /// back another handle).
    pub fn commit_datatype(&mut self, handle: i32) -> MpiResult {
        let mut entry = self.datatype(handle)?;
        self.host(unsafe { ffi::MPI_Type_commit(&mut entry.host.0) })?;
        if let Some(e) = self.bridge.datatypes.get_mut(handle) {
            e.host = entry.host;
            e.committed = true;
        }
        Ok(())
    }

    pub fn new_datatype(&mut self, host: host_mpi::Datatype, contents: Rc<Contents>) -> MpiResult<i32> {
        let entry = match describe(host) {
            Ok(e) => e,
            Err(rc) => {
                let mut h = host;
                unsafe { ffi::MPI_Type_free(&mut h.0) };
                return Err(self.host(rc).unwrap_err());
            }
        };
        let handle = self.bridge.datatypes.insert(entry);
        self.bridge.type_meta.insert(handle, TypeMeta { contents, name: None });
        op::remember_type(handle, &entry);
        Ok(handle)
    }

    /// How a constructor's input type is remembered: predefined by handle,
    /// derived through a host duplicate that outlives the guest handle.
    pub fn type_ref(&self, guest: i32, entry: &DatatypeEntry) -> MpiResult<TypeRef> {
        if guest < USER_BASE {
            return Ok(TypeRef::Named(guest));
        }
        let contents = self.bridge.type_meta.get(&guest).map(|m| m.contents.clone()).expect("every derived type has contents");
        let mut dup = host_mpi::null_datatype();
        self.host(unsafe { ffi::MPI_Type_dup(entry.host.0, &mut dup.0) })?;
        Ok(TypeRef::Derived(Rc::new(OwnedType { entry: DatatypeEntry { host: dup, ..*entry }, contents })))
    }

    /// `n` guest ints, handles or 32-bit MPI_Aint values.
    pub fn int_vec(&self, ptr: u32, n: i32) -> MpiResult<Vec<i32>> {
        count(n)?;
        let p = self.mem.range(ptr, n as u64 * 4)? as *const i32;
        if n > MAX_BLOCKS {
            return Err(MpiError::new(
                abi::c::MPI_ERR_COUNT,
                format!("{n} blocks: more than the {MAX_BLOCKS} a derived datatype may have in this embedder"),
            ));
        }
        Ok((0..n as usize).map(|i| unsafe { p.add(i).read_unaligned() }).collect())
    }

}

/// Array arguments of the type constructors become host allocations (the
/// bridge's copies, then the host MPI's type description, tens of bytes per
/// block): a guest whose memory has grown to gigabytes could otherwise make
/// the host allocate many times that (a fuzzed `MPI_Type_create_hindexed_block`
/// of 760 million blocks crashed the host).
pub const MAX_BLOCKS: i32 = 1 << 24;

fn count(n: i32) -> MpiResult {
    if n < 0 {
        return Err(MpiError::new(abi::c::MPI_ERR_COUNT, format!("negative count {n}")));
    }
    Ok(())
}

/// Guest MPI_Aint values as the host's (sign-extended: MPI_Aint is signed).
fn widen(aints: &[i32]) -> Vec<ffi::MPI_Aint> {
    aints.iter().map(|&a| a as ffi::MPI_Aint).collect()
}

/// An ABI constant as the host's, by name among `names`.
fn host_constant(value: i32, names: &[&str], what: &str) -> MpiResult<i32> {
    names
        .iter()
        .find(|n| abi::value_of(n) == Some(value))
        .map(|n| host_mpi::constants().int(n))
        .ok_or_else(|| MpiError::new(abi::c::MPI_ERR_ARG, format!("invalid {what} {value}")))
}

const ORDERS: &[&str] = &["MPI_ORDER_C", "MPI_ORDER_FORTRAN"];
const DISTRIBUTIONS: &[&str] = &["MPI_DISTRIBUTE_BLOCK", "MPI_DISTRIBUTE_CYCLIC", "MPI_DISTRIBUTE_NONE"];

const WORLD: i32 = abi::c::MPI_COMM_WORLD;

pub fn type_contiguous(mut env: FunctionEnvMut<MpiEnv>, count_: i32, oldtype: i32, newtype: u32) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Type_contiguous", WORLD, |cx| {
        count(count_)?;
        let d = Description::new(abi::c::MPI_COMBINER_CONTIGUOUS, vec![count_], vec![], vec![oldtype]);
        construct(cx, newtype, d, |t, new| unsafe { ffi::MPI_Type_contiguous(count_, t.get(0), new) })
    })
}

pub fn type_vector(mut env: FunctionEnvMut<MpiEnv>, count_: i32, blocklength: i32, stride: i32, oldtype: i32, newtype: u32) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Type_vector", WORLD, |cx| {
        count(count_)?;
        let d = Description::new(abi::c::MPI_COMBINER_VECTOR, vec![count_, blocklength, stride], vec![], vec![oldtype]);
        construct(cx, newtype, d, |t, new| unsafe { ffi::MPI_Type_vector(count_, blocklength, stride, t.get(0), new) })
    })
}

pub fn type_create_hvector(mut env: FunctionEnvMut<MpiEnv>, count_: i32, blocklength: i32, stride: i32, oldtype: i32, newtype: u32) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Type_create_hvector", WORLD, |cx| {
        count(count_)?;
        let d = Description::new(abi::c::MPI_COMBINER_HVECTOR, vec![count_, blocklength], vec![stride], vec![oldtype]);
        construct(cx, newtype, d, |t, new| unsafe { ffi::MPI_Type_create_hvector(count_, blocklength, stride as ffi::MPI_Aint, t.get(0), new) })
    })
}

pub fn type_indexed(mut env: FunctionEnvMut<MpiEnv>, count_: i32, blocklengths: u32, displacements: u32, oldtype: i32, newtype: u32) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Type_indexed", WORLD, |cx| {
        let (bl, disp) = (cx.int_vec(blocklengths, count_)?, cx.int_vec(displacements, count_)?);
        let ints = [&[count_][..], &bl, &disp].concat();
        let d = Description::new(abi::c::MPI_COMBINER_INDEXED, ints, vec![], vec![oldtype]);
        construct(cx, newtype, d, |t, new| unsafe { ffi::MPI_Type_indexed(count_, bl.as_ptr(), disp.as_ptr(), t.get(0), new) })
    })
}

pub fn type_create_hindexed(mut env: FunctionEnvMut<MpiEnv>, count_: i32, blocklengths: u32, displacements: u32, oldtype: i32, newtype: u32) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Type_create_hindexed", WORLD, |cx| {
        let (bl, disp) = (cx.int_vec(blocklengths, count_)?, cx.int_vec(displacements, count_)?);
        let wide = widen(&disp);
        let d = Description::new(abi::c::MPI_COMBINER_HINDEXED, [&[count_][..], &bl].concat(), disp, vec![oldtype]);
        construct(cx, newtype, d, |t, new| unsafe { ffi::MPI_Type_create_hindexed(count_, bl.as_ptr(), wide.as_ptr(), t.get(0), new) })
    })
}

pub fn type_create_indexed_block(mut env: FunctionEnvMut<MpiEnv>, count_: i32, blocklength: i32, displacements: u32, oldtype: i32, newtype: u32) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Type_create_indexed_block", WORLD, |cx| {
        let disp = cx.int_vec(displacements, count_)?;
        let ints = [&[count_, blocklength][..], &disp].concat();
        let d = Description::new(abi::c::MPI_COMBINER_INDEXED_BLOCK, ints, vec![], vec![oldtype]);
        construct(cx, newtype, d, |t, new| unsafe { ffi::MPI_Type_create_indexed_block(count_, blocklength, disp.as_ptr(), t.get(0), new) })
    })
}

pub fn type_create_hindexed_block(mut env: FunctionEnvMut<MpiEnv>, count_: i32, blocklength: i32, displacements: u32, oldtype: i32, newtype: u32) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Type_create_hindexed_block", WORLD, |cx| {
        let disp = cx.int_vec(displacements, count_)?;
        let wide = widen(&disp);
        let d = Description::new(abi::c::MPI_COMBINER_HINDEXED_BLOCK, vec![count_, blocklength], disp, vec![oldtype]);
        construct(cx, newtype, d, |t, new| unsafe { ffi::MPI_Type_create_hindexed_block(count_, blocklength, wide.as_ptr(), t.get(0), new) })
    })
}

pub fn type_create_struct(mut env: FunctionEnvMut<MpiEnv>, count_: i32, blocklengths: u32, displacements: u32, types: u32, newtype: u32) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Type_create_struct", WORLD, |cx| {
        let (bl, disp, types) = (cx.int_vec(blocklengths, count_)?, cx.int_vec(displacements, count_)?, cx.int_vec(types, count_)?);
        let wide = widen(&disp);
        let d = Description::new(abi::c::MPI_COMBINER_STRUCT, [&[count_][..], &bl].concat(), disp, types);
        construct(cx, newtype, d, |t, new| unsafe { ffi::MPI_Type_create_struct(count_, bl.as_ptr(), wide.as_ptr(), t.as_ptr(), new) })
    })
}

#[allow(clippy::too_many_arguments)]
pub fn type_create_subarray(mut env: FunctionEnvMut<MpiEnv>, ndims: i32, sizes: u32, subsizes: u32, starts: u32, order: i32, oldtype: i32, newtype: u32) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Type_create_subarray", WORLD, |cx| {
        let (sz, sub, st) = (cx.int_vec(sizes, ndims)?, cx.int_vec(subsizes, ndims)?, cx.int_vec(starts, ndims)?);
        let host_order = host_constant(order, ORDERS, "array order")?;
        let ints = [&[ndims][..], &sz, &sub, &st, &[order]].concat();
        let d = Description::new(abi::c::MPI_COMBINER_SUBARRAY, ints, vec![], vec![oldtype]);
        construct(cx, newtype, d, |t, new| unsafe {
            ffi::MPI_Type_create_subarray(ndims, sz.as_ptr(), sub.as_ptr(), st.as_ptr(), host_order, t.get(0), new)
        })
    })
}

#[allow(clippy::too_many_arguments)]
pub fn type_create_darray(
    mut env: FunctionEnvMut<MpiEnv>,
    size: i32,
    rank: i32,
    ndims: i32,
    gsizes: u32,
    distribs: u32,
    dargs: u32,
    psizes: u32,
    order: i32,
    oldtype: i32,
    newtype: u32,
) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Type_create_darray", WORLD, |cx| {
        let (g, dist, darg, p) = (cx.int_vec(gsizes, ndims)?, cx.int_vec(distribs, ndims)?, cx.int_vec(dargs, ndims)?, cx.int_vec(psizes, ndims)?);
        let host_dist = dist.iter().map(|&v| host_constant(v, DISTRIBUTIONS, "distribution")).collect::<MpiResult<Vec<_>>>()?;
        let dflt = host_mpi::constants().int("MPI_DISTRIBUTE_DFLT_DARG");
        let host_darg: Vec<i32> = darg.iter().map(|&v| if v == abi::c::MPI_DISTRIBUTE_DFLT_DARG { dflt } else { v }).collect();
        let host_order = host_constant(order, ORDERS, "array order")?;
        let ints = [&[size, rank, ndims][..], &g, &dist, &darg, &p, &[order]].concat();
        let d = Description::new(abi::c::MPI_COMBINER_DARRAY, ints, vec![], vec![oldtype]);
        construct(cx, newtype, d, |t, new| unsafe {
            ffi::MPI_Type_create_darray(size, rank, ndims, g.as_ptr(), host_dist.as_ptr(), host_darg.as_ptr(), p.as_ptr(), host_order, t.get(0), new)
        })
    })
}

pub fn type_create_resized(mut env: FunctionEnvMut<MpiEnv>, oldtype: i32, lb: i32, extent: i32, newtype: u32) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Type_create_resized", WORLD, |cx| {
        let d = Description::new(abi::c::MPI_COMBINER_RESIZED, vec![], vec![lb, extent], vec![oldtype]);
        construct(cx, newtype, d, |t, new| unsafe { ffi::MPI_Type_create_resized(t.get(0), lb as ffi::MPI_Aint, extent as ffi::MPI_Aint, new) })
    })
}

/// The duplicate's attributes are copied by the attribute family.
pub fn dup_type(cx: &mut Ctx, oldtype: i32, newtype: u32) -> MpiResult<i32> {
    let d = Description::new(abi::c::MPI_COMBINER_DUP, vec![], vec![], vec![oldtype]);
    construct(cx, newtype, d, |t, new| unsafe { ffi::MPI_Type_dup(t.get(0), new) })?;
    let new = cx.mem.read_i32(newtype)?;
    // a duplicate has all of its original's properties, committed or not
    if cx.datatype(oldtype)?.committed {
        cx.commit_datatype(new)?;
    }
    Ok(new)
}

/// Fortran parameterized types have no wasm32 meaning.
fn f90_unsupported(env: &mut FunctionEnvMut<MpiEnv>, function: &'static str) -> Result<i32, Fatal> {
    call(env, function, WORLD, |_| {
        Err(MpiError::new(abi::c::MPI_ERR_OTHER, format!("{function} is not supported: Fortran parameterized types have no wasm32 mapping")))
    })
}

pub fn type_create_f90_real(mut env: FunctionEnvMut<MpiEnv>, _p: i32, _r: i32, _newtype: u32) -> Result<i32, Fatal> {
    f90_unsupported(&mut env, "MPI_Type_create_f90_real")
}

pub fn type_create_f90_complex(mut env: FunctionEnvMut<MpiEnv>, _p: i32, _r: i32, _newtype: u32) -> Result<i32, Fatal> {
    f90_unsupported(&mut env, "MPI_Type_create_f90_complex")
}

pub fn type_create_f90_integer(mut env: FunctionEnvMut<MpiEnv>, _r: i32, _newtype: u32) -> Result<i32, Fatal> {
    f90_unsupported(&mut env, "MPI_Type_create_f90_integer")
}
