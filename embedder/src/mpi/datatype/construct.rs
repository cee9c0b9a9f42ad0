//! Derived datatype constructors: each reads the guest's description
//! (32-bit MPI_Aint values widened, guest handles translated, ABI constants
//! mapped), builds the type on the host, and records the description for
//! MPI_Type_get_contents.
//!
//! Each constructor is written once, generic over the width of its count
//! arguments (`Width`): C int for the MPI-3 form, MPI_Count for MPI-4.0's
//! `_c` form. Both build the type with the host's int form whenever every
//! count fits a C int (the `_c` form's MPI_Count displacements and extents
//! become the host's 64-bit MPI_Aint, which always holds them), and with the
//! host's `_c` form otherwise (`host_ints`).
use std::rc::Rc;

use wasmer::FunctionEnvMut;

use super::{check_count, host_ints, Contents, DatatypeEntry, OwnedType, TypeMeta, TypeRef, Width};
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

/// A constructor's arguments as MPI_Type_get_contents(_c) returns them.
struct Description {
    combiner: i32,
    ints: Vec<i32>,
    aints: Vec<i32>,
    counts: Vec<i64>,
    types: Vec<i32>,
}

/// One group of a constructor's arguments, in the order of the standard's
/// decoding table (MPI-4.1 Table 5.1).
enum Arg<'a> {
    /// C ints in either form (ndims, order, distributions, dargs, psizes).
    Int(&'a [i32]),
    /// Counts, block lengths, int strides and displacements: integers of
    /// the MPI-3 form, large counts of the `_c` form.
    Count(&'a [i64]),
    /// Byte strides, displacements and bounds: addresses of the MPI-3 form
    /// (read as 32-bit guest MPI_Aint), large counts of the `_c` form.
    Aint(&'a [i64]),
}

impl Description {
    fn new<W: Width>(combiner: i32, args: &[Arg], types: Vec<i32>) -> Self {
        let mut d = Self { combiner, ints: vec![], aints: vec![], counts: vec![], types };
        for arg in args {
            match *arg {
                Arg::Int(v) => d.ints.extend_from_slice(v),
                // read from 32-bit guest values: they fit
                Arg::Count(v) if !W::LARGE => d.ints.extend(v.iter().map(|&x| x as i32)),
                Arg::Aint(v) if !W::LARGE => d.aints.extend(v.iter().map(|&x| x as i32)),
                Arg::Count(v) | Arg::Aint(v) => d.counts.extend_from_slice(v),
            }
        }
        d
    }
}

/// The extent, true extent and size of a host type, for bounds and
/// aliasing checks.
pub fn describe(host: host_mpi::Datatype) -> Result<DatatypeEntry, i32> {
    let (_, extent) = host_mpi::type_extent(host)?;
    let (true_lb, true_extent) = host_mpi::type_true_extent(host)?;
    Ok(DatatypeEntry::new(host, extent, true_lb, true_extent, false).of_size(host_mpi::type_size(host)?))
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
    let contents = Contents { combiner: desc.combiner, ints: desc.ints, aints: desc.aints, counts: desc.counts, types };
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
            *e = e.commit(entry.host);
        }
        Ok(())
    }

    pub fn new_datatype(&mut self, host: host_mpi::Datatype, contents: Rc<Contents>) -> MpiResult<i32> {
        // a size past MPI_Count (a block length of 2^63 - 1 elements) wraps
        // negative on the host, and MPICH asserts (aborting the job) in
        // every later size query, natively too
        if host_mpi::type_size(host).is_ok_and(|size| size < 0) {
            let mut h = host;
            unsafe { ffi::MPI_Type_free(&mut h.0) };
            return Err(MpiError::new(abi::c::MPI_ERR_COUNT, "the type's size does not fit an MPI_Count"));
        }
        let entry = match describe(host) {
            Ok(e) => e.holding_binary128(super::super::binary128::holds_binary128(&contents)),
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
    pub fn int_vec(&self, ptr: u32, n: i64) -> MpiResult<Vec<i32>> {
        Ok(self.guest_vec::<i32>(ptr, n)?.into_iter().map(|v| v as i32).collect())
    }

    /// `n` guest values of width `W` (a constructor's array of counts or
    /// displacements), widened.
    pub fn guest_vec<W: Width>(&self, ptr: u32, n: i64) -> MpiResult<Vec<i64>> {
        check_count(n)?;
        let p = self.mem.range(ptr, (n as u64).saturating_mul(W::BYTES))?;
        if n > MAX_BLOCKS as i64 {
            return Err(MpiError::new(
                abi::c::MPI_ERR_COUNT,
                format!("{n} blocks: more than the {MAX_BLOCKS} a derived datatype may have in this embedder"),
            ));
        }
        Ok((0..n as usize).map(|i| unsafe { W::read(p.add(i * W::BYTES as usize)) }).collect())
    }

    /// A guest count argument of width `W` at `ptr` (MPI_Pack's position).
    pub fn read_width<W: Width>(&self, ptr: u32) -> MpiResult<i64> {
        let p = self.mem.range(ptr, W::BYTES)?;
        Ok(unsafe { W::read(p) })
    }

    /// Writes a count, size or position of width `W` (a 4-byte one must
    /// fit, as `write_aint` says).
    pub fn write_width<W: Width>(&self, ptr: u32, value: i64) -> MpiResult {
        match W::narrow(value) {
            Some(v) => self.write_int(ptr, v),
            None => self.write_aint(ptr, value),
        }
    }
}

/// Array arguments of the type constructors become host allocations (the
/// bridge's copies, then the host MPI's type description, tens of bytes per
/// block): a guest whose memory has grown to gigabytes could otherwise make
/// the host allocate many times that (a fuzzed `MPI_Type_create_hindexed_block`
/// of 760 million blocks crashed the host).
pub const MAX_BLOCKS: i32 = 1 << 24;

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

type Env<'a> = FunctionEnvMut<'a, MpiEnv>;

pub fn type_contiguous(mut env: Env, count: i32, oldtype: i32, newtype: u32) -> Result<i32, Fatal> {
    contiguous(&mut env, "MPI_Type_contiguous", count, oldtype, newtype)
}

pub fn type_contiguous_c(mut env: Env, count: i64, oldtype: i32, newtype: u32) -> Result<i32, Fatal> {
    contiguous(&mut env, "MPI_Type_contiguous_c", count, oldtype, newtype)
}

fn contiguous<W: Width>(env: &mut Env, function: &'static str, count: W, oldtype: i32, newtype: u32) -> Result<i32, Fatal> {
    call(env, function, WORLD, |cx| {
        let n = count.into();
        check_count(n)?;
        let d = Description::new::<W>(abi::c::MPI_COMBINER_CONTIGUOUS, &[Arg::Count(&[n])], vec![oldtype]);
        let host = host_ints(function, &[n])?;
        construct(cx, newtype, d, |t, new| unsafe {
            match host {
                Some(c) => ffi::MPI_Type_contiguous(c[0], t.get(0), new),
                None => ffi::MPI_Type_contiguous_c(n, t.get(0), new),
            }
        })
    })
}

pub fn type_vector(mut env: Env, count: i32, blocklength: i32, stride: i32, oldtype: i32, newtype: u32) -> Result<i32, Fatal> {
    vector(&mut env, "MPI_Type_vector", [count, blocklength, stride], oldtype, newtype)
}

pub fn type_vector_c(mut env: Env, count: i64, blocklength: i64, stride: i64, oldtype: i32, newtype: u32) -> Result<i32, Fatal> {
    vector(&mut env, "MPI_Type_vector_c", [count, blocklength, stride], oldtype, newtype)
}

fn vector<W: Width>(env: &mut Env, function: &'static str, args: [W; 3], oldtype: i32, newtype: u32) -> Result<i32, Fatal> {
    call(env, function, WORLD, |cx| {
        let v = args.map(Into::into);
        check_count(v[0])?;
        let d = Description::new::<W>(abi::c::MPI_COMBINER_VECTOR, &[Arg::Count(&v)], vec![oldtype]);
        let host = host_ints(function, &v)?;
        construct(cx, newtype, d, |t, new| unsafe {
            match host {
                Some(c) => ffi::MPI_Type_vector(c[0], c[1], c[2], t.get(0), new),
                None => ffi::MPI_Type_vector_c(v[0], v[1], v[2], t.get(0), new),
            }
        })
    })
}

pub fn type_create_hvector(mut env: Env, count: i32, blocklength: i32, stride: i32, oldtype: i32, newtype: u32) -> Result<i32, Fatal> {
    hvector(&mut env, "MPI_Type_create_hvector", [count, blocklength], stride, oldtype, newtype)
}

pub fn type_create_hvector_c(mut env: Env, count: i64, blocklength: i64, stride: i64, oldtype: i32, newtype: u32) -> Result<i32, Fatal> {
    hvector(&mut env, "MPI_Type_create_hvector_c", [count, blocklength], stride, oldtype, newtype)
}

fn hvector<W: Width>(env: &mut Env, function: &'static str, counts: [W; 2], stride: W, oldtype: i32, newtype: u32) -> Result<i32, Fatal> {
    call(env, function, WORLD, |cx| {
        let (c, stride) = (counts.map(Into::into), stride.into());
        check_count(c[0])?;
        let d = Description::new::<W>(abi::c::MPI_COMBINER_HVECTOR, &[Arg::Count(&c), Arg::Aint(&[stride])], vec![oldtype]);
        let host = host_ints(function, &c)?;
        construct(cx, newtype, d, |t, new| unsafe {
            match host {
                Some(h) => ffi::MPI_Type_create_hvector(h[0], h[1], stride as ffi::MPI_Aint, t.get(0), new),
                None => ffi::MPI_Type_create_hvector_c(c[0], c[1], stride, t.get(0), new),
            }
        })
    })
}

pub fn type_indexed(mut env: Env, count: i32, blocklengths: u32, displacements: u32, oldtype: i32, newtype: u32) -> Result<i32, Fatal> {
    indexed(&mut env, "MPI_Type_indexed", count, blocklengths, displacements, oldtype, newtype)
}

pub fn type_indexed_c(mut env: Env, count: i64, blocklengths: u32, displacements: u32, oldtype: i32, newtype: u32) -> Result<i32, Fatal> {
    indexed(&mut env, "MPI_Type_indexed_c", count, blocklengths, displacements, oldtype, newtype)
}

fn indexed<W: Width>(env: &mut Env, function: &'static str, count: W, blocklengths: u32, displacements: u32, oldtype: i32, newtype: u32) -> Result<i32, Fatal> {
    call(env, function, WORLD, |cx| {
        let n = count.into();
        let (bl, disp) = (cx.guest_vec::<W>(blocklengths, n)?, cx.guest_vec::<W>(displacements, n)?);
        let d = Description::new::<W>(abi::c::MPI_COMBINER_INDEXED, &[Arg::Count(&[n]), Arg::Count(&bl), Arg::Count(&disp)], vec![oldtype]);
        let host = host_ints(function, &[&bl[..], &disp].concat())?;
        let k = n as usize; // at most MAX_BLOCKS
        construct(cx, newtype, d, |t, new| unsafe {
            match host {
                Some(h) => ffi::MPI_Type_indexed(k as i32, h.as_ptr(), h[k..].as_ptr(), t.get(0), new),
                None => ffi::MPI_Type_indexed_c(n, bl.as_ptr(), disp.as_ptr(), t.get(0), new),
            }
        })
    })
}

pub fn type_create_hindexed(mut env: Env, count: i32, blocklengths: u32, displacements: u32, oldtype: i32, newtype: u32) -> Result<i32, Fatal> {
    hindexed(&mut env, "MPI_Type_create_hindexed", count, blocklengths, displacements, oldtype, newtype)
}

pub fn type_create_hindexed_c(mut env: Env, count: i64, blocklengths: u32, displacements: u32, oldtype: i32, newtype: u32) -> Result<i32, Fatal> {
    hindexed(&mut env, "MPI_Type_create_hindexed_c", count, blocklengths, displacements, oldtype, newtype)
}

fn hindexed<W: Width>(env: &mut Env, function: &'static str, count: W, blocklengths: u32, displacements: u32, oldtype: i32, newtype: u32) -> Result<i32, Fatal> {
    call(env, function, WORLD, |cx| {
        let n = count.into();
        let (bl, disp) = (cx.guest_vec::<W>(blocklengths, n)?, cx.guest_vec::<W>(displacements, n)?);
        let d = Description::new::<W>(abi::c::MPI_COMBINER_HINDEXED, &[Arg::Count(&[n]), Arg::Count(&bl), Arg::Aint(&disp)], vec![oldtype]);
        let host = host_ints(function, &bl)?;
        let wide = widen(&disp);
        construct(cx, newtype, d, |t, new| unsafe {
            match host {
                Some(h) => ffi::MPI_Type_create_hindexed(n as i32, h.as_ptr(), wide.as_ptr(), t.get(0), new),
                None => ffi::MPI_Type_create_hindexed_c(n, bl.as_ptr(), disp.as_ptr(), t.get(0), new),
            }
        })
    })
}

pub fn type_create_indexed_block(mut env: Env, count: i32, blocklength: i32, displacements: u32, oldtype: i32, newtype: u32) -> Result<i32, Fatal> {
    indexed_block(&mut env, "MPI_Type_create_indexed_block", count, blocklength, displacements, oldtype, newtype)
}

pub fn type_create_indexed_block_c(mut env: Env, count: i64, blocklength: i64, displacements: u32, oldtype: i32, newtype: u32) -> Result<i32, Fatal> {
    indexed_block(&mut env, "MPI_Type_create_indexed_block_c", count, blocklength, displacements, oldtype, newtype)
}

fn indexed_block<W: Width>(env: &mut Env, function: &'static str, count: W, blocklength: W, displacements: u32, oldtype: i32, newtype: u32) -> Result<i32, Fatal> {
    call(env, function, WORLD, |cx| {
        let (n, bl) = (count.into(), blocklength.into());
        let disp = cx.guest_vec::<W>(displacements, n)?;
        let d = Description::new::<W>(abi::c::MPI_COMBINER_INDEXED_BLOCK, &[Arg::Count(&[n, bl]), Arg::Count(&disp)], vec![oldtype]);
        let host = host_ints(function, &[&[bl][..], &disp].concat())?;
        construct(cx, newtype, d, |t, new| unsafe {
            match host {
                Some(h) => ffi::MPI_Type_create_indexed_block(n as i32, h[0], h[1..].as_ptr(), t.get(0), new),
                None => ffi::MPI_Type_create_indexed_block_c(n, bl, disp.as_ptr(), t.get(0), new),
            }
        })
    })
}

pub fn type_create_hindexed_block(mut env: Env, count: i32, blocklength: i32, displacements: u32, oldtype: i32, newtype: u32) -> Result<i32, Fatal> {
    hindexed_block(&mut env, "MPI_Type_create_hindexed_block", count, blocklength, displacements, oldtype, newtype)
}

pub fn type_create_hindexed_block_c(mut env: Env, count: i64, blocklength: i64, displacements: u32, oldtype: i32, newtype: u32) -> Result<i32, Fatal> {
    hindexed_block(&mut env, "MPI_Type_create_hindexed_block_c", count, blocklength, displacements, oldtype, newtype)
}

fn hindexed_block<W: Width>(env: &mut Env, function: &'static str, count: W, blocklength: W, displacements: u32, oldtype: i32, newtype: u32) -> Result<i32, Fatal> {
    call(env, function, WORLD, |cx| {
        let (n, bl) = (count.into(), blocklength.into());
        let disp = cx.guest_vec::<W>(displacements, n)?;
        let d = Description::new::<W>(abi::c::MPI_COMBINER_HINDEXED_BLOCK, &[Arg::Count(&[n, bl]), Arg::Aint(&disp)], vec![oldtype]);
        let host = host_ints(function, &[bl])?;
        let wide = widen(&disp);
        construct(cx, newtype, d, |t, new| unsafe {
            match host {
                Some(h) => ffi::MPI_Type_create_hindexed_block(n as i32, h[0], wide.as_ptr(), t.get(0), new),
                None => ffi::MPI_Type_create_hindexed_block_c(n, bl, disp.as_ptr(), t.get(0), new),
            }
        })
    })
}

pub fn type_create_struct(mut env: Env, count: i32, blocklengths: u32, displacements: u32, types: u32, newtype: u32) -> Result<i32, Fatal> {
    create_struct(&mut env, "MPI_Type_create_struct", count, blocklengths, displacements, types, newtype)
}

pub fn type_create_struct_c(mut env: Env, count: i64, blocklengths: u32, displacements: u32, types: u32, newtype: u32) -> Result<i32, Fatal> {
    create_struct(&mut env, "MPI_Type_create_struct_c", count, blocklengths, displacements, types, newtype)
}

fn create_struct<W: Width>(env: &mut Env, function: &'static str, count: W, blocklengths: u32, displacements: u32, types: u32, newtype: u32) -> Result<i32, Fatal> {
    call(env, function, WORLD, |cx| {
        let n = count.into();
        let (bl, disp, types) = (cx.guest_vec::<W>(blocklengths, n)?, cx.guest_vec::<W>(displacements, n)?, cx.int_vec(types, n)?);
        let d = Description::new::<W>(abi::c::MPI_COMBINER_STRUCT, &[Arg::Count(&[n]), Arg::Count(&bl), Arg::Aint(&disp)], types);
        let host = host_ints(function, &bl)?;
        let wide = widen(&disp);
        construct(cx, newtype, d, |t, new| unsafe {
            match host {
                Some(h) => ffi::MPI_Type_create_struct(n as i32, h.as_ptr(), wide.as_ptr(), t.as_ptr(), new),
                None => ffi::MPI_Type_create_struct_c(n, bl.as_ptr(), disp.as_ptr(), t.as_ptr(), new),
            }
        })
    })
}

#[allow(clippy::too_many_arguments)]
pub fn type_create_subarray(mut env: Env, ndims: i32, sizes: u32, subsizes: u32, starts: u32, order: i32, oldtype: i32, newtype: u32) -> Result<i32, Fatal> {
    subarray::<i32>(&mut env, "MPI_Type_create_subarray", ndims, [sizes, subsizes, starts], order, oldtype, newtype)
}

#[allow(clippy::too_many_arguments)]
pub fn type_create_subarray_c(mut env: Env, ndims: i32, sizes: u32, subsizes: u32, starts: u32, order: i32, oldtype: i32, newtype: u32) -> Result<i32, Fatal> {
    subarray::<i64>(&mut env, "MPI_Type_create_subarray_c", ndims, [sizes, subsizes, starts], order, oldtype, newtype)
}

fn subarray<W: Width>(env: &mut Env, function: &'static str, ndims: i32, arrays: [u32; 3], order: i32, oldtype: i32, newtype: u32) -> Result<i32, Fatal> {
    call(env, function, WORLD, |cx| {
        let n = ndims as i64;
        // sizes, subsizes, starts: in this order in both contents forms
        let all = [cx.guest_vec::<W>(arrays[0], n)?, cx.guest_vec::<W>(arrays[1], n)?, cx.guest_vec::<W>(arrays[2], n)?].concat();
        let host_order = host_constant(order, ORDERS, "array order")?;
        let args = if W::LARGE { [Arg::Int(&[ndims, order]), Arg::Count(&all), Arg::Int(&[])] } else { [Arg::Int(&[ndims]), Arg::Count(&all), Arg::Int(&[order])] };
        let d = Description::new::<W>(abi::c::MPI_COMBINER_SUBARRAY, &args, vec![oldtype]);
        let host = host_ints(function, &all)?;
        let k = ndims as usize;
        construct(cx, newtype, d, |t, new| unsafe {
            match host {
                Some(h) => ffi::MPI_Type_create_subarray(ndims, h.as_ptr(), h[k..].as_ptr(), h[2 * k..].as_ptr(), host_order, t.get(0), new),
                None => ffi::MPI_Type_create_subarray_c(ndims, all.as_ptr(), all[k..].as_ptr(), all[2 * k..].as_ptr(), host_order, t.get(0), new),
            }
        })
    })
}

/// MPI_Type_create_darray's arguments after `size` and `rank`.
struct Darray {
    ndims: i32,
    gsizes: u32,
    distribs: u32,
    dargs: u32,
    psizes: u32,
    order: i32,
}

#[allow(clippy::too_many_arguments)]
pub fn type_create_darray(
    mut env: Env,
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
    let a = Darray { ndims, gsizes, distribs, dargs, psizes, order };
    darray::<i32>(&mut env, "MPI_Type_create_darray", size, rank, a, oldtype, newtype)
}

#[allow(clippy::too_many_arguments)]
pub fn type_create_darray_c(
    mut env: Env,
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
    let a = Darray { ndims, gsizes, distribs, dargs, psizes, order };
    darray::<i64>(&mut env, "MPI_Type_create_darray_c", size, rank, a, oldtype, newtype)
}

fn darray<W: Width>(env: &mut Env, function: &'static str, size: i32, rank: i32, a: Darray, oldtype: i32, newtype: u32) -> Result<i32, Fatal> {
    call(env, function, WORLD, |cx| {
        let (ndims, order, n) = (a.ndims, a.order, a.ndims as i64);
        let g = cx.guest_vec::<W>(a.gsizes, n)?;
        let (dist, darg, p) = (cx.int_vec(a.distribs, n)?, cx.int_vec(a.dargs, n)?, cx.int_vec(a.psizes, n)?);
        let host_dist = dist.iter().map(|&v| host_constant(v, DISTRIBUTIONS, "distribution")).collect::<MpiResult<Vec<_>>>()?;
        let dflt = host_mpi::constants().int("MPI_DISTRIBUTE_DFLT_DARG");
        let host_darg: Vec<i32> = darg.iter().map(|&v| if v == abi::c::MPI_DISTRIBUTE_DFLT_DARG { dflt } else { v }).collect();
        let host_order = host_constant(order, ORDERS, "array order")?;
        let args = [Arg::Int(&[size, rank, ndims]), Arg::Count(&g), Arg::Int(&dist), Arg::Int(&darg), Arg::Int(&p), Arg::Int(&[order])];
        let d = Description::new::<W>(abi::c::MPI_COMBINER_DARRAY, &args, vec![oldtype]);
        let host = host_ints(function, &g)?;
        construct(cx, newtype, d, |t, new| unsafe {
            match host {
                Some(h) => ffi::MPI_Type_create_darray(size, rank, ndims, h.as_ptr(), host_dist.as_ptr(), host_darg.as_ptr(), p.as_ptr(), host_order, t.get(0), new),
                None => ffi::MPI_Type_create_darray_c(size, rank, ndims, g.as_ptr(), host_dist.as_ptr(), host_darg.as_ptr(), p.as_ptr(), host_order, t.get(0), new),
            }
        })
    })
}

pub fn type_create_resized(mut env: Env, oldtype: i32, lb: i32, extent: i32, newtype: u32) -> Result<i32, Fatal> {
    resized(&mut env, "MPI_Type_create_resized", oldtype, lb, extent, newtype)
}

pub fn type_create_resized_c(mut env: Env, oldtype: i32, lb: i64, extent: i64, newtype: u32) -> Result<i32, Fatal> {
    resized(&mut env, "MPI_Type_create_resized_c", oldtype, lb, extent, newtype)
}

/// The host's MPI_Aint holds either form's bounds: always its int form.
fn resized<W: Width>(env: &mut Env, function: &'static str, oldtype: i32, lb: W, extent: W, newtype: u32) -> Result<i32, Fatal> {
    call(env, function, WORLD, |cx| {
        let (lb, extent) = (lb.into(), extent.into());
        let d = Description::new::<W>(abi::c::MPI_COMBINER_RESIZED, &[Arg::Aint(&[lb, extent])], vec![oldtype]);
        construct(cx, newtype, d, |t, new| unsafe { ffi::MPI_Type_create_resized(t.get(0), lb as ffi::MPI_Aint, extent as ffi::MPI_Aint, new) })
    })
}

/// Displacements as the host's MPI_Aint (the guest's 32-bit ones were
/// sign-extended when read: MPI_Aint is signed).
fn widen(disp: &[i64]) -> Vec<ffi::MPI_Aint> {
    disp.iter().map(|&a| a as ffi::MPI_Aint).collect()
}

/// The duplicate's attributes are copied by the attribute family.
pub fn dup_type(cx: &mut Ctx, oldtype: i32, newtype: u32) -> MpiResult<i32> {
    let d = Description::new::<i32>(abi::c::MPI_COMBINER_DUP, &[], vec![oldtype]);
    construct(cx, newtype, d, |t, new| unsafe { ffi::MPI_Type_dup(t.get(0), new) })?;
    let new = cx.mem.read_i32(newtype)?;
    // a duplicate has all of its original's properties, committed or not
    if cx.datatype(oldtype)?.committed() {
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

#[inline]
pub fn type_create_f90_real(mut env: FunctionEnvMut<MpiEnv>, _p: i32, _r: i32, _newtype: u32) -> Result<i32, Fatal> {
    f90_unsupported(&mut env, "MPI_Type_create_f90_real")
}

#[inline]
pub fn type_create_f90_complex(mut env: FunctionEnvMut<MpiEnv>, _p: i32, _r: i32, _newtype: u32) -> Result<i32, Fatal> {
    f90_unsupported(&mut env, "MPI_Type_create_f90_complex")
}

#[inline]
pub fn type_create_f90_integer(mut env: FunctionEnvMut<MpiEnv>, _r: i32, _newtype: u32) -> Result<i32, Fatal> {
    f90_unsupported(&mut env, "MPI_Type_create_f90_integer")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// MPI-4.1 Table 5.1: the int forms' counts are integers and their byte
    /// displacements addresses; the `_c` forms have both as large counts, in
    /// call order, and keep only C int arguments as integers.
    #[test]
    fn descriptions_follow_the_decoding_table_in_both_forms() {
        let (bl, disp) = ([1i64, 2], [-8i64, 40]);
        let args = [Arg::Count(&[2]), Arg::Count(&bl), Arg::Aint(&disp)];
        let int = Description::new::<i32>(abi::c::MPI_COMBINER_HINDEXED, &args, vec![abi::c::MPI_INT]);
        assert_eq!((int.ints, int.aints, int.counts), (vec![2, 1, 2], vec![-8, 40], vec![]));
        let large = Description::new::<i64>(abi::c::MPI_COMBINER_HINDEXED, &args, vec![abi::c::MPI_INT]);
        assert_eq!((large.ints, large.aints, large.counts), (vec![], vec![], vec![2, 1, 2, -8, 40]));
        // darray: size, rank, ndims, gsizes, distribs, dargs, psizes, order
        let g = [8i64, 1 << 33];
        let args = [Arg::Int(&[4, 1, 2]), Arg::Count(&g), Arg::Int(&[5, 6]), Arg::Int(&[7, 8]), Arg::Int(&[2, 2]), Arg::Int(&[9])];
        let large = Description::new::<i64>(abi::c::MPI_COMBINER_DARRAY, &args, vec![abi::c::MPI_INT]);
        assert_eq!((large.ints, large.counts), (vec![4, 1, 2, 5, 6, 7, 8, 2, 2, 9], vec![8, 1 << 33]));
    }

    #[test]
    fn counts_that_fit_go_to_the_hosts_int_form() {
        let v = [0, -1, i32::MAX as i64, i32::MIN as i64];
        assert_eq!(host_ints("MPI_Type_indexed_c", &v).unwrap(), Some(vec![0, -1, i32::MAX, i32::MIN]));
        assert_eq!(host_ints("MPI_Type_indexed_c", &[]).unwrap(), Some(vec![]));
    }

    #[test]
    fn guest_values_are_read_at_their_width() {
        use crate::{guest_memory::GuestMemory, mpi::state::Bridge};
        let mut mem = vec![0u8; 64];
        mem[..8].copy_from_slice(&(-3i64 << 32 | 5).to_le_bytes());
        mem[8..12].copy_from_slice(&(-7i32).to_le_bytes());
        let mut bridge = Bridge::new();
        let cx = Ctx::for_test(unsafe { GuestMemory::from_raw(mem.as_mut_ptr(), 64) }, &mut bridge);
        assert_eq!(cx.guest_vec::<i64>(0, 1).unwrap(), vec![-3i64 << 32 | 5]);
        assert_eq!(cx.guest_vec::<i32>(8, 1).unwrap(), vec![-7]);
        assert_eq!(cx.guest_vec::<i64>(0, -1).unwrap_err().class, abi::c::MPI_ERR_COUNT);
        // past the memory, and counts whose byte size overflows
        assert_eq!(cx.guest_vec::<i64>(8, 8).unwrap_err().class, abi::c::MPI_ERR_BUFFER);
        assert_eq!(cx.guest_vec::<i64>(0, i64::MAX).unwrap_err().class, abi::c::MPI_ERR_BUFFER);
        assert_eq!(cx.read_width::<i64>(60).unwrap_err().class, abi::c::MPI_ERR_BUFFER);
        assert_eq!(cx.read_width::<i32>(8).unwrap(), -7);
    }
}
