//! MPI_Pack/MPI_Unpack and the external32 forms, each written once over
//! the width of its counts, sizes and positions (`Width`): C int (the
//! external32 forms: 32-bit MPI_Aint sizes and positions) or MPI-4.0's
//! MPI_Count (`_c`). The packed buffer is checked as `size` bytes; the typed
//! side by its datatype's true extent. The packed bytes the call moves may
//! not share a byte with the typed side's data (`Ctx::check_apart`).
//!
//! The `_c` forms call the host's int forms whenever the counts (and the
//! native forms' packed end position) fit a C int, as they nearly always do
//! in a 4 GiB memory, and the host's `_c` function only otherwise (see
//! `need_host_large`).
use wasmer::FunctionEnvMut;

use super::{check_count, need_host_large, Width};
use crate::{
    abi,
    host_mpi::ffi,
    mpi::{
        call::{call, Ctx},
        errors::{Fatal, MpiError, MpiResult},
        translate::SolidSpan,
        MpiEnv,
    },
};

type Env<'a> = FunctionEnvMut<'a, MpiEnv>;

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
fn native_packed(dt: ffi::MPI_Datatype, count: i64) -> i64 {
    let mut size: ffi::MPI_Count = 0;
    unsafe { ffi::MPI_Type_size_x(dt, &mut size) };
    (size as i64).saturating_mul(count.max(0))
}

/// Whether `count` elements of `dt` hold no bytes of data: then nothing is
/// packed or unpacked, the position stays, and the host is not called.
/// MPICH dies on a derived type of size 0 (a zero-count vector,
/// contiguous, indexed, struct...), natively too: 4.0.2 and 5.0.2 of SIGILL
/// in every external32 call (MPI_Pack_external_size included), 4.0.2 of
/// SIGFPE in MPI_Unpack.
fn no_data(dt: ffi::MPI_Datatype, count: i64) -> bool {
    native_packed(dt, count) == 0
}

/// Whether `value` needs the host's `_c` function `function` (it does not
/// fit a C int; an error if the host lacks that function).
fn large(function: &'static str, value: i64) -> MpiResult<bool> {
    if i32::try_from(value).is_ok() {
        return Ok(false);
    }
    need_host_large(function, value)?;
    Ok(true)
}

fn external_packed(rep: &std::ffi::CStr, dt: ffi::MPI_Datatype, count: i64, large: bool) -> MpiResult<i64> {
    let mut size: ffi::MPI_Aint = 0;
    let mut wide: ffi::MPI_Count = 0;
    let rc = unsafe {
        if large {
            ffi::MPI_Pack_external_size_c(rep.as_ptr(), count, dt, &mut wide)
        } else {
            ffi::MPI_Pack_external_size(rep.as_ptr(), count as i32, dt, &mut size)
        }
    };
    if rc != 0 {
        return Err(MpiError::new(abi::c::MPI_ERR_ARG, "cannot size the external32 representation"));
    }
    Ok(if large { wide } else { size as i64 })
}

#[allow(clippy::too_many_arguments)]
pub fn pack(mut env: Env, inbuf: u32, incount: i32, datatype: i32, outbuf: u32, outsize: i32, position: u32, comm: i32) -> Result<i32, Fatal> {
    pack_native::<i32>(&mut env, "MPI_Pack", inbuf, incount as i64, datatype, outbuf, outsize as i64, position, comm)
}

#[allow(clippy::too_many_arguments)]
pub fn pack_c(mut env: Env, inbuf: u32, incount: i64, datatype: i32, outbuf: u32, outsize: i64, position: u32, comm: i32) -> Result<i32, Fatal> {
    pack_native::<i64>(&mut env, "MPI_Pack_c", inbuf, incount, datatype, outbuf, outsize, position, comm)
}

/// The host's int form whenever the count and the packed end position fit
/// a C int: it touches nothing past the end position, so a larger size is
/// passed on as INT_MAX.
#[allow(clippy::too_many_arguments)]
fn pack_native<W: Width>(
    env: &mut Env,
    function: &'static str,
    inbuf: u32,
    incount: i64,
    datatype: i32,
    outbuf: u32,
    outsize: i64,
    position: u32,
    comm: i32,
) -> Result<i32, Fatal> {
    call(env, function, comm, |cx| {
        let c = cx.comm(comm)?;
        let dt = cx.datatype(datatype)?;
        let inp = cx.buffer(inbuf, incount, &dt)?;
        let out = cx.mem.range(outbuf, outsize.max(0) as u64)?;
        let mut pos = cx.read_width::<W>(position)?;
        check_position(pos, outsize)?;
        let packed = native_packed(dt.host.0, incount);
        check_room(pos, outsize, packed)?;
        cx.check_apart(SolidSpan::of(inp, incount, &dt), SolidSpan::bytes(out.wrapping_add(pos as usize), packed.max(0) as u64))?;
        if packed == 0 {
            return cx.write_width::<W>(position, pos); // `no_data`
        }
        if large(function, incount.max(pos + packed))? {
            cx.host(unsafe { ffi::MPI_Pack_c(inp as _, incount, dt.host.0, out as _, outsize, &mut pos, c.host.0) })?;
        } else {
            let mut p = pos as i32;
            cx.host(unsafe { ffi::MPI_Pack(inp as _, incount as i32, dt.host.0, out as _, int_size(outsize), &mut p, c.host.0) })?;
            pos = p as i64;
        }
        cx.write_width::<W>(position, pos)
    })
}

/// A buffer size for the host's int form, which touches no byte past the
/// (checked) packed end: capped at INT_MAX.
fn int_size(size: i64) -> i32 {
    size.min(i32::MAX as i64) as i32
}

#[allow(clippy::too_many_arguments)]
pub fn unpack(mut env: Env, inbuf: u32, insize: i32, position: u32, outbuf: u32, outcount: i32, datatype: i32, comm: i32) -> Result<i32, Fatal> {
    unpack_native::<i32>(&mut env, "MPI_Unpack", inbuf, insize as i64, position, outbuf, outcount as i64, datatype, comm)
}

#[allow(clippy::too_many_arguments)]
pub fn unpack_c(mut env: Env, inbuf: u32, insize: i64, position: u32, outbuf: u32, outcount: i64, datatype: i32, comm: i32) -> Result<i32, Fatal> {
    unpack_native::<i64>(&mut env, "MPI_Unpack_c", inbuf, insize, position, outbuf, outcount, datatype, comm)
}

#[allow(clippy::too_many_arguments)]
fn unpack_native<W: Width>(
    env: &mut Env,
    function: &'static str,
    inbuf: u32,
    insize: i64,
    position: u32,
    outbuf: u32,
    outcount: i64,
    datatype: i32,
    comm: i32,
) -> Result<i32, Fatal> {
    call(env, function, comm, |cx| {
        let c = cx.comm(comm)?;
        let dt = cx.datatype(datatype)?;
        let inp = cx.mem.range(inbuf, insize.max(0) as u64)?;
        let out = cx.buffer(outbuf, outcount, &dt)?;
        let mut pos = cx.read_width::<W>(position)?;
        check_position(pos, insize)?;
        let packed = native_packed(dt.host.0, outcount);
        check_room(pos, insize, packed)?;
        cx.check_apart(SolidSpan::bytes(inp.wrapping_add(pos as usize), packed.max(0) as u64), SolidSpan::of(out, outcount, &dt))?;
        if packed == 0 {
            return cx.write_width::<W>(position, pos); // `no_data`
        }
        if large(function, outcount.max(pos + packed))? {
            cx.host(unsafe { ffi::MPI_Unpack_c(inp as _, insize, &mut pos, out as _, outcount, dt.host.0, c.host.0) })?;
        } else {
            let mut p = pos as i32;
            cx.host(unsafe { ffi::MPI_Unpack(inp as _, int_size(insize), &mut p, out as _, outcount as i32, dt.host.0, c.host.0) })?;
            pos = p as i64;
        }
        cx.write_width::<W>(position, pos)
    })
}

pub fn pack_size(mut env: Env, incount: i32, datatype: i32, comm: i32, size: u32) -> Result<i32, Fatal> {
    pack_size_of::<i32>(&mut env, "MPI_Pack_size", incount as i64, datatype, comm, size)
}

pub fn pack_size_c(mut env: Env, incount: i64, datatype: i32, comm: i32, size: u32) -> Result<i32, Fatal> {
    pack_size_of::<i64>(&mut env, "MPI_Pack_size_c", incount, datatype, comm, size)
}

/// The `_c` form asks the host's int form only when its answer fits an int
/// (Open MPI's int form truncates a larger one).
fn pack_size_of<W: Width>(env: &mut Env, function: &'static str, incount: i64, datatype: i32, comm: i32, size: u32) -> Result<i32, Fatal> {
    call(env, function, comm, |cx| {
        let c = cx.comm(comm)?;
        let dt = cx.datatype(datatype)?;
        dt.check_committed()?;
        check_count(incount)?;
        cx.mem.range(size, W::BYTES)?;
        if W::LARGE && large(function, incount.max(native_packed(dt.host.0, incount)))? {
            let mut s: ffi::MPI_Count = 0;
            cx.host(unsafe { ffi::MPI_Pack_size_c(incount, dt.host.0, c.host.0, &mut s) })?;
            return cx.write_width::<W>(size, s);
        }
        let mut s = 0;
        cx.host(unsafe { ffi::MPI_Pack_size(incount as i32, dt.host.0, c.host.0, &mut s) })?;
        cx.write_width::<W>(size, s as i64)
    })
}

/// The data representation name (only "external32" exists).
fn datarep(cx: &Ctx, ptr: u32) -> MpiResult<std::ffi::CString> {
    cx.cstr(ptr, 64)
}

/// Types the host's external32 cannot take safely, refused: long double
/// (the host converts its own, which would misread the guest's binary128),
/// and on MPICH types that mix basic types (MPICH 4.0.2 and 5.0.2 die of
/// SIGILL in MPI_Pack_external(_size) on a struct of an int and a double).
fn external32_takes(cx: &Ctx, datatype: i32) -> MpiResult {
    if cx.bridge.datatypes.get(datatype).is_some_and(|d| d.binary128()) {
        return Err(MpiError::new(abi::c::MPI_ERR_TYPE, "external32 packing of long double is not supported"));
    }
    // a type with no data is packed without the host (`no_data`)
    let has_data = || cx.bridge.datatypes.get(datatype).is_some_and(|d| !no_data(d.host.0, 1));
    if crate::host_mpi::is_mpich() && cx.bridge.basic_types(datatype).len() > 1 && has_data() {
        return Err(MpiError::new(
            abi::c::MPI_ERR_TYPE,
            "external32 of a type that mixes basic types is not supported on MPICH (its own external32 dies of SIGILL there)",
        ));
    }
    Ok(())
}

#[allow(clippy::too_many_arguments)]
pub fn pack_external(mut env: Env, rep: u32, inbuf: u32, incount: i32, datatype: i32, outbuf: u32, outsize: i32, position: u32) -> Result<i32, Fatal> {
    pack_external32::<i32>(&mut env, "MPI_Pack_external", rep, inbuf, incount as i64, datatype, outbuf, outsize as i64, position)
}

#[allow(clippy::too_many_arguments)]
pub fn pack_external_c(mut env: Env, rep: u32, inbuf: u32, incount: i64, datatype: i32, outbuf: u32, outsize: i64, position: u32) -> Result<i32, Fatal> {
    pack_external32::<i64>(&mut env, "MPI_Pack_external_c", rep, inbuf, incount, datatype, outbuf, outsize, position)
}

/// The host's int form takes 64-bit MPI_Aint sizes and positions: only the
/// count must fit a C int.
#[allow(clippy::too_many_arguments)]
fn pack_external32<W: Width>(
    env: &mut Env,
    function: &'static str,
    rep: u32,
    inbuf: u32,
    incount: i64,
    datatype: i32,
    outbuf: u32,
    outsize: i64,
    position: u32,
) -> Result<i32, Fatal> {
    call(env, function, abi::c::MPI_COMM_WORLD, |cx| {
        let rep = datarep(cx, rep)?;
        let dt = cx.datatype(datatype)?;
        external32_takes(cx, datatype)?;
        let inp = cx.buffer(inbuf, incount, &dt)?;
        let out = cx.mem.range(outbuf, outsize.max(0) as u64)?;
        let mut pos = cx.read_width::<W>(position)?;
        check_position(pos, outsize)?;
        if no_data(dt.host.0, incount) {
            return cx.write_width::<W>(position, pos);
        }
        let large = large(function, incount)?;
        let packed = external_packed(&rep, dt.host.0, incount, large)?;
        check_room(pos, outsize, packed)?;
        cx.check_apart(SolidSpan::of(inp, incount, &dt), SolidSpan::bytes(out.wrapping_add(pos as usize), packed.max(0) as u64))?;
        if large {
            cx.host(unsafe { ffi::MPI_Pack_external_c(rep.as_ptr(), inp as _, incount, dt.host.0, out as _, outsize, &mut pos) })?;
        } else {
            let mut p = pos as ffi::MPI_Aint;
            let size = outsize as ffi::MPI_Aint;
            cx.host(unsafe { ffi::MPI_Pack_external(rep.as_ptr(), inp as _, incount as i32, dt.host.0, out as _, size, &mut p) })?;
            pos = p as i64;
        }
        cx.write_width::<W>(position, pos)
    })
}

#[allow(clippy::too_many_arguments)]
pub fn unpack_external(mut env: Env, rep: u32, inbuf: u32, insize: i32, position: u32, outbuf: u32, outcount: i32, datatype: i32) -> Result<i32, Fatal> {
    unpack_external32::<i32>(&mut env, "MPI_Unpack_external", rep, inbuf, insize as i64, position, outbuf, outcount as i64, datatype)
}

#[allow(clippy::too_many_arguments)]
pub fn unpack_external_c(mut env: Env, rep: u32, inbuf: u32, insize: i64, position: u32, outbuf: u32, outcount: i64, datatype: i32) -> Result<i32, Fatal> {
    unpack_external32::<i64>(&mut env, "MPI_Unpack_external_c", rep, inbuf, insize, position, outbuf, outcount, datatype)
}

#[allow(clippy::too_many_arguments)]
fn unpack_external32<W: Width>(
    env: &mut Env,
    function: &'static str,
    rep: u32,
    inbuf: u32,
    insize: i64,
    position: u32,
    outbuf: u32,
    outcount: i64,
    datatype: i32,
) -> Result<i32, Fatal> {
    call(env, function, abi::c::MPI_COMM_WORLD, |cx| {
        let rep = datarep(cx, rep)?;
        let dt = cx.datatype(datatype)?;
        external32_takes(cx, datatype)?;
        let inp = cx.mem.range(inbuf, insize.max(0) as u64)?;
        let out = cx.buffer(outbuf, outcount, &dt)?;
        let mut pos = cx.read_width::<W>(position)?;
        check_position(pos, insize)?;
        if no_data(dt.host.0, outcount) {
            return cx.write_width::<W>(position, pos);
        }
        let large = large(function, outcount)?;
        let packed = external_packed(&rep, dt.host.0, outcount, large)?;
        check_room(pos, insize, packed)?;
        cx.check_apart(SolidSpan::bytes(inp.wrapping_add(pos as usize), packed.max(0) as u64), SolidSpan::of(out, outcount, &dt))?;
        if large {
            cx.host(unsafe { ffi::MPI_Unpack_external_c(rep.as_ptr(), inp as _, insize, &mut pos, out as _, outcount, dt.host.0) })?;
        } else {
            let mut p = pos as ffi::MPI_Aint;
            let size = insize as ffi::MPI_Aint;
            cx.host(unsafe { ffi::MPI_Unpack_external(rep.as_ptr(), inp as _, size, &mut p, out as _, outcount as i32, dt.host.0) })?;
            pos = p as i64;
        }
        cx.write_width::<W>(position, pos)
    })
}

pub fn pack_external_size(mut env: Env, rep: u32, incount: i32, datatype: i32, size: u32) -> Result<i32, Fatal> {
    pack_external_size_of::<i32>(&mut env, "MPI_Pack_external_size", rep, incount as i64, datatype, size)
}

pub fn pack_external_size_c(mut env: Env, rep: u32, incount: i64, datatype: i32, size: u32) -> Result<i32, Fatal> {
    pack_external_size_of::<i64>(&mut env, "MPI_Pack_external_size_c", rep, incount, datatype, size)
}

fn pack_external_size_of<W: Width>(env: &mut Env, function: &'static str, rep: u32, incount: i64, datatype: i32, size: u32) -> Result<i32, Fatal> {
    call(env, function, abi::c::MPI_COMM_WORLD, |cx| {
        let rep = datarep(cx, rep)?;
        let dt = cx.datatype(datatype)?;
        dt.check_committed()?;
        external32_takes(cx, datatype)?;
        // Open MPI takes a negative count as a huge one and loops for hours
        check_count(incount)?;
        cx.mem.range(size, W::BYTES)?;
        if no_data(dt.host.0, incount) {
            return cx.write_width::<W>(size, 0);
        }
        let mut s: ffi::MPI_Aint = 0;
        let mut wide: ffi::MPI_Count = 0;
        if large(function, incount)? {
            cx.host(unsafe { ffi::MPI_Pack_external_size_c(rep.as_ptr(), incount, dt.host.0, &mut wide) })?;
        } else {
            cx.host(unsafe { ffi::MPI_Pack_external_size(rep.as_ptr(), incount as i32, dt.host.0, &mut s) })?;
            wide = s as i64;
        }
        // a 32-bit MPI_Aint cannot hold more (the _c form has it)
        cx.write_width::<W>(size, wide)
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

