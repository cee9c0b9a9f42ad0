//! Enumerations and categories: what the host lists, by index.
use super::*;

// ---- enumerations ----------------------------------------------------------

#[inline]
pub fn enum_get_info(mut env: FunctionEnvMut<MpiEnv>, enumtype: i32, num: u32, name: u32, name_len: u32) -> Result<i32, Fatal> {
    tool(&mut env, "MPI_T_enum_get_info", |cx| {
        let e = cx.enum_arg(enumtype)?;
        cx.opt_out(num, 4)?;
        let room = cx.string_room(name_len)?;
        let mut n = 0;
        let (s, _) = two_strings(|p, l, _, _| unsafe { ffi::MPI_T_enum_get_info(e, &mut n, p, l) })?;
        cx.put_string(name, name_len, room, &s)?;
        cx.put_i32(num, n)
    })
}

#[inline]
pub fn enum_get_item(mut env: FunctionEnvMut<MpiEnv>, enumtype: i32, index: i32, value: u32, name: u32, name_len: u32) -> Result<i32, Fatal> {
    tool(&mut env, "MPI_T_enum_get_item", |cx| {
        let e = cx.enum_arg(enumtype)?;
        cx.opt_out(value, 4)?;
        let room = cx.string_room(name_len)?;
        let (mut items, mut nl) = (0, 0);
        host(unsafe { ffi::MPI_T_enum_get_info(e, &mut items, std::ptr::null_mut(), &mut nl) })?;
        if !(0..items).contains(&index) {
            return Err(t_err(abi::c::MPI_T_ERR_INVALID_INDEX, format!("item {index} is not one of the enumeration's {items}")));
        }
        let mut v = 0;
        let (s, _) = two_strings(|p, l, _, _| unsafe { ffi::MPI_T_enum_get_item(e, index, &mut v, p, l) })?;
        cx.put_string(name, name_len, room, &s)?;
        cx.put_i32(value, v)
    })
}

// ---- categories ------------------------------------------------------------

#[inline]
pub fn category_get_num(mut env: FunctionEnvMut<MpiEnv>, num: u32) -> Result<i32, Fatal> {
    tool(&mut env, "MPI_T_category_get_num", |cx| {
        cx.mem.range(num, 4)?;
        let mut n = 0;
        host(unsafe { ffi::MPI_T_category_get_num(&mut n) })?;
        Ok(cx.mem.write_i32(num, n)?)
    })
}

/// (cvars, pvars, categories) of category `index`.
fn category_counts(index: i32) -> MpiResult<(i32, i32, i32)> {
    check_index(Kind::Category, index)?;
    let (mut c, mut p, mut k, mut nl, mut dl) = (0, 0, 0, 0, 0);
    let null = std::ptr::null_mut();
    host(unsafe { ffi::MPI_T_category_get_info(index, null, &mut nl, null, &mut dl, &mut c, &mut p, &mut k) })?;
    Ok((c, p, k))
}

#[allow(clippy::too_many_arguments)]
pub fn category_get_info(
    mut env: FunctionEnvMut<MpiEnv>,
    index: i32,
    name: u32,
    name_len: u32,
    desc: u32,
    desc_len: u32,
    num_cvars: u32,
    num_pvars: u32,
    num_categories: u32,
) -> Result<i32, Fatal> {
    tool(&mut env, "MPI_T_category_get_info", |cx| {
        for p in [num_cvars, num_pvars, num_categories] {
            cx.opt_out(p, 4)?;
        }
        let (nroom, droom) = (cx.string_room(name_len)?, cx.string_room(desc_len)?);
        check_index(Kind::Category, index)?;
        let (mut c, mut p, mut k) = (0, 0, 0);
        let (n, d) = two_strings(|n, nl, d, dl| unsafe { ffi::MPI_T_category_get_info(index, n, nl, d, dl, &mut c, &mut p, &mut k) })?;
        cx.put_string(name, name_len, nroom, &n)?;
        cx.put_string(desc, desc_len, droom, &d)?;
        cx.put_i32(num_cvars, c)?;
        cx.put_i32(num_pvars, p)?;
        cx.put_i32(num_categories, k)
    })
}

#[inline]
pub fn category_get_index(mut env: FunctionEnvMut<MpiEnv>, name: u32, index: u32) -> Result<i32, Fatal> {
    tool(&mut env, "MPI_T_category_get_index", |cx| {
        let name = cx.name_arg(name)?;
        cx.mem.range(index, 4)?;
        let mut i = 0;
        host(unsafe { ffi::MPI_T_category_get_index(name.as_ptr(), &mut i) })?;
        Ok(cx.mem.write_i32(index, i)?)
    })
}

/// The first `len` of the category's `total` members, through `f`.
fn category_members(cx: &Ctx, len: i32, indices: u32, total: i32, f: impl FnOnce(i32, *mut c_int) -> i32) -> MpiResult {
    if len < 0 {
        return Err(t_err(abi::c::MPI_T_ERR_INVALID, format!("negative len {len}")));
    }
    let n = len.min(total.max(0));
    cx.mem.range(indices, 4 * n as u64)?;
    let mut out = vec![0 as c_int; n.max(1) as usize];
    host(f(n, out.as_mut_ptr()))?;
    let bytes: Vec<u8> = out[..n as usize].iter().flat_map(|v| v.to_le_bytes()).collect();
    Ok(cx.mem.write_bytes(indices, &bytes)?)
}

#[inline]
pub fn category_get_cvars(mut env: FunctionEnvMut<MpiEnv>, index: i32, len: i32, indices: u32) -> Result<i32, Fatal> {
    tool(&mut env, "MPI_T_category_get_cvars", |cx| {
        let (c, _, _) = category_counts(index)?;
        category_members(cx, len, indices, c, |n, p| unsafe { ffi::MPI_T_category_get_cvars(index, n, p) })
    })
}

#[inline]
pub fn category_get_pvars(mut env: FunctionEnvMut<MpiEnv>, index: i32, len: i32, indices: u32) -> Result<i32, Fatal> {
    tool(&mut env, "MPI_T_category_get_pvars", |cx| {
        let (_, p, _) = category_counts(index)?;
        category_members(cx, len, indices, p, |n, ptr| unsafe { ffi::MPI_T_category_get_pvars(index, n, ptr) })
    })
}

#[inline]
pub fn category_get_categories(mut env: FunctionEnvMut<MpiEnv>, index: i32, len: i32, indices: u32) -> Result<i32, Fatal> {
    tool(&mut env, "MPI_T_category_get_categories", |cx| {
        let (_, _, k) = category_counts(index)?;
        category_members(cx, len, indices, k, |n, p| unsafe { ffi::MPI_T_category_get_categories(index, n, p) })
    })
}

#[inline]
pub fn category_changed(mut env: FunctionEnvMut<MpiEnv>, update_number: u32) -> Result<i32, Fatal> {
    tool(&mut env, "MPI_T_category_changed", |cx| {
        cx.mem.range(update_number, 4)?;
        let mut n = 0;
        host(unsafe { ffi::MPI_T_category_changed(&mut n) })?;
        Ok(cx.mem.write_i32(update_number, n)?)
    })
}

/// How many events category `index` has (0 on a host without events,
/// once the index is checked).
fn category_events(index: i32) -> MpiResult<i32> {
    if !events_on_host() {
        category_counts(index)?;
        return Ok(0);
    }
    check_index(Kind::Category, index)?;
    let mut n = 0;
    host(unsafe { ffi::MPI_T_category_get_num_events(index, &mut n) })?;
    Ok(n)
}

#[inline]
pub fn category_get_num_events(mut env: FunctionEnvMut<MpiEnv>, index: i32, num: u32) -> Result<i32, Fatal> {
    tool(&mut env, "MPI_T_category_get_num_events", |cx| {
        cx.mem.range(num, 4)?;
        let n = category_events(index)?;
        Ok(cx.mem.write_i32(num, n)?)
    })
}

#[inline]
pub fn category_get_events(mut env: FunctionEnvMut<MpiEnv>, index: i32, len: i32, indices: u32) -> Result<i32, Fatal> {
    tool(&mut env, "MPI_T_category_get_events", |cx| {
        let total = category_events(index)?;
        if total == 0 {
            return category_members(cx, len, indices, 0, |_, _| host_mpi::SUCCESS);
        }
        category_members(cx, len, indices, total, |n, p| unsafe { ffi::MPI_T_category_get_events(index, n, p) })
    })
}
