//! MPI_Pack/MPI_Unpack and the external32 forms. The packed buffer is
//! checked as `size` bytes; the typed side by its datatype's true extent.
//! The external32 forms take 32-bit MPI_Aint sizes and positions.
use wasmer::FunctionEnvMut;

use crate::{
    abi,
    host_mpi::ffi,
    mpi::{
        call::call,
        errors::{Fatal, MpiError, MpiResult},
        MpiEnv,
    },
};

fn check_position(position: i64, size: i64) -> MpiResult {
    if position < 0 || position > size {
        return Err(MpiError::new(abi::c::MPI_ERR_ARG, format!("position {position} is outside the packed buffer of {size} bytes")));
    }
    Ok(())
}

/// The packed side must hold the `count` elements' packed bytes from
/// `position` on: MPICH reads (and writes) past `insize`/`outsize` without
/// a check, e.g. MPI_Unpack of 65536 ints from a 16-byte input at the end
/// of memory read host memory. `packed` is the native data size or the
/// external32 size.
fn check_room(position: i64, size: i64, packed: i64) -> MpiResult {
    if packed > size - position {
        return Err(MpiError::new(
            abi::c::MPI_ERR_TRUNCATE,
            format!("{packed} packed bytes do not fit in the {} bytes after position {position}", size - position),
        ));
    }
    Ok(())
}

/// Bytes of `count` elements of a host datatype in the native packed form
/// (the data itself: neither Open MPI nor MPICH adds headers).
fn native_packed(dt: ffi::MPI_Datatype, count: i32) -> i64 {
    let mut size: ffi::MPI_Count = 0;
    unsafe { ffi::MPI_Type_size_x(dt, &mut size) };
    size as i64 * count.max(0) as i64
}

fn external_packed(rep: &std::ffi::CStr, dt: ffi::MPI_Datatype, count: i32) -> MpiResult<i64> {
    let mut size: ffi::MPI_Aint = 0;
    let rc = unsafe { ffi::MPI_Pack_external_size(rep.as_ptr(), count, dt, &mut size) };
    if rc != 0 {
        return Err(MpiError::new(abi::c::MPI_ERR_ARG, "cannot size the external32 representation"));
    }
    Ok(size as i64)
}

#[allow(clippy::too_many_arguments)]
pub fn pack(mut env: FunctionEnvMut<MpiEnv>, inbuf: u32, incount: i32, datatype: i32, outbuf: u32, outsize: i32, position: u32, comm: i32) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Pack", comm, |cx| {
        let c = cx.comm(comm)?;
        let dt = cx.datatype(datatype)?;
        let inp = cx.buffer(inbuf, incount as i64, &dt)?;
        let out = cx.mem.range(outbuf, outsize.max(0) as u64)?;
        let mut pos = cx.mem.read_i32(position)?;
        check_position(pos as i64, outsize as i64)?;
        check_room(pos as i64, outsize as i64, native_packed(dt.host.0, incount))?;
        cx.host(unsafe { ffi::MPI_Pack(inp as _, incount, dt.host.0, out as _, outsize, &mut pos, c.host.0) })?;
        Ok(cx.mem.write_i32(position, pos)?)
    })
}

#[allow(clippy::too_many_arguments)]
pub fn unpack(mut env: FunctionEnvMut<MpiEnv>, inbuf: u32, insize: i32, position: u32, outbuf: u32, outcount: i32, datatype: i32, comm: i32) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Unpack", comm, |cx| {
        let c = cx.comm(comm)?;
        let dt = cx.datatype(datatype)?;
        let inp = cx.mem.range(inbuf, insize.max(0) as u64)?;
        let out = cx.buffer(outbuf, outcount as i64, &dt)?;
        let mut pos = cx.mem.read_i32(position)?;
        check_position(pos as i64, insize as i64)?;
        check_room(pos as i64, insize as i64, native_packed(dt.host.0, outcount))?;
        cx.host(unsafe { ffi::MPI_Unpack(inp as _, insize, &mut pos, out as _, outcount, dt.host.0, c.host.0) })?;
        Ok(cx.mem.write_i32(position, pos)?)
    })
}

pub fn pack_size(mut env: FunctionEnvMut<MpiEnv>, incount: i32, datatype: i32, comm: i32, size: u32) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Pack_size", comm, |cx| {
        let c = cx.comm(comm)?;
        let dt = cx.datatype(datatype)?;
        dt.check_committed()?;
        super::check_count(incount as i64)?;
        let mut s = 0;
        cx.host(unsafe { ffi::MPI_Pack_size(incount, dt.host.0, c.host.0, &mut s) })?;
        Ok(cx.mem.write_i32(size, s)?)
    })
}

/// The data representation name (only "external32" exists).
fn datarep(cx: &crate::mpi::call::Ctx, ptr: u32) -> MpiResult<std::ffi::CString> {
    cx.cstr(ptr, 64)
}

/// The host converts its own long double to external32, which would
/// misread the guest's binary128: refused rather than garbled.
fn no_binary128(cx: &crate::mpi::call::Ctx, datatype: i32) -> MpiResult {
    if cx.bridge.holds_binary128(datatype) {
        return Err(MpiError::new(abi::c::MPI_ERR_TYPE, "external32 packing of long double is not supported"));
    }
    Ok(())
}

#[allow(clippy::too_many_arguments)]
pub fn pack_external(mut env: FunctionEnvMut<MpiEnv>, rep: u32, inbuf: u32, incount: i32, datatype: i32, outbuf: u32, outsize: i32, position: u32) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Pack_external", abi::c::MPI_COMM_WORLD, |cx| {
        let rep = datarep(cx, rep)?;
        let dt = cx.datatype(datatype)?;
        no_binary128(cx, datatype)?;
        let inp = cx.buffer(inbuf, incount as i64, &dt)?;
        let out = cx.mem.range(outbuf, outsize.max(0) as u64)?;
        let mut pos = cx.mem.read_i32(position)? as ffi::MPI_Aint;
        check_position(pos as i64, outsize as i64)?;
        check_room(pos as i64, outsize as i64, external_packed(&rep, dt.host.0, incount)?)?;
        cx.host(unsafe { ffi::MPI_Pack_external(rep.as_ptr(), inp as _, incount, dt.host.0, out as _, outsize as ffi::MPI_Aint, &mut pos) })?;
        cx.write_aint(position, pos as i64)
    })
}

#[allow(clippy::too_many_arguments)]
pub fn unpack_external(mut env: FunctionEnvMut<MpiEnv>, rep: u32, inbuf: u32, insize: i32, position: u32, outbuf: u32, outcount: i32, datatype: i32) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Unpack_external", abi::c::MPI_COMM_WORLD, |cx| {
        let rep = datarep(cx, rep)?;
        let dt = cx.datatype(datatype)?;
        no_binary128(cx, datatype)?;
        let inp = cx.mem.range(inbuf, insize.max(0) as u64)?;
        let out = cx.buffer(outbuf, outcount as i64, &dt)?;
        let mut pos = cx.mem.read_i32(position)? as ffi::MPI_Aint;
        check_position(pos as i64, insize as i64)?;
        check_room(pos as i64, insize as i64, external_packed(&rep, dt.host.0, outcount)?)?;
        cx.host(unsafe { ffi::MPI_Unpack_external(rep.as_ptr(), inp as _, insize as ffi::MPI_Aint, &mut pos, out as _, outcount, dt.host.0) })?;
        cx.write_aint(position, pos as i64)
    })
}

pub fn pack_external_size(mut env: FunctionEnvMut<MpiEnv>, rep: u32, incount: i32, datatype: i32, size: u32) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Pack_external_size", abi::c::MPI_COMM_WORLD, |cx| {
        let rep = datarep(cx, rep)?;
        let dt = cx.datatype(datatype)?;
        dt.check_committed()?;
        // Open MPI takes a negative count as a huge one and loops for hours
        super::check_count(incount as i64)?;
        cx.mem.range(size, 4)?;
        let mut s: ffi::MPI_Aint = 0;
        cx.host(unsafe { ffi::MPI_Pack_external_size(rep.as_ptr(), incount, dt.host.0, &mut s) })?;
        cx.write_aint(size, s as i64)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{guest_memory::GuestMemory, mpi::call::Ctx, mpi::state::Bridge};

    #[test]
    fn positions_stay_inside_the_packed_buffer() {
        // the host writes at outbuf + position: a position outside [0, size] is never passed on
        for (position, size) in [(0, 0), (0, 16), (16, 16)] {
            assert!(check_position(position, size).is_ok(), "{position} in {size}");
        }
        for (position, size) in [(-1, 16), (17, 16), (i32::MIN as i64, 16), (0, -1), (i32::MAX as i64, 16)] {
            assert_eq!(check_position(position, size).unwrap_err().class, abi::c::MPI_ERR_ARG, "{position} in {size}");
        }
    }

    #[test]
    fn the_data_representation_name_is_a_bounded_guest_string() {
        let mut mem = vec![b'e'; 128];
        mem[..11].copy_from_slice(b"external32\0");
        let mut bridge = Bridge::new();
        let cx = Ctx::for_test(unsafe { GuestMemory::from_raw(mem.as_mut_ptr(), 128) }, &mut bridge);
        assert_eq!(datarep(&cx, 0).unwrap().as_bytes(), b"external32");
        // 117 bytes without a NUL: longer than any representation name
        assert_eq!(datarep(&cx, 11).unwrap_err().class, abi::c::MPI_ERR_ARG);
        // no NUL before the end of memory
        assert_eq!(datarep(&cx, 100).unwrap_err().class, abi::c::MPI_ERR_BUFFER);
    }
}

