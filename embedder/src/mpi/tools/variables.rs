//! Control and performance variables: their queries, handles, pvar
//! sessions, reading and writing (widths converted, see the module above).
use super::*;

// ---- control variables ---------------------------------------------------

#[inline]
pub fn cvar_get_num(mut env: FunctionEnvMut<MpiEnv>, num: u32) -> Result<i32, Fatal> {
    tool(&mut env, "MPI_T_cvar_get_num", |cx| {
        cx.mem.range(num, 4)?;
        let mut n = 0;
        host(unsafe { ffi::MPI_T_cvar_get_num(&mut n) })?;
        Ok(cx.mem.write_i32(num, n)?)
    })
}

/// (datatype, enum, bind, scope) of cvar `index` (host values).
fn cvar_kind(index: i32) -> MpiResult<(usize, usize, i32, i32)> {
    check_index(Kind::Cvar, index)?;
    let (mut verbosity, mut dt, mut en, mut bind, mut scope) = (0, 0usize, 0usize, 0, 0);
    let (mut nl, mut dl) = (0, 0);
    let null = std::ptr::null_mut();
    host(unsafe { ffi::MPI_T_cvar_get_info(index, null, &mut nl, &mut verbosity, &mut dt, &mut en, null, &mut dl, &mut bind, &mut scope) })?;
    Ok((dt, en, bind, scope))
}

#[allow(clippy::too_many_arguments)]
pub fn cvar_get_info(
    mut env: FunctionEnvMut<MpiEnv>,
    index: i32,
    name: u32,
    name_len: u32,
    verbosity: u32,
    datatype: u32,
    enumtype: u32,
    desc: u32,
    desc_len: u32,
    bind: u32,
    scope: u32,
) -> Result<i32, Fatal> {
    tool(&mut env, "MPI_T_cvar_get_info", |cx| {
        for p in [verbosity, datatype, enumtype, bind, scope] {
            cx.opt_out(p, 4)?;
        }
        let (nroom, droom) = (cx.string_room(name_len)?, cx.string_room(desc_len)?);
        check_index(Kind::Cvar, index)?;
        let (mut v, mut dt, mut en, mut b, mut s) = (0, 0usize, 0usize, 0, 0);
        let (n, d) = two_strings(|n, nl, d, dl| unsafe { ffi::MPI_T_cvar_get_info(index, n, nl, &mut v, &mut dt, &mut en, d, dl, &mut b, &mut s) })?;
        cx.put_string(name, name_len, nroom, &n)?;
        cx.put_string(desc, desc_len, droom, &d)?;
        cx.put_i32(verbosity, to_guest("MPI_T_VERBOSITY_", v))?;
        cx.put_i32(datatype, guest_type(dt))?;
        let e = cx.out_enum(en);
        cx.put_i32(enumtype, e)?;
        cx.put_i32(bind, to_guest("MPI_T_BIND_", b))?;
        cx.put_i32(scope, to_guest("MPI_T_SCOPE_", s))
    })
}

#[inline]
pub fn cvar_get_index(mut env: FunctionEnvMut<MpiEnv>, name: u32, index: u32) -> Result<i32, Fatal> {
    tool(&mut env, "MPI_T_cvar_get_index", |cx| {
        let name = cx.name_arg(name)?;
        cx.mem.range(index, 4)?;
        let mut i = 0;
        host(unsafe { ffi::MPI_T_cvar_get_index(name.as_ptr(), &mut i) })?;
        Ok(cx.mem.write_i32(index, i)?)
    })
}

/// The element layout of a variable of host datatype `dt`.
fn layout(dt: usize) -> MpiResult<Elem> {
    type_name(dt)
        .and_then(elem_of)
        .ok_or_else(|| t_err(abi::c::MPI_T_ERR_NOT_SUPPORTED, "a variable of a datatype the bridge cannot convert"))
}

#[inline]
pub fn cvar_handle_alloc(mut env: FunctionEnvMut<MpiEnv>, index: i32, obj_handle: u32, handle: u32, count: u32) -> Result<i32, Fatal> {
    tool(&mut env, "MPI_T_cvar_handle_alloc", |cx| {
        cx.mem.range(handle, 4)?;
        cx.mem.range(count, 4)?;
        let (dt, _, bind, _) = cvar_kind(index)?;
        let elem = layout(dt)?;
        let object = cx.bound_object(to_guest("MPI_T_BIND_", bind), obj_handle)?;
        let (mut h, mut n) = (0usize, 0);
        let obj = &*object as *const usize as *mut c_void;
        host(unsafe { ffi::MPI_T_cvar_handle_alloc(index, obj, &mut h, &mut n) })?;
        let g = cx.bridge.tools.cvars.insert(VarEntry { host: h, index, elem, count: n.max(0) as usize, session: 0, continuous: false, readonly: false, object });
        cx.mem.write_i32(handle, g)?;
        Ok(cx.mem.write_i32(count, n)?)
    })
}

#[inline]
pub fn cvar_handle_free(mut env: FunctionEnvMut<MpiEnv>, handle: u32) -> Result<i32, Fatal> {
    tool(&mut env, "MPI_T_cvar_handle_free", |cx| {
        let g = cx.mem.read_i32(handle)?;
        let mut h = cx.bridge.tools.cvars.get(g).map(|e| e.host).ok_or_else(|| t_err(abi::c::MPI_T_ERR_INVALID_HANDLE, format!("invalid MPI_T_cvar_handle {g:#x}")))?;
        host(unsafe { ffi::MPI_T_cvar_handle_free(&mut h) })?;
        cx.bridge.tools.cvars.remove(g);
        Ok(cx.mem.write_i32(handle, abi::c::MPI_T_CVAR_HANDLE_NULL)?)
    })
}

/// The guest size of `count` elements (which a wasm32 memory can hold).
fn guest_len(count: usize, e: Elem) -> MpiResult<u32> {
    u32::try_from(count * e.guest).map_err(|_| t_err(abi::c::MPI_T_ERR_INVALID, format!("{count} elements do not fit a wasm32 memory")))
}

/// Host room for `count` elements (a string may run past its count).
fn host_room(e: Elem, count: usize) -> Vec<u8> {
    let slack = if e.host == 1 { STRING_SLACK } else { 0 };
    vec![0u8; (count * e.host + slack).max(8)]
}

/// Host elements read into `buf` -> the guest buffer at `at`.
fn put_elements(cx: &Ctx, at: u32, e: Elem, count: usize, buf: &[u8]) -> MpiResult {
    let mut out = e.to_guest(buf, count);
    if e.host == 1 && !out.is_empty() && !out.contains(&0) {
        *out.last_mut().expect("not empty") = 0; // a string cut at the count
    }
    Ok(cx.mem.write_bytes(at, &out)?)
}

fn var_entry(t: &Table<VarEntry>, handle: i32, what: &str) -> MpiResult<(usize, Elem, usize, i32)> {
    t.get(handle).map(|e| (e.host, e.elem, e.count, e.index)).ok_or_else(|| t_err(abi::c::MPI_T_ERR_INVALID_HANDLE, format!("invalid {what} {handle:#x}")))
}

/// `mca_base_var_get_value(int index, const void *value, source *, const char **file)`.
type GetValue = unsafe extern "C" fn(c_int, *const c_void, *mut c_int, *mut *const c_char) -> c_int;

/// Open MPI keeps the control variables of a component library it has
/// unloaded (after MPI_Init: `opal_common_ucx_verbose`, ...), and reading
/// or writing one then faults in the host library (natively too). Its
/// variable system's own `mca_base_var_get_value` gives the storage's
/// address without touching it: it must lie in mapped memory.
fn storage_mapped(index: i32) -> MpiResult {
    static GET_VALUE: OnceLock<Option<GetValue>> = OnceLock::new();
    let get = GET_VALUE.get_or_init(|| {
        let lib = host_mpi::library::loaded();
        if lib.family != host_mpi::Family::OpenMpi {
            return None;
        }
        lib.symbol("mca_base_var_get_value").map(|f| unsafe { std::mem::transmute::<usize, GetValue>(f) })
    });
    let Some(get) = get else { return Ok(()) };
    let mut storage: *const c_void = std::ptr::null();
    let rc = unsafe { get(index, &mut storage as *mut *const c_void as *const c_void, std::ptr::null_mut(), std::ptr::null_mut()) };
    if rc != 0 || storage.is_null() {
        return Ok(()); // the host's own call answers
    }
    let page = 4096usize;
    let first = storage as usize & !(page - 1);
    let mut vec = [0u8; 2];
    // the 8 bytes a value occupies may straddle two pages
    let len = (storage as usize + 8).div_ceil(page) * page - first;
    if unsafe { libc::mincore(first as *mut c_void, len, vec.as_mut_ptr()) } != 0 {
        return Err(t_err(
            abi::c::MPI_T_ERR_INVALID_HANDLE,
            format!("control variable {index}: the host MPI unloaded the component that held it (its storage is unmapped)"),
        ));
    }
    Ok(())
}

#[inline]
pub fn cvar_read(mut env: FunctionEnvMut<MpiEnv>, handle: i32, buf: u32) -> Result<i32, Fatal> {
    tool(&mut env, "MPI_T_cvar_read", |cx| {
        let (h, e, n, index) = var_entry(&cx.bridge.tools.cvars, handle, "MPI_T_cvar_handle")?;
        cx.mem.range(buf, (n * e.guest) as u64)?;
        storage_mapped(index)?;
        let mut room = host_room(e, n);
        host(unsafe { ffi::MPI_T_cvar_read(h, room.as_mut_ptr() as *mut c_void) })?;
        put_elements(cx, buf, e, n, &room)
    })
}

#[inline]
pub fn cvar_write(mut env: FunctionEnvMut<MpiEnv>, handle: i32, buf: u32) -> Result<i32, Fatal> {
    tool(&mut env, "MPI_T_cvar_write", |cx| {
        let (h, e, n, index) = var_entry(&cx.bridge.tools.cvars, handle, "MPI_T_cvar_handle")?;
        let guest = cx.mem.read_bytes(buf, guest_len(n, e)?)?;
        storage_mapped(index)?;
        let mut value = e.to_host(&guest, n);
        if e.host == 1 {
            value.push(0); // a string the guest did not end stops at its count
        }
        host(unsafe { ffi::MPI_T_cvar_write(h, value.as_ptr() as *const c_void) })
    })
}

// ---- performance variables -----------------------------------------------

#[inline]
pub fn pvar_get_num(mut env: FunctionEnvMut<MpiEnv>, num: u32) -> Result<i32, Fatal> {
    tool(&mut env, "MPI_T_pvar_get_num", |cx| {
        cx.mem.range(num, 4)?;
        let mut n = 0;
        host(unsafe { ffi::MPI_T_pvar_get_num(&mut n) })?;
        Ok(cx.mem.write_i32(num, n)?)
    })
}

#[allow(clippy::too_many_arguments)]
pub fn pvar_get_info(
    mut env: FunctionEnvMut<MpiEnv>,
    index: i32,
    name: u32,
    name_len: u32,
    verbosity: u32,
    var_class: u32,
    datatype: u32,
    enumtype: u32,
    desc: u32,
    desc_len: u32,
    bind: u32,
    readonly: u32,
    continuous: u32,
    atomic: u32,
) -> Result<i32, Fatal> {
    tool(&mut env, "MPI_T_pvar_get_info", |cx| {
        for p in [verbosity, var_class, datatype, enumtype, bind, readonly, continuous, atomic] {
            cx.opt_out(p, 4)?;
        }
        let (nroom, droom) = (cx.string_room(name_len)?, cx.string_room(desc_len)?);
        check_index(Kind::Pvar, index)?;
        let (mut v, mut c, mut dt, mut en, mut b, mut ro, mut co, mut at) = (0, 0, 0usize, 0usize, 0, 0, 0, 0);
        let (n, d) = two_strings(|n, nl, d, dl| unsafe {
            ffi::MPI_T_pvar_get_info(index, n, nl, &mut v, &mut c, &mut dt, &mut en, d, dl, &mut b, &mut ro, &mut co, &mut at)
        })?;
        cx.put_string(name, name_len, nroom, &n)?;
        cx.put_string(desc, desc_len, droom, &d)?;
        cx.put_i32(verbosity, to_guest("MPI_T_VERBOSITY_", v))?;
        cx.put_i32(var_class, to_guest("MPI_T_PVAR_CLASS_", c))?;
        cx.put_i32(datatype, guest_type(dt))?;
        let e = cx.out_enum(en);
        cx.put_i32(enumtype, e)?;
        cx.put_i32(bind, to_guest("MPI_T_BIND_", b))?;
        cx.put_i32(readonly, ro)?;
        cx.put_i32(continuous, co)?;
        cx.put_i32(atomic, at)
    })
}

#[inline]
pub fn pvar_get_index(mut env: FunctionEnvMut<MpiEnv>, name: u32, var_class: i32, index: u32) -> Result<i32, Fatal> {
    tool(&mut env, "MPI_T_pvar_get_index", |cx| {
        let name = cx.name_arg(name)?;
        cx.mem.range(index, 4)?;
        let Some(class) = to_host("MPI_T_PVAR_CLASS_", var_class) else {
            return Err(t_err(abi::c::MPI_T_ERR_INVALID_NAME, format!("no performance variable class {var_class}")));
        };
        let mut i = 0;
        host(unsafe { ffi::MPI_T_pvar_get_index(name.as_ptr(), class, &mut i) })?;
        Ok(cx.mem.write_i32(index, i)?)
    })
}

#[inline]
pub fn pvar_session_create(mut env: FunctionEnvMut<MpiEnv>, session: u32) -> Result<i32, Fatal> {
    tool(&mut env, "MPI_T_pvar_session_create", |cx| {
        cx.mem.range(session, 4)?;
        let mut s = 0usize;
        host(unsafe { ffi::MPI_T_pvar_session_create(&mut s) })?;
        let g = cx.bridge.tools.sessions.insert(s);
        Ok(cx.mem.write_i32(session, g)?)
    })
}

/// Frees the session's handles too, as the host does.
#[inline]
pub fn pvar_session_free(mut env: FunctionEnvMut<MpiEnv>, session: u32) -> Result<i32, Fatal> {
    tool(&mut env, "MPI_T_pvar_session_free", |cx| {
        let g = cx.mem.read_i32(session)?;
        let mut s = cx.pvar_session(g)?;
        host(unsafe { ffi::MPI_T_pvar_session_free(&mut s) })?;
        let t = &mut cx.bridge.tools;
        t.sessions.remove(g);
        let gone: Vec<i32> = t.pvars.user_handles().filter(|&h| t.pvars.get(h).is_some_and(|e| e.session == g)).collect();
        for h in gone {
            t.pvars.remove(h);
        }
        Ok(cx.mem.write_i32(session, abi::c::MPI_T_PVAR_SESSION_NULL)?)
    })
}

#[inline]
pub fn pvar_handle_alloc(mut env: FunctionEnvMut<MpiEnv>, session: i32, index: i32, obj_handle: u32, handle: u32, count: u32) -> Result<i32, Fatal> {
    tool(&mut env, "MPI_T_pvar_handle_alloc", |cx| {
        let s = cx.pvar_session(session)?;
        cx.mem.range(handle, 4)?;
        cx.mem.range(count, 4)?;
        check_index(Kind::Pvar, index)?;
        let (mut v, mut c, mut dt, mut en, mut b, mut ro, mut co, mut at, mut nl, mut dl) = (0, 0, 0usize, 0usize, 0, 0, 0, 0, 0, 0);
        let null = std::ptr::null_mut();
        host(unsafe { ffi::MPI_T_pvar_get_info(index, null, &mut nl, &mut v, &mut c, &mut dt, &mut en, null, &mut dl, &mut b, &mut ro, &mut co, &mut at) })?;
        let elem = layout(dt)?;
        let object = cx.bound_object(to_guest("MPI_T_BIND_", b), obj_handle)?;
        let (mut h, mut n) = (0usize, 0);
        let obj = &*object as *const usize as *mut c_void;
        host(unsafe { ffi::MPI_T_pvar_handle_alloc(s, index, obj, &mut h, &mut n) })?;
        let g = cx.bridge.tools.pvars.insert(VarEntry { host: h, index, elem, count: n.max(0) as usize, session, continuous: co != 0, readonly: ro != 0, object });
        cx.mem.write_i32(handle, g)?;
        Ok(cx.mem.write_i32(count, n)?)
    })
}

#[inline]
pub fn pvar_handle_free(mut env: FunctionEnvMut<MpiEnv>, session: i32, handle: u32) -> Result<i32, Fatal> {
    tool(&mut env, "MPI_T_pvar_handle_free", |cx| {
        let g = cx.mem.read_i32(handle)?;
        let s = cx.pvar_session(session)?;
        let mut h = cx.pvar(session, g, false)?.expect("not all handles").host;
        host(unsafe { ffi::MPI_T_pvar_handle_free(s, &mut h) })?;
        cx.bridge.tools.pvars.remove(g);
        Ok(cx.mem.write_i32(handle, abi::c::MPI_T_PVAR_HANDLE_NULL)?)
    })
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Op {
    Start,
    Stop,
    Reset,
}

/// Starts, stops or resets one handle of `session`, or with
/// MPI_T_PVAR_ALL_HANDLES each of the session's handles the operation
/// applies to (start/stop: not continuous ones; reset: not read-only ones)
/// one by one, as the standard describes it: the host's own
/// MPI_T_PVAR_ALL_HANDLES is never passed (MPICH 5's standard-ABI library
/// reads the handle 1 as a pointer, a fault natively too).
fn pvar_op(cx: &Ctx, session: i32, handle: i32, op: Op) -> MpiResult {
    let s = cx.pvar_session(session)?;
    let call = |h: usize| unsafe {
        match op {
            Op::Start => ffi::MPI_T_pvar_start(s, h),
            Op::Stop => ffi::MPI_T_pvar_stop(s, h),
            Op::Reset => ffi::MPI_T_pvar_reset(s, h),
        }
    };
    if let Some(e) = cx.pvar(session, handle, true)? {
        return host(call(e.host));
    }
    let t = &cx.bridge.tools;
    let mut failed = false;
    for h in t.pvars.user_handles() {
        let e = t.pvars.get(h).expect("listed");
        let skip = if op == Op::Reset { e.readonly } else { e.continuous };
        if e.session == session && !skip {
            failed |= call(e.host) != host_mpi::SUCCESS;
        }
    }
    if failed {
        let class = if op == Op::Reset { abi::c::MPI_T_ERR_PVAR_NO_WRITE } else { abi::c::MPI_T_ERR_PVAR_NO_STARTSTOP };
        return Err(MpiError::shared(class, "the host refused some of the session's variables"));
    }
    Ok(())
}

#[inline]
pub fn pvar_start(mut env: FunctionEnvMut<MpiEnv>, session: i32, handle: i32) -> Result<i32, Fatal> {
    tool(&mut env, "MPI_T_pvar_start", |cx| pvar_op(cx, session, handle, Op::Start))
}

#[inline]
pub fn pvar_stop(mut env: FunctionEnvMut<MpiEnv>, session: i32, handle: i32) -> Result<i32, Fatal> {
    tool(&mut env, "MPI_T_pvar_stop", |cx| pvar_op(cx, session, handle, Op::Stop))
}

#[inline]
pub fn pvar_reset(mut env: FunctionEnvMut<MpiEnv>, session: i32, handle: i32) -> Result<i32, Fatal> {
    tool(&mut env, "MPI_T_pvar_reset", |cx| pvar_op(cx, session, handle, Op::Reset))
}

fn pvar_read_with(env: &mut FunctionEnvMut<MpiEnv>, function: &'static str, session: i32, handle: i32, buf: u32, reset: bool) -> Result<i32, Fatal> {
    tool(env, function, |cx| {
        let s = cx.pvar_session(session)?;
        let e = cx.pvar(session, handle, false)?.expect("not all handles");
        let (h, elem, n) = (e.host, e.elem, e.count);
        cx.mem.range(buf, (n * elem.guest) as u64)?;
        let mut room = host_room(elem, n);
        let p = room.as_mut_ptr() as *mut c_void;
        host(unsafe { if reset { ffi::MPI_T_pvar_readreset(s, h, p) } else { ffi::MPI_T_pvar_read(s, h, p) } })?;
        put_elements(cx, buf, elem, n, &room)
    })
}

#[inline]
pub fn pvar_read(mut env: FunctionEnvMut<MpiEnv>, session: i32, handle: i32, buf: u32) -> Result<i32, Fatal> {
    pvar_read_with(&mut env, "MPI_T_pvar_read", session, handle, buf, false)
}

#[inline]
pub fn pvar_readreset(mut env: FunctionEnvMut<MpiEnv>, session: i32, handle: i32, buf: u32) -> Result<i32, Fatal> {
    pvar_read_with(&mut env, "MPI_T_pvar_readreset", session, handle, buf, true)
}

#[inline]
pub fn pvar_write(mut env: FunctionEnvMut<MpiEnv>, session: i32, handle: i32, buf: u32) -> Result<i32, Fatal> {
    tool(&mut env, "MPI_T_pvar_write", |cx| {
        let s = cx.pvar_session(session)?;
        let e = cx.pvar(session, handle, false)?.expect("not all handles");
        let (h, elem, n) = (e.host, e.elem, e.count);
        let guest = cx.mem.read_bytes(buf, guest_len(n, elem)?)?;
        let value = elem.to_host(&guest, n);
        host(unsafe { ffi::MPI_T_pvar_write(s, h, value.as_ptr() as *const c_void) })
    })
}
