//! MPI-4.0 event sources and events (callbacks refused, see the module
//! above).
use super::*;

// ---- event sources -----------------------------------------------------------

#[inline]
pub fn source_get_num(mut env: FunctionEnvMut<MpiEnv>, num: u32) -> Result<i32, Fatal> {
    tool(&mut env, "MPI_T_source_get_num", |cx| {
        cx.mem.range(num, 4)?;
        let mut n = 0;
        if sources_on_host() {
            host(unsafe { ffi::MPI_T_source_get_num(&mut n) })?;
        }
        Ok(cx.mem.write_i32(num, n)?)
    })
}

fn no_source(index: i32) -> MpiError {
    t_err(abi::c::MPI_T_ERR_INVALID_INDEX, format!("no event source {index}: the host MPI library has none"))
}

#[allow(clippy::too_many_arguments)]
pub fn source_get_info(
    mut env: FunctionEnvMut<MpiEnv>,
    index: i32,
    name: u32,
    name_len: u32,
    desc: u32,
    desc_len: u32,
    ordering: u32,
    ticks_per_second: u32,
    max_ticks: u32,
    info: u32,
) -> Result<i32, Fatal> {
    tool(&mut env, "MPI_T_source_get_info", |cx| {
        if !sources_on_host() {
            return Err(no_source(index));
        }
        cx.opt_out(ordering, 4)?;
        cx.opt_out(ticks_per_second, 8)?;
        cx.opt_out(max_ticks, 8)?;
        cx.opt_out(info, 4)?;
        let (nroom, droom) = (cx.string_room(name_len)?, cx.string_room(desc_len)?);
        check_index(Kind::Source, index)?;
        let (mut o, mut tps, mut mt) = (0, 0i64, 0i64);
        let mut infos = Vec::new();
        let (n, d) = two_strings(|n, nl, d, dl| {
            let mut i = host_mpi::null_info();
            let rc = unsafe { ffi::MPI_T_source_get_info(index, n, nl, d, dl, &mut o, &mut tps, &mut mt, &mut i.0) };
            if rc == host_mpi::SUCCESS && i != host_mpi::null_info() {
                infos.push(i);
            }
            rc
        })?;
        // the first (length) call's info is not the guest's
        let mut keep = infos.pop();
        for mut i in infos {
            unsafe { ffi::MPI_Info_free(&mut i.0) };
        }
        cx.put_string(name, name_len, nroom, &n)?;
        cx.put_string(desc, desc_len, droom, &d)?;
        cx.put_i32(ordering, to_guest("MPI_T_SOURCE_", o))?;
        cx.put_i64(ticks_per_second, tps)?;
        cx.put_i64(max_ticks, mt)?;
        match keep.take() {
            Some(i) if info != 0 => cx.out_info(info, i),
            Some(mut i) => {
                unsafe { ffi::MPI_Info_free(&mut i.0) };
                Ok(())
            }
            None => cx.put_i32(info, abi::c::MPI_INFO_NULL),
        }
    })
}

#[inline]
pub fn source_get_timestamp(mut env: FunctionEnvMut<MpiEnv>, index: i32, timestamp: u32) -> Result<i32, Fatal> {
    tool(&mut env, "MPI_T_source_get_timestamp", |cx| {
        if !sources_on_host() {
            return Err(no_source(index));
        }
        cx.mem.range(timestamp, 8)?;
        check_index(Kind::Source, index)?;
        let mut t = 0i64;
        host(unsafe { ffi::MPI_T_source_get_timestamp(index, &mut t) })?;
        cx.put_i64(timestamp, t)
    })
}

// ---- events ------------------------------------------------------------------

fn no_event(index: i32) -> MpiError {
    t_err(abi::c::MPI_T_ERR_INVALID_INDEX, format!("no event {index}: the host MPI library has none"))
}

fn no_instance() -> MpiError {
    t_err(abi::c::MPI_T_ERR_INVALID_HANDLE, "no event instance exists: event callbacks are not supported")
}

fn callbacks_refused() -> MpiError {
    t_err(
        abi::c::MPI_T_ERR_NOT_SUPPORTED,
        "event callbacks are not supported: the host MPI calls them from its own threads, where guest code cannot run",
    )
}

impl Ctx<'_> {
    fn registration(&self, handle: i32) -> MpiResult<usize> {
        self.bridge
            .tools
            .events
            .get(handle)
            .map(|e| e.host)
            .ok_or_else(|| t_err(abi::c::MPI_T_ERR_INVALID_HANDLE, format!("invalid MPI_T_event_registration {handle:#x}")))
    }

    /// An info argument of an MPI_T call (MPI_INFO_NULL works before
    /// MPI_Init).
    fn tool_info(&self, handle: i32) -> MpiResult<host_mpi::Info> {
        if handle == abi::c::MPI_INFO_NULL {
            return Ok(host_mpi::null_info());
        }
        self.bridge.infos.get(handle).copied().ok_or_else(|| t_err(abi::c::MPI_T_ERR_INVALID, format!("invalid info handle {handle:#x}")))
    }
}

#[inline]
pub fn event_get_num(mut env: FunctionEnvMut<MpiEnv>, num: u32) -> Result<i32, Fatal> {
    tool(&mut env, "MPI_T_event_get_num", |cx| {
        cx.mem.range(num, 4)?;
        let mut n = 0;
        if events_on_host() {
            host(unsafe { ffi::MPI_T_event_get_num(&mut n) })?;
        }
        Ok(cx.mem.write_i32(num, n)?)
    })
}

#[inline]
pub fn event_get_index(mut env: FunctionEnvMut<MpiEnv>, name: u32, index: u32) -> Result<i32, Fatal> {
    tool(&mut env, "MPI_T_event_get_index", |cx| {
        let name = cx.name_arg(name)?;
        cx.mem.range(index, 4)?;
        if !events_on_host() {
            return Err(t_err(abi::c::MPI_T_ERR_INVALID_NAME, "no such event: the host MPI library has none"));
        }
        let mut i = 0;
        host(unsafe { ffi::MPI_T_event_get_index(name.as_ptr(), &mut i) })?;
        Ok(cx.mem.write_i32(index, i)?)
    })
}

/// The bind kind (host value) of event `index`.
fn event_bind(index: i32) -> MpiResult<i32> {
    check_index(Kind::Event, index)?;
    let (mut v, mut ne, mut en, mut b, mut nl, mut dl) = (0, 0, 0usize, 0, 0, 0);
    let mut i = host_mpi::null_info();
    let null = std::ptr::null_mut();
    host(unsafe { ffi::MPI_T_event_get_info(index, null, &mut nl, &mut v, std::ptr::null_mut(), std::ptr::null_mut(), &mut ne, &mut en, &mut i.0, null, &mut dl, &mut b) })?;
    if i != host_mpi::null_info() {
        unsafe { ffi::MPI_Info_free(&mut i.0) };
    }
    Ok(b)
}

/// `*num_elements` in: the arrays' length; out: the event's element count.
#[allow(clippy::too_many_arguments)]
pub fn event_get_info(
    mut env: FunctionEnvMut<MpiEnv>,
    index: i32,
    name: u32,
    name_len: u32,
    verbosity: u32,
    array_of_datatypes: u32,
    array_of_displacements: u32,
    num_elements: u32,
    enumtype: u32,
    info: u32,
    desc: u32,
    desc_len: u32,
    bind: u32,
) -> Result<i32, Fatal> {
    tool(&mut env, "MPI_T_event_get_info", |cx| {
        if !events_on_host() {
            return Err(no_event(index));
        }
        for p in [verbosity, enumtype, info, bind] {
            cx.opt_out(p, 4)?;
        }
        let (nroom, droom) = (cx.string_room(name_len)?, cx.string_room(desc_len)?);
        check_index(Kind::Event, index)?;
        let room = if num_elements != 0 { cx.mem.read_i32(num_elements)?.max(0) as usize } else { 0 };
        // the element count first, then the arrays in the host's widths
        let (mut v, mut ne, mut en, mut b) = (0, 0, 0usize, 0);
        let mut first = host_mpi::null_info();
        let (mut nl, mut dl) = (0, 0);
        let null = std::ptr::null_mut();
        host(unsafe { ffi::MPI_T_event_get_info(index, null, &mut nl, &mut v, std::ptr::null_mut(), std::ptr::null_mut(), &mut ne, &mut en, &mut first.0, null, &mut dl, &mut b) })?;
        if first != host_mpi::null_info() {
            unsafe { ffi::MPI_Info_free(&mut first.0) };
        }
        let total = ne.max(0) as usize;
        let mut types = host_mpi::HandleVec::from_iter(std::iter::repeat(0).take(total.max(1)));
        let mut displs = vec![0isize; total.max(1)];
        let mut infos = Vec::new();
        let (n, d) = two_strings(|n, nl, d, dl| {
            let (mut i, mut n_in) = (host_mpi::null_info(), total as c_int);
            let rc = unsafe {
                ffi::MPI_T_event_get_info(index, n, nl, &mut v, types.as_mut_ptr(), displs.as_mut_ptr(), &mut n_in, &mut en, &mut i.0, d, dl, &mut b)
            };
            if rc == host_mpi::SUCCESS && i != host_mpi::null_info() {
                infos.push(i);
            }
            rc
        })?;
        // only the last call's info is the guest's
        let mut i = infos.pop().unwrap_or_else(host_mpi::null_info);
        for mut other in infos {
            unsafe { ffi::MPI_Info_free(&mut other.0) };
        }
        let copy = room.min(total);
        if copy > 0 {
            if array_of_datatypes != 0 {
                let t: Vec<u8> = (0..copy).flat_map(|k| guest_type(types.get(k)).to_le_bytes()).collect();
                cx.mem.write_bytes(array_of_datatypes, &t)?;
            }
            if array_of_displacements != 0 {
                let mut out = Vec::with_capacity(4 * copy);
                for &x in &displs[..copy] {
                    let x = i32::try_from(x).map_err(|_| t_err(abi::c::MPI_T_ERR_INVALID, format!("displacement {x} does not fit a wasm32 MPI_Aint")))?;
                    out.extend_from_slice(&x.to_le_bytes());
                }
                cx.mem.write_bytes(array_of_displacements, &out)?;
            }
        }
        cx.put_i32(num_elements, total as i32)?;
        cx.put_string(name, name_len, nroom, &n)?;
        cx.put_string(desc, desc_len, droom, &d)?;
        cx.put_i32(verbosity, to_guest("MPI_T_VERBOSITY_", v))?;
        let e = cx.out_enum(en);
        cx.put_i32(enumtype, e)?;
        cx.put_i32(bind, to_guest("MPI_T_BIND_", b))?;
        if info != 0 {
            cx.out_info(info, i)
        } else {
            if i != host_mpi::null_info() {
                unsafe { ffi::MPI_Info_free(&mut i.0) };
            }
            Ok(())
        }
    })
}

#[inline]
pub fn event_handle_alloc(mut env: FunctionEnvMut<MpiEnv>, index: i32, obj_handle: u32, info: i32, registration: u32) -> Result<i32, Fatal> {
    tool(&mut env, "MPI_T_event_handle_alloc", |cx| {
        if !events_on_host() {
            return Err(no_event(index));
        }
        let i = cx.tool_info(info)?;
        cx.mem.range(registration, 4)?;
        let b = event_bind(index)?;
        let object = cx.bound_object(to_guest("MPI_T_BIND_", b), obj_handle)?;
        let mut r = 0usize;
        let obj = &*object as *const usize as *mut c_void;
        host(unsafe { ffi::MPI_T_event_handle_alloc(index, obj, i.0, &mut r) })?;
        let g = cx.bridge.tools.events.insert(EventEntry { host: r, object });
        Ok(cx.mem.write_i32(registration, g)?)
    })
}

pub(super) unsafe extern "C" fn host_free_cb(_registration: usize, _safety: c_int, _user_data: *mut c_void) {}

/// The host frees the registration with a no-op callback of its own; the
/// guest's `free_cb_function` (if any) then runs in the guest, with
/// MPI_T_CB_REQUIRE_NONE.
#[inline]
pub fn event_handle_free(mut env: FunctionEnvMut<MpiEnv>, registration: i32, user_data: u32, free_cb: u32) -> Result<i32, Fatal> {
    let function = "MPI_T_event_handle_free";
    let mut freed = false;
    let rc = tool(&mut env, function, |cx| {
        let r = cx.registration(registration)?;
        if free_cb != 0 {
            cx.check_callback(free_cb, FREE_CB_PARAMS, 0).map_err(|e| t_err(abi::c::MPI_T_ERR_INVALID, e.into_detail()))?;
        }
        host(unsafe { ffi::MPI_T_event_handle_free(r, std::ptr::null_mut(), host_free_cb as *const c_void) })?;
        cx.bridge.tools.events.remove(registration);
        freed = true;
        Ok(())
    })?;
    if freed && free_cb != 0 {
        let fns = env.data().guest_fns().expect("instantiated: the call ran");
        let args = [registration, abi::c::MPI_T_CB_REQUIRE_NONE, user_data as i32];
        fns.call(&mut env, free_cb, &args).map_err(|e| e.into_fatal(function))?;
    }
    Ok(rc)
}

#[inline]
pub fn event_handle_get_info(mut env: FunctionEnvMut<MpiEnv>, registration: i32, info_used: u32) -> Result<i32, Fatal> {
    tool(&mut env, "MPI_T_event_handle_get_info", |cx| {
        let r = cx.registration(registration)?;
        cx.mem.range(info_used, 4)?;
        let mut i = host_mpi::null_info();
        host(unsafe { ffi::MPI_T_event_handle_get_info(r, &mut i.0) })?;
        cx.out_info(info_used, i)
    })
}

#[inline]
pub fn event_handle_set_info(mut env: FunctionEnvMut<MpiEnv>, registration: i32, info: i32) -> Result<i32, Fatal> {
    tool(&mut env, "MPI_T_event_handle_set_info", |cx| {
        let r = cx.registration(registration)?;
        let i = cx.tool_info(info)?;
        host(unsafe { ffi::MPI_T_event_handle_set_info(r, i.0) })
    })
}

fn cb_safety(value: i32) -> MpiResult<i32> {
    to_host("MPI_T_CB_REQUIRE_", value).ok_or_else(|| t_err(abi::c::MPI_T_ERR_INVALID, format!("invalid callback safety level {value}")))
}

#[inline]
pub fn event_callback_get_info(mut env: FunctionEnvMut<MpiEnv>, registration: i32, safety: i32, info_used: u32) -> Result<i32, Fatal> {
    tool(&mut env, "MPI_T_event_callback_get_info", |cx| {
        let r = cx.registration(registration)?;
        let s = cb_safety(safety)?;
        cx.mem.range(info_used, 4)?;
        let mut i = host_mpi::null_info();
        host(unsafe { ffi::MPI_T_event_callback_get_info(r, s, &mut i.0) })?;
        cx.out_info(info_used, i)
    })
}

#[inline]
pub fn event_callback_set_info(mut env: FunctionEnvMut<MpiEnv>, registration: i32, safety: i32, info: i32) -> Result<i32, Fatal> {
    tool(&mut env, "MPI_T_event_callback_set_info", |cx| {
        let r = cx.registration(registration)?;
        let s = cb_safety(safety)?;
        let i = cx.tool_info(info)?;
        host(unsafe { ffi::MPI_T_event_callback_set_info(r, s, i.0) })
    })
}

#[inline]
pub fn event_register_callback(mut env: FunctionEnvMut<MpiEnv>, registration: i32, safety: i32, info: i32, _user_data: u32, _cb: u32) -> Result<i32, Fatal> {
    tool(&mut env, "MPI_T_event_register_callback", |cx| {
        cx.registration(registration)?;
        cb_safety(safety)?;
        cx.tool_info(info)?;
        Err(callbacks_refused())
    })
}

#[inline]
pub fn event_set_dropped_handler(mut env: FunctionEnvMut<MpiEnv>, registration: i32, _cb: u32) -> Result<i32, Fatal> {
    tool(&mut env, "MPI_T_event_set_dropped_handler", |cx| {
        cx.registration(registration)?;
        Err(callbacks_refused())
    })
}

#[inline]
pub fn event_read(mut env: FunctionEnvMut<MpiEnv>, _instance: i32, _element: i32, _buffer: u32) -> Result<i32, Fatal> {
    tool(&mut env, "MPI_T_event_read", |_| Err(no_instance()))
}

#[inline]
pub fn event_copy(mut env: FunctionEnvMut<MpiEnv>, _instance: i32, _buffer: u32) -> Result<i32, Fatal> {
    tool(&mut env, "MPI_T_event_copy", |_| Err(no_instance()))
}

#[inline]
pub fn event_get_timestamp(mut env: FunctionEnvMut<MpiEnv>, _instance: i32, _timestamp: u32) -> Result<i32, Fatal> {
    tool(&mut env, "MPI_T_event_get_timestamp", |_| Err(no_instance()))
}

#[inline]
pub fn event_get_source(mut env: FunctionEnvMut<MpiEnv>, _instance: i32, _source: u32) -> Result<i32, Fatal> {
    tool(&mut env, "MPI_T_event_get_source", |_| Err(no_instance()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elements_narrow_with_saturation_and_widen_with_sign() {
        let ulong = Elem { guest: 4, host: 8, signed: false };
        let host: Vec<u8> = [7u64, u64::MAX, 1 << 40].iter().flat_map(|v| v.to_ne_bytes()).collect();
        let guest = ulong.to_guest(&host, 3);
        let vals: Vec<u32> = guest.chunks(4).map(|c| u32::from_ne_bytes(c.try_into().unwrap())).collect();
        assert_eq!(vals, [7, u32::MAX, u32::MAX]);
        let back = ulong.to_host(&guest, 3);
        assert_eq!(u64::from_ne_bytes(back[8..16].try_into().unwrap()), u32::MAX as u64);
        let long = Elem { guest: 4, host: 8, signed: true };
        let g = (-5i32).to_ne_bytes();
        assert_eq!(i64::from_ne_bytes(long.to_host(&g, 1).try_into().unwrap()), -5);
        let h = (i64::MIN).to_ne_bytes();
        assert_eq!(i32::from_ne_bytes(long.to_guest(&h, 1).try_into().unwrap()), i32::MIN);
        let same = Elem { guest: 8, host: 8, signed: false };
        assert_eq!(same.to_guest(&host, 2), host[..16].to_vec());
    }

    #[test]
    fn layouts_follow_wasm32() {
        assert_eq!(elem_of("MPI_UNSIGNED_LONG").map(|e| (e.guest, e.host)), Some((4, 8)));
        assert_eq!(elem_of("MPI_COUNT").map(|e| (e.guest, e.host)), Some((8, 8)));
        assert_eq!(elem_of("MPI_INT").map(|e| (e.guest, e.host)), Some((4, 4)));
        assert_eq!(elem_of("MPI_CHAR").map(|e| (e.guest, e.host)), Some((1, 1)));
        assert!(elem_of("MPI_2INT").is_none());
    }
}
