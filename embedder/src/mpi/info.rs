//! Info objects: key/value strings copied across, handles in the bridge's
//! info table.
use std::ffi::{CStr, CString};

use wasmer::FunctionEnvMut;

use super::{
    call::{call, Ctx},
    errors::{Fatal, MpiError, MpiResult},
    MpiEnv,
};
use crate::{abi, host_mpi, host_mpi::ffi};

const WORLD: i32 = abi::c::MPI_COMM_WORLD;
const MAX_KEY: usize = abi::c::MPI_MAX_INFO_KEY as usize;
pub(super) const MAX_VAL: usize = abi::c::MPI_MAX_INFO_VAL as usize;

fn key(cx: &Ctx, ptr: u32) -> MpiResult<std::ffi::CString> {
    cx.cstr(ptr, MAX_KEY).map_err(|e| MpiError::new(abi::c::MPI_ERR_INFO_KEY, e.into_detail()))
}

#[inline]
pub fn create(mut env: FunctionEnvMut<MpiEnv>, info: u32) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Info_create", WORLD, |cx| {
        cx.require_running()?;
        cx.mem.range(info, 4)?;
        let mut i = host_mpi::null_info();
        cx.host(unsafe { ffi::MPI_Info_create(&mut i.0) })?;
        cx.out_info(info, i)
    })
}

#[inline]
pub fn dup(mut env: FunctionEnvMut<MpiEnv>, info: i32, newinfo: u32) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Info_dup", WORLD, |cx| {
        let i = cx.info(info)?;
        cx.mem.range(newinfo, 4)?;
        let mut n = host_mpi::null_info();
        cx.host(unsafe { ffi::MPI_Info_dup(i.0, &mut n.0) })?;
        cx.out_info(newinfo, n)
    })
}

#[inline]
pub fn free(mut env: FunctionEnvMut<MpiEnv>, info: u32) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Info_free", WORLD, |cx| {
        let h = cx.mem.read_i32(info)?;
        if h == abi::c::MPI_INFO_NULL || h == abi::c::MPI_INFO_ENV {
            return Err(MpiError::new(abi::c::MPI_ERR_INFO, "predefined info objects cannot be freed"));
        }
        let mut i = cx.info(h)?;
        cx.host(unsafe { ffi::MPI_Info_free(&mut i.0) })?;
        cx.bridge.infos.remove(h);
        Ok(cx.mem.write_i32(info, abi::c::MPI_INFO_NULL)?)
    })
}

#[inline]
pub fn set(mut env: FunctionEnvMut<MpiEnv>, info: i32, k: u32, value: u32) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Info_set", WORLD, |cx| {
        let i = cx.info(info)?;
        let (k, v) = (key(cx, k)?, cx.cstr(value, MAX_VAL).map_err(|e| MpiError::new(abi::c::MPI_ERR_INFO_VALUE, e.into_detail()))?);
        cx.host(unsafe { ffi::MPI_Info_set(i.0, k.as_ptr(), v.as_ptr()) })
    })
}

#[inline]
pub fn delete(mut env: FunctionEnvMut<MpiEnv>, info: i32, k: u32) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Info_delete", WORLD, |cx| {
        let i = cx.info(info)?;
        let k = key(cx, k)?;
        cx.host(unsafe { ffi::MPI_Info_delete(i.0, k.as_ptr()) })
    })
}

/// Copies at most `valuelen` characters and a terminator, as the standard
/// says. The host is asked for the whole value (its length first), so its
/// own handling of `valuelen` never applies: MPICH 4.0 reports a truncated
/// value as an error and returns an empty string for `valuelen` = INT_MAX
/// (`valuelen + 1` overflows), and no host buffer is sized by the guest.
#[inline]
pub fn get(mut env: FunctionEnvMut<MpiEnv>, info: i32, k: u32, valuelen: i32, value: u32, flag: u32) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Info_get", WORLD, |cx| {
        let i = cx.info(info)?;
        let k = key(cx, k)?;
        if valuelen < 0 {
            return Err(MpiError::new(abi::c::MPI_ERR_ARG, format!("negative valuelen {valuelen}")));
        }
        cx.mem.range(flag, 4)?;
        let found = whole_value(cx, i, &k)?;
        if let Some(v) = &found {
            write_cut(cx, value, v, valuelen as usize)?;
        }
        Ok(cx.mem.write_i32(flag, found.is_some() as i32)?)
    })
}

/// MPI-4.0: the value and its size with the NUL (`buflen`, in and out); a
/// value longer than `*buflen - 1` is cut there. Made of MPI-3 host calls,
/// so every host MPI has it.
#[inline]
pub fn get_string(mut env: FunctionEnvMut<MpiEnv>, info: i32, k: u32, buflen: u32, value: u32, flag: u32) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Info_get_string", WORLD, |cx| {
        let i = cx.info(info)?;
        let k = key(cx, k)?;
        let room = cx.mem.read_i32(buflen)?;
        if room < 0 {
            return Err(MpiError::new(abi::c::MPI_ERR_ARG, format!("negative buflen {room}")));
        }
        cx.mem.range(flag, 4)?;
        let found = whole_value(cx, i, &k)?;
        if let Some(v) = &found {
            if room > 0 {
                write_cut(cx, value, v, room as usize - 1)?;
            }
            cx.mem.write_i32(buflen, v.len() as i32 + 1)?;
        }
        Ok(cx.mem.write_i32(flag, found.is_some() as i32)?)
    })
}

/// The whole value of `key` (no NUL), if set.
fn whole_value(cx: &Ctx, info: host_mpi::Info, key: &CStr) -> MpiResult<Option<Vec<u8>>> {
    let (mut len, mut f) = (0, 0);
    cx.host(unsafe { ffi::MPI_Info_get_valuelen(info.0, key.as_ptr(), &mut len, &mut f) })?;
    if f == 0 {
        return Ok(None);
    }
    let mut buf = vec![0u8; len.max(0) as usize + 1];
    cx.host(unsafe { ffi::MPI_Info_get(info.0, key.as_ptr(), len.max(0), buf.as_mut_ptr() as *mut _, &mut f) })?;
    buf.truncate(buf.iter().position(|&b| b == 0).unwrap_or(buf.len() - 1));
    Ok(Some(buf))
}

/// Writes at most `max` bytes of `v` and a NUL.
fn write_cut(cx: &Ctx, at: u32, v: &[u8], max: usize) -> MpiResult {
    let mut out = v[..v.len().min(max)].to_vec();
    out.push(0);
    Ok(cx.mem.write_bytes(at, &out)?)
}

#[inline]
pub fn get_valuelen(mut env: FunctionEnvMut<MpiEnv>, info: i32, k: u32, valuelen: u32, flag: u32) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Info_get_valuelen", WORLD, |cx| {
        let i = cx.info(info)?;
        let k = key(cx, k)?;
        cx.mem.range(valuelen, 4)?;
        cx.mem.range(flag, 4)?;
        let (mut len, mut f) = (0, 0);
        cx.host(unsafe { ffi::MPI_Info_get_valuelen(i.0, k.as_ptr(), &mut len, &mut f) })?;
        if f != 0 {
            cx.mem.write_i32(valuelen, len)?;
        }
        Ok(cx.mem.write_i32(flag, f)?)
    })
}

#[inline]
pub fn get_nkeys(mut env: FunctionEnvMut<MpiEnv>, info: i32, nkeys: u32) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Info_get_nkeys", WORLD, |cx| {
        let i = cx.info(info)?;
        let mut n = 0;
        cx.host(unsafe { ffi::MPI_Info_get_nkeys(i.0, &mut n) })?;
        Ok(cx.mem.write_i32(nkeys, n)?)
    })
}

#[inline]
pub fn get_nthkey(mut env: FunctionEnvMut<MpiEnv>, info: i32, n: i32, k: u32) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Info_get_nthkey", WORLD, |cx| {
        let i = cx.info(info)?;
        let mut buf = vec![0u8; host_mpi::constants().int("MPI_MAX_INFO_KEY").max(MAX_KEY as i32) as usize + 1];
        cx.host(unsafe { ffi::MPI_Info_get_nthkey(i.0, n, buf.as_mut_ptr() as *mut _) })?;
        let len = buf.iter().position(|&b| b == 0).unwrap_or(buf.len() - 1).min(MAX_KEY - 1);
        cx.mem.write_bytes(k, &[&buf[..len], &[0]].concat())?;
        Ok(())
    })
}

/// The environment info of a process started with guest arguments `args`
/// (MPI_INFO_ENV, MPI_Info_create_env), as the guest sees it: `command`
/// (args[0]) and `argv` (the others, joined by spaces) when given;
/// `maxprocs` and `soft` (the job's process count: MPI_COMM_WORLD's size,
/// or the mpi://WORLD process set's of an open session; no launcher gives a
/// soft range, so it is maxprocs, as Open MPI says); `host` (the processor
/// name); `arch` (the host CPU's, which runs the guest); `thread_level`
/// (MPI_THREAD_SINGLE, MPI_Init's). `wdir` and `file` are not set, nor the
/// host library's own keys: the guest sees no host path (Open MPI's
/// MPI_INFO_ENV has the host's working directory and session directory).
pub(super) fn environment(cx: &Ctx, args: &[Vec<u8>]) -> MpiResult<host_mpi::Info> {
    let max_val = host_mpi::constants().int("MPI_MAX_INFO_VAL").min(abi::c::MPI_MAX_INFO_VAL) as usize - 1;
    let procs = job_size(cx)?;
    let (rc, host_name) = host_mpi::processor_name();
    cx.host(rc)?;
    let mut pairs: Vec<(&str, Vec<u8>)> = Vec::new();
    if let Some(command) = args.first() {
        pairs.push(("command", command.clone()));
    }
    if args.len() > 1 {
        pairs.push(("argv", args[1..].join(&b' ')));
    }
    pairs.push(("maxprocs", procs.to_string().into_bytes()));
    pairs.push(("soft", procs.to_string().into_bytes()));
    pairs.push(("host", host_name));
    pairs.push(("arch", std::env::consts::ARCH.as_bytes().to_vec()));
    pairs.push(("thread_level", b"MPI_THREAD_SINGLE".to_vec()));
    let mut i = host_mpi::null_info();
    cx.host(unsafe { ffi::MPI_Info_create(&mut i.0) })?;
    for (k, mut v) in pairs {
        v.truncate(max_val);
        v.retain(|&b| b != 0);
        let (k, v) = (CString::new(k).expect("no NUL"), CString::new(v).expect("NULs removed"));
        if let Err(e) = cx.host(unsafe { ffi::MPI_Info_set(i.0, k.as_ptr(), v.as_ptr()) }) {
            unsafe { ffi::MPI_Info_free(&mut i.0) };
            return Err(e);
        }
    }
    Ok(i)
}

/// Makes MPI_INFO_ENV the guest's environment info (once: at MPI_Init or
/// the first MPI_Session_init), instead of the host library's.
pub(super) fn publish_environment(cx: &mut Ctx) -> MpiResult {
    if cx.bridge.env_info_published {
        return Ok(());
    }
    let args = cx.bridge.guest_args.clone();
    let info = environment(cx, &args)?;
    cx.bridge.infos.set_predefined(abi::c::MPI_INFO_ENV, info);
    cx.bridge.env_info_published = true;
    Ok(())
}

/// How many processes the job has: MPI_COMM_WORLD's size, else the
/// mpi://WORLD process set's of the first open session.
fn job_size(cx: &Ctx) -> MpiResult<i32> {
    let mut size = 0;
    if cx.bridge.world {
        cx.host(host_mpi::comm_size(host_mpi::constants().comm_world, &mut size))?;
        return Ok(size);
    }
    let s = cx.bridge.sessions.user_handles().next().and_then(|h| cx.bridge.sessions.get(h)).map(|e| e.host);
    let s = s.ok_or_else(|| cx.bridge.not_running())?;
    let mut g = host_mpi::null_group();
    cx.host(unsafe { ffi::MPI_Group_from_session_pset(s.0, c"mpi://WORLD".as_ptr(), &mut g.0) })?;
    let rc = unsafe { ffi::MPI_Group_size(g.0, &mut size) };
    unsafe { ffi::MPI_Group_free(&mut g.0) };
    cx.host(rc)?;
    Ok(size)
}

