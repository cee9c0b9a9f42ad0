//! MPI-5.0's ABI queries. They describe the guest's ABI (the standard ABI
//! as wasm32 has it: 4-byte MPI_Aint, 8-byte MPI_Count and MPI_Offset), not
//! the host library's, so the embedder answers them on every host. The
//! Fortran ones keep what the program sets: a wasm32-wasi module has no
//! Fortran of the MPI library's own to describe.
use std::{collections::HashMap, ffi::CString};

use wasmer::FunctionEnvMut;

use super::{
    call::{call, Ctx},
    errors::{Fatal, MpiError, MpiResult},
    MpiEnv,
};
use crate::{abi, host_mpi, host_mpi::ffi};

const WORLD: i32 = abi::c::MPI_COMM_WORLD;

/// What the program told MPI about its Fortran.
#[derive(Default)]
pub struct FortranAbi {
    /// MPI_Abi_set_fortran_info's info (a host duplicate), set at most once.
    info: Option<host_mpi::Info>,
    /// logical size -> (.TRUE., .FALSE.) bytes.
    booleans: HashMap<i32, (Vec<u8>, Vec<u8>)>,
}

/// The ABI version the guest mpi.h implements. May be called at any time,
/// before MPI_Init and after MPI_Finalize too.
#[inline]
pub fn abi_get_version(mut env: FunctionEnvMut<MpiEnv>, abi_major: u32, abi_minor: u32) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Abi_get_version", WORLD, |cx| {
        cx.mem.range(abi_major, 4)?;
        cx.mem.range(abi_minor, 4)?;
        cx.mem.write_i32(abi_major, abi::c::MPI_ABI_VERSION)?;
        Ok(cx.mem.write_i32(abi_minor, abi::c::MPI_ABI_SUBVERSION)?)
    })
}

/// A new info object with `pairs`.
fn new_info(cx: &mut Ctx, ptr: u32, pairs: &[(&str, String)]) -> MpiResult {
    cx.require_running()?;
    cx.mem.range(ptr, 4)?;
    let mut info = host_mpi::null_info();
    cx.host(unsafe { ffi::MPI_Info_create(&mut info.0) })?;
    for (k, v) in pairs {
        let (k, v) = (CString::new(*k).expect("no NUL"), CString::new(v.as_str()).expect("no NUL"));
        if let Err(e) = cx.host(unsafe { ffi::MPI_Info_set(info.0, k.as_ptr(), v.as_ptr()) }) {
            unsafe { ffi::MPI_Info_free(&mut info.0) };
            return Err(e);
        }
    }
    cx.out_info(ptr, info)
}

#[inline]
pub fn abi_get_info(mut env: FunctionEnvMut<MpiEnv>, info: u32) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Abi_get_info", WORLD, |cx| {
        let sizes = [("mpi_aint_size", 4), ("mpi_count_size", 8), ("mpi_offset_size", 8)];
        new_info(cx, info, &sizes.map(|(k, v)| (k, v.to_string())))
    })
}

/// A duplicate of what MPI_Abi_set_fortran_info stored, else MPI_INFO_NULL
/// (no Fortran ABI details are known).
#[inline]
pub fn abi_get_fortran_info(mut env: FunctionEnvMut<MpiEnv>, info: u32) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Abi_get_fortran_info", WORLD, |cx| {
        cx.require_running()?;
        cx.mem.range(info, 4)?;
        let mut copy = host_mpi::null_info();
        if let Some(stored) = cx.bridge.fortran_abi.info {
            cx.host(unsafe { ffi::MPI_Info_dup(stored.0, &mut copy.0) })?;
        }
        cx.out_info(info, copy)
    })
}

#[inline]
pub fn abi_set_fortran_info(mut env: FunctionEnvMut<MpiEnv>, info: i32) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Abi_set_fortran_info", WORLD, |cx| {
        let given = cx.info(info)?;
        if cx.bridge.fortran_abi.info.is_some() {
            return Err(MpiError::new(abi::c::MPI_ERR_ABI, "the Fortran ABI information is already set"));
        }
        let mut copy = host_mpi::null_info();
        cx.host(unsafe { ffi::MPI_Info_dup(given.0, &mut copy.0) })?;
        cx.bridge.fortran_abi.info = Some(copy);
        Ok(())
    })
}

/// A Fortran LOGICAL's size: a power of two (and a sane one: at most 16).
fn logical_size(size: i32) -> MpiResult<u32> {
    match u32::try_from(size) {
        Ok(s) if s.is_power_of_two() && s <= 16 => Ok(s),
        _ => Err(MpiError::new(abi::c::MPI_ERR_ARG, format!("logical size {size} is not a power of two up to 16"))),
    }
}

#[inline]
pub fn abi_set_fortran_booleans(mut env: FunctionEnvMut<MpiEnv>, size: i32, logical_true: u32, logical_false: u32) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Abi_set_fortran_booleans", WORLD, |cx| {
        let n = logical_size(size)?;
        let (t, f) = (cx.mem.read_bytes(logical_true, n)?, cx.mem.read_bytes(logical_false, n)?);
        if t == f {
            return Err(MpiError::new(abi::c::MPI_ERR_ARG, ".TRUE. and .FALSE. are the same bytes"));
        }
        cx.bridge.fortran_abi.booleans.insert(size, (t, f));
        Ok(())
    })
}

#[inline]
pub fn abi_get_fortran_booleans(mut env: FunctionEnvMut<MpiEnv>, size: i32, logical_true: u32, logical_false: u32, is_set: u32) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Abi_get_fortran_booleans", WORLD, |cx| {
        let n = logical_size(size)?;
        cx.mem.range(is_set, 4)?;
        let known = cx.bridge.fortran_abi.booleans.get(&size).cloned();
        if let Some((t, f)) = &known {
            cx.mem.range(logical_true, n as u64)?;
            cx.mem.range(logical_false, n as u64)?;
            cx.mem.write_bytes(logical_true, t)?;
            cx.mem.write_bytes(logical_false, f)?;
        }
        Ok(cx.mem.write_i32(is_set, known.is_some() as i32)?)
    })
}
