//! MPI-4.0 sessions: MPI_Session_* , process sets, communicators made from
//! groups (MPI_Comm_create_from_group, MPI_Intercomm_create_from_groups),
//! session error handlers, MPI_Info_create_env, and MPI-4.1's session
//! buffers and MPI_Get_hw_resource_info.
//!
//! A session is a guest handle (`Bridge::sessions`, MPI_SESSION_NULL the
//! ABI's) for a host session. Sessions work with or without MPI_Init: the
//! first MPI_Session_init (or MPI_Init) builds the bridge's tables of
//! predefined objects, and MPI may be called while the world model runs or
//! a session is open (`Bridge::ready`); MPI_COMM_WORLD and MPI_COMM_SELF
//! exist only between MPI_Init and MPI_Finalize.
//!
//! Errors: the host session and communicators made here use the host's
//! MPI_ERRORS_RETURN, and the bridge applies the guest's handler, as for
//! communicators: a call on a valid session raises the error on the
//! session's handler (the one MPI_Session_init was given, or set later);
//! MPI_Session_init and the two group constructors raise theirs on their
//! errhandler argument; without a valid handle, on MPI_COMM_WORLD's handler
//! while MPI_Init has run, else MPI_ERRORS_ARE_FATAL (the initial handler).
//!
//! The host library may lack all of it (Open MPI 4.1): a call then fails
//! with MPI_ERR_UNSUPPORTED_OPERATION and a message naming the function.
//! MPI_Info_create_env is the embedder's own, the same on every host (see
//! `info_create_env`).
use std::ffi::{c_char, CString};

use wasmer::FunctionEnvMut;

use super::{
    attached::{self, Scope},
    call::{call, Ctx},
    errhandler::{self, ErrhandlerEntry},
    errors::{Fatal, FatalKind, MpiError, MpiResult},
    state::{Bridge, CommEntry, ErrorMode},
    MpiEnv,
};
use crate::{abi, host_mpi, host_mpi::ffi};

/// `MPI_Session_errhandler_function(MPI_Session *, int *, ...)`.
const HANDLER_PARAMS: usize = 3;
/// Longest pset name and stringtag, without the NUL (the ABI's maxima
/// count it).
const MAX_PSET: usize = abi::c::MPI_MAX_PSET_NAME_LEN as usize - 1;
const MAX_STRINGTAG: usize = abi::c::MPI_MAX_STRINGTAG_LEN as usize - 1;

pub struct SessionEntry {
    pub host: host_mpi::Session,
    /// The guest error handler (a handle in `Bridge::errhandlers`).
    pub errhandler: i32,
}

/// Where an error of a call goes.
#[derive(Clone, Copy)]
enum On {
    /// The session's handler (if the handle is valid).
    Session(i32),
    /// An errhandler argument (if valid), with the handle its guest
    /// handler gets (MPI_SESSION_NULL, MPI_COMM_NULL: none exists yet).
    Handler(i32, i32),
    /// No handle: MPI_COMM_WORLD's handler, or the initial one.
    Nothing,
}

impl Bridge {
    fn no_handle_errors(&self) -> (ErrorMode, i32) {
        if self.world {
            (self.comm_errors(abi::c::MPI_COMM_WORLD), abi::c::MPI_COMM_WORLD)
        } else {
            (ErrorMode::Fatal, abi::c::MPI_COMM_NULL)
        }
    }

    fn errors_on(&self, on: On) -> (ErrorMode, i32) {
        let mode = |h: i32| self.errhandlers.get(h).map(|e| e.mode);
        match on {
            On::Session(s) => match self.sessions.get(s).and_then(|e| mode(e.errhandler)) {
                Some(m) => (m, s),
                None => self.no_handle_errors(),
            },
            On::Handler(h, object) => match mode(h) {
                Some(m) => (m, object),
                None => self.no_handle_errors(),
            },
            On::Nothing => self.no_handle_errors(),
        }
    }
}

/// `call::call` with the error raised as `on` says.
fn run(env: &mut FunctionEnvMut<MpiEnv>, function: &'static str, on: On, body: impl FnOnce(&mut Ctx) -> MpiResult) -> Result<i32, Fatal> {
    let mut failed = None;
    call(env, function, abi::c::MPI_COMM_NULL, |cx| {
        failed = body(cx).err();
        Ok(())
    })?;
    let Some(e) = failed else { return Ok(abi::c::MPI_SUCCESS) };
    let (mode, object) = env.data().bridge.errors_on(on);
    match mode {
        ErrorMode::Return => Ok(e.class),
        ErrorMode::Fatal => Err(FatalKind::Mpi { function, class: e.class, detail: e.into_detail() }.into()),
        ErrorMode::User(index) => {
            let fns = env.data().guest_fns().expect("instantiated: the call ran");
            errhandler::invoke(env, &fns, function, index, object, e.class)?;
            Ok(e.class)
        }
    }
}

impl Ctx<'_> {
    /// MPI_Init has run and MPI_Finalize has not (MPI_Finalize needs it;
    /// an open session is not enough).
    pub fn require_world(&self) -> MpiResult {
        if self.bridge.world {
            Ok(())
        } else {
            Err(self.bridge.not_running())
        }
    }

    fn session(&self, handle: i32) -> MpiResult<host_mpi::Session> {
        self.bridge
            .sessions
            .get(handle)
            .map(|s| s.host)
            .ok_or_else(|| MpiError::new(abi::c::MPI_ERR_SESSION, format!("invalid session handle {handle:#x}")))
    }

    /// A host return code before the bridge's tables exist (a failed first
    /// MPI_Session_init): the host is not running, so its error functions
    /// are not asked; an error class is known by its value.
    fn host_early(&self, rc: i32) -> MpiResult {
        if self.bridge.tables || rc == host_mpi::SUCCESS {
            return self.host(rc);
        }
        let host = host_mpi::constants();
        let class = host
            .ints
            .iter()
            .find(|(n, &v)| n.starts_with("MPI_ERR_") && **n != "MPI_ERR_LASTCODE" && v == rc)
            .and_then(|(n, _)| abi::value_of(n))
            .unwrap_or(abi::c::MPI_ERR_OTHER);
        Err(MpiError::shared(class, format!("host MPI error {rc}")))
    }

    /// A guest info handle where MPI may not run yet (MPI_Session_init):
    /// MPI_INFO_NULL, or an info made while it ran.
    fn info_early(&self, handle: i32) -> MpiResult<host_mpi::Info> {
        if handle == abi::c::MPI_INFO_NULL {
            return Ok(host_mpi::null_info());
        }
        self.bridge
            .infos
            .get(handle)
            .copied()
            .ok_or_else(|| MpiError::new(abi::c::MPI_ERR_INFO, format!("invalid info handle {handle:#x}")))
    }

    /// A pset name argument, which must be one the session lists: MPICH
    /// 4.0 aborts the process on another, whatever the error handler.
    fn pset_name(&self, s: host_mpi::Session, ptr: u32) -> MpiResult<CString> {
        let name = self.cstr(ptr, MAX_PSET)?;
        let null = host_mpi::null_info();
        let mut count = 0;
        self.host(unsafe { ffi::MPI_Session_get_num_psets(s.0, null.0, &mut count) })?;
        for n in 0..count {
            if nth_pset(self, s, null, n)? == name.as_bytes() {
                return Ok(name);
            }
        }
        Err(MpiError::new(abi::c::MPI_ERR_ARG, format!("the session has no process set {name:?}")))
    }

    /// A new guest communicator for a host one made with errhandler `eh`
    /// (MPI_COMM_NULL stays null).
    fn out_new_comm(&mut self, ptr: u32, host: host_mpi::Comm, eh: i32) -> MpiResult {
        let handle = if host.0 == host_mpi::null_communicator().0 {
            abi::c::MPI_COMM_NULL
        } else {
            self.bridge.retain_errhandler(eh);
            self.bridge.comms.insert(CommEntry::new(host, eh))
        };
        Ok(self.mem.write_i32(ptr, handle)?)
    }
}

#[inline]
pub fn session_init(mut env: FunctionEnvMut<MpiEnv>, info: i32, errhandler: i32, session: u32) -> Result<i32, Fatal> {
    let on = On::Handler(errhandler, abi::c::MPI_SESSION_NULL);
    run(&mut env, "MPI_Session_init", on, |cx| {
        let i = cx.info_early(info)?;
        cx.bridge.errhandler(errhandler)?;
        cx.mem.range(session, 4)?;
        // (a narrow-handle host writes the low half of the zeroed slot)
        let null = host_mpi::null_session();
        let mut s = null.unwrap_or(host_mpi::Session(0));
        let eh = host_mpi::constants().errors_return;
        cx.host_early(host_mpi::session_init(i, eh, &mut s))?;
        if null.is_none_or(|n| n == s) {
            return Err(MpiError::shared(abi::c::MPI_ERR_SESSION, "the host MPI returned no session"));
        }
        cx.bridge.build_tables();
        cx.bridge.ready = true;
        cx.bridge.retain_errhandler(errhandler);
        let h = cx.bridge.sessions.insert(SessionEntry { host: s, errhandler });
        cx.mem.write_i32(session, h)?;
        // MPI_INFO_ENV describes the job, which the session now knows
        super::info::publish_environment(cx)
    })
}

#[inline]
pub fn session_finalize(mut env: FunctionEnvMut<MpiEnv>, session: u32) -> Result<i32, Fatal> {
    let mut handle = abi::c::MPI_SESSION_NULL;
    let on = |h| On::Session(h);
    // the handle is read first, so that errors go to its session's handler
    let rc = run(&mut env, "MPI_Session_finalize", On::Nothing, |cx| {
        handle = cx.mem.read_i32(session)?;
        Ok(())
    })?;
    if rc != abi::c::MPI_SUCCESS {
        return Ok(rc);
    }
    run(&mut env, "MPI_Session_finalize", on(handle), |cx| {
        let mut s = cx.session(handle)?;
        // as at MPI_Finalize: the host frees the communicators the guest freed
        super::request::complete_pending_idups(cx)?;
        super::comm::finish_closing(cx);
        attached::finish_flushes(cx, Scope::Session(handle))?;
        let _ = std::io::Write::flush(&mut std::io::stdout());
        cx.host(unsafe { ffi::MPI_Session_finalize(&mut s.0) })?;
        if let Some(entry) = cx.bridge.sessions.remove(handle) {
            cx.bridge.release_errhandler(entry.errhandler);
        }
        // the host detached the session's buffer when it finalized it
        cx.bridge.attached.remove(&Scope::Session(handle));
        if !cx.bridge.world && cx.bridge.sessions.user_handles().next().is_none() {
            // MPI is down on the host: what it still held went with it
            cx.bridge.ready = false;
            cx.bridge.closing.clear();
            cx.bridge.sessions_ended = true;
        }
        Ok(cx.mem.write_i32(session, abi::c::MPI_SESSION_NULL)?)
    })
}

#[inline]
pub fn session_get_info(mut env: FunctionEnvMut<MpiEnv>, session: i32, info_used: u32) -> Result<i32, Fatal> {
    run(&mut env, "MPI_Session_get_info", On::Session(session), |cx| {
        let s = cx.session(session)?;
        cx.mem.range(info_used, 4)?;
        let mut i = host_mpi::null_info();
        cx.host(unsafe { ffi::MPI_Session_get_info(s.0, &mut i.0) })?;
        cx.out_info(info_used, i)
    })
}

#[inline]
pub fn session_get_num_psets(mut env: FunctionEnvMut<MpiEnv>, session: i32, info: i32, npset_names: u32) -> Result<i32, Fatal> {
    run(&mut env, "MPI_Session_get_num_psets", On::Session(session), |cx| {
        let s = cx.session(session)?;
        let i = cx.info(info)?;
        cx.mem.range(npset_names, 4)?;
        let mut n = 0;
        cx.host(unsafe { ffi::MPI_Session_get_num_psets(s.0, i.0, &mut n) })?;
        Ok(cx.mem.write_i32(npset_names, n)?)
    })
}

/// The name of pset `n` (the host's whole name, its size asked first).
fn nth_pset(cx: &Ctx, s: host_mpi::Session, i: host_mpi::Info, n: i32) -> MpiResult<Vec<u8>> {
    let mut count = 0;
    cx.host(unsafe { ffi::MPI_Session_get_num_psets(s.0, i.0, &mut count) })?;
    if !(0..count).contains(&n) {
        return Err(MpiError::new(abi::c::MPI_ERR_ARG, format!("pset index {n} is not one of the session's {count}")));
    }
    let mut len = 0;
    cx.host(unsafe { ffi::MPI_Session_get_nth_pset(s.0, i.0, n, &mut len, std::ptr::null_mut()) })?;
    let mut buf = vec![0u8; len.max(1) as usize + 1];
    let mut room = len.max(1);
    cx.host(unsafe { ffi::MPI_Session_get_nth_pset(s.0, i.0, n, &mut room, buf.as_mut_ptr() as *mut c_char) })?;
    buf.truncate(buf.iter().position(|&b| b == 0).unwrap_or(buf.len()));
    Ok(buf)
}

/// `*pset_len` in: the buffer's size (0: only the size is asked); out: the
/// size the whole name needs, NUL included. A name longer than the buffer
/// is cut, and always NUL-terminated.
#[inline]
pub fn session_get_nth_pset(mut env: FunctionEnvMut<MpiEnv>, session: i32, info: i32, n: i32, pset_len: u32, pset_name: u32) -> Result<i32, Fatal> {
    run(&mut env, "MPI_Session_get_nth_pset", On::Session(session), |cx| {
        let s = cx.session(session)?;
        let i = cx.info(info)?;
        let room = cx.mem.read_i32(pset_len)?;
        if room < 0 {
            return Err(MpiError::new(abi::c::MPI_ERR_ARG, format!("negative pset_len {room}")));
        }
        let name = nth_pset(cx, s, i, n)?;
        if room > 0 {
            let mut out = name[..name.len().min(room as usize - 1)].to_vec();
            out.push(0);
            cx.mem.write_bytes(pset_name, &out)?;
        }
        Ok(cx.mem.write_i32(pset_len, name.len() as i32 + 1)?)
    })
}

#[inline]
pub fn session_get_pset_info(mut env: FunctionEnvMut<MpiEnv>, session: i32, pset_name: u32, info: u32) -> Result<i32, Fatal> {
    run(&mut env, "MPI_Session_get_pset_info", On::Session(session), |cx| {
        let s = cx.session(session)?;
        let name = cx.pset_name(s, pset_name)?;
        cx.mem.range(info, 4)?;
        let mut i = host_mpi::null_info();
        cx.host(unsafe { ffi::MPI_Session_get_pset_info(s.0, name.as_ptr(), &mut i.0) })?;
        cx.out_info(info, i)
    })
}

#[inline]
pub fn group_from_session_pset(mut env: FunctionEnvMut<MpiEnv>, session: i32, pset_name: u32, newgroup: u32) -> Result<i32, Fatal> {
    run(&mut env, "MPI_Group_from_session_pset", On::Session(session), |cx| {
        let s = cx.session(session)?;
        let name = cx.pset_name(s, pset_name)?;
        cx.mem.range(newgroup, 4)?;
        let mut g = host_mpi::null_group();
        cx.host(unsafe { ffi::MPI_Group_from_session_pset(s.0, name.as_ptr(), &mut g.0) })?;
        cx.out_group(newgroup, g)
    })
}

/// The new communicator gets the guest's `errhandler` (the host's has
/// MPI_ERRORS_RETURN, as every host communicator); errors of the call go
/// to it too.
#[inline]
pub fn comm_create_from_group(mut env: FunctionEnvMut<MpiEnv>, group: i32, stringtag: u32, info: i32, errhandler: i32, newcomm: u32) -> Result<i32, Fatal> {
    let on = On::Handler(errhandler, abi::c::MPI_COMM_NULL);
    run(&mut env, "MPI_Comm_create_from_group", on, |cx| {
        let g = cx.group(group)?;
        let tag = cx.cstr(stringtag, MAX_STRINGTAG)?;
        let i = cx.info(info)?;
        cx.bridge.errhandler(errhandler)?;
        cx.mem.range(newcomm, 4)?;
        let mut c = host_mpi::null_communicator();
        let eh = host_mpi::constants().errors_return;
        cx.host(unsafe { ffi::MPI_Comm_create_from_group(g.0, tag.as_ptr(), i.0, eh.0, &mut c.0) })?;
        cx.out_new_comm(newcomm, c, errhandler)
    })
}

#[allow(clippy::too_many_arguments)]
pub fn intercomm_create_from_groups(
    mut env: FunctionEnvMut<MpiEnv>,
    local_group: i32,
    local_leader: i32,
    remote_group: i32,
    remote_leader: i32,
    stringtag: u32,
    info: i32,
    errhandler: i32,
    newintercomm: u32,
) -> Result<i32, Fatal> {
    let on = On::Handler(errhandler, abi::c::MPI_COMM_NULL);
    run(&mut env, "MPI_Intercomm_create_from_groups", on, |cx| {
        let (lg, rg) = (cx.group(local_group)?, cx.group(remote_group)?);
        // leaders are ranks of their groups (not every host checks)
        for (g, leader, which) in [(lg, local_leader, "local"), (rg, remote_leader, "remote")] {
            let mut size = 0;
            cx.host(unsafe { ffi::MPI_Group_size(g.0, &mut size) })?;
            if !(0..size).contains(&leader) {
                return Err(MpiError::new(abi::c::MPI_ERR_RANK, format!("{which} leader {leader} is not a rank of the {which} group of {size}")));
            }
        }
        cx.check_disjoint_groups(lg, rg)?;
        let tag = cx.cstr(stringtag, MAX_STRINGTAG)?;
        let i = cx.info(info)?;
        cx.bridge.errhandler(errhandler)?;
        cx.mem.range(newintercomm, 4)?;
        let mut c = host_mpi::null_communicator();
        let eh = host_mpi::constants().errors_return;
        let rc = unsafe { ffi::MPI_Intercomm_create_from_groups(lg.0, local_leader, rg.0, remote_leader, tag.as_ptr(), i.0, eh.0, &mut c.0) };
        cx.host(rc)?;
        cx.out_new_comm(newintercomm, c, errhandler)
    })
}

impl Ctx<'_> {
    /// MPI_Intercomm_create_from_groups: this process is in the local
    /// group, and no process is in both (MPI-4.1 7.6.2). Open MPI 5 and
    /// MPICH 5 crash on a process in both, natively too.
    fn check_disjoint_groups(&self, local: host_mpi::Group, remote: host_mpi::Group) -> MpiResult {
        let (mut me, mut shared) = (0, 0);
        let mut both = host_mpi::null_group();
        self.host(unsafe { ffi::MPI_Group_rank(local.0, &mut me) })?;
        self.host(unsafe { ffi::MPI_Group_intersection(local.0, remote.0, &mut both.0) })?;
        let size = self.host(unsafe { ffi::MPI_Group_size(both.0, &mut shared) });
        unsafe { ffi::MPI_Group_free(&mut both.0) };
        size?;
        if me == self.undefined() {
            return Err(MpiError::new(abi::c::MPI_ERR_GROUP, "this process is not in the local group"));
        }
        if shared > 0 {
            return Err(MpiError::new(abi::c::MPI_ERR_GROUP, format!("{shared} processes are in both the local and the remote group")));
        }
        Ok(())
    }
}

#[inline]
pub fn session_create_errhandler(mut env: FunctionEnvMut<MpiEnv>, function: u32, errhandler: u32) -> Result<i32, Fatal> {
    run(&mut env, "MPI_Session_create_errhandler", On::Nothing, |cx| {
        cx.mem.range(errhandler, 4)?;
        cx.check_callback(function, HANDLER_PARAMS, 0)?;
        let h = cx.bridge.errhandlers.insert(ErrhandlerEntry::user(function));
        Ok(cx.mem.write_i32(errhandler, h)?)
    })
}

#[inline]
pub fn session_set_errhandler(mut env: FunctionEnvMut<MpiEnv>, session: i32, errhandler: i32) -> Result<i32, Fatal> {
    run(&mut env, "MPI_Session_set_errhandler", On::Session(session), |cx| {
        cx.session(session)?;
        cx.bridge.errhandler(errhandler)?;
        cx.bridge.retain_errhandler(errhandler);
        let s = cx.bridge.sessions.get_mut(session).expect("checked above");
        let old = std::mem::replace(&mut s.errhandler, errhandler);
        cx.bridge.release_errhandler(old);
        Ok(())
    })
}

/// A new reference to the session's handler (freed with MPI_Errhandler_free).
#[inline]
pub fn session_get_errhandler(mut env: FunctionEnvMut<MpiEnv>, session: i32, errhandler: u32) -> Result<i32, Fatal> {
    run(&mut env, "MPI_Session_get_errhandler", On::Session(session), |cx| {
        cx.session(session)?;
        let h = cx.bridge.sessions.get(session).expect("checked above").errhandler;
        cx.mem.range(errhandler, 4)?;
        cx.bridge.retain_errhandler(h);
        Ok(cx.mem.write_i32(errhandler, h)?)
    })
}

/// Runs the session's handler for `errorcode`; MPI_SUCCESS once it returns.
#[inline]
pub fn session_call_errhandler(mut env: FunctionEnvMut<MpiEnv>, session: i32, errorcode: i32) -> Result<i32, Fatal> {
    let mut valid = false;
    let rc = run(&mut env, "MPI_Session_call_errhandler", On::Session(session), |cx| {
        cx.session(session)?;
        valid = true;
        if cx.bridge.user_errors.class_of(errorcode).is_none() {
            return Ok(()); // not an error code: nothing to report
        }
        Err(MpiError::new(errorcode, format!("error code {errorcode} raised by the program")))
    })?;
    Ok(if valid { abi::c::MPI_SUCCESS } else { rc })
}

/// MPI-4.0's MPI_Info_create_env, made by the embedder on every host (Open
/// MPI 4.1 has none, and a host's own would describe the embedder's
/// process): the keys `info::environment` gives for these arguments.
#[inline]
pub fn info_create_env(mut env: FunctionEnvMut<MpiEnv>, argc: i32, argv: u32, info: u32) -> Result<i32, Fatal> {
    run(&mut env, "MPI_Info_create_env", On::Nothing, |cx| {
        cx.require_running()?;
        if argc < 0 {
            return Err(MpiError::new(abi::c::MPI_ERR_ARG, format!("negative argc {argc}")));
        }
        cx.mem.range(info, 4)?;
        let mut args = Vec::new();
        if argv != 0 {
            // the whole array lies in memory; the "argv" value keeps
            // MPI_MAX_INFO_VAL bytes of the arguments after the command, so
            // those past them are not read (a fuzzed argc of 2^31 - 1 read
            // strings for minutes)
            cx.mem.range(argv, argc as u64 * 4)?;
            let mut joined = 0;
            for k in 0..argc as u32 {
                let p = cx.mem.read_i32(argv + 4 * k)? as u32;
                let arg = cx.cstr(p, super::info::MAX_VAL - 1)?.into_bytes();
                joined += if k == 0 { 0 } else { arg.len() + 1 };
                args.push(arg);
                if joined > super::info::MAX_VAL {
                    break;
                }
            }
        }
        let i = super::info::environment(cx, &args)?;
        cx.out_info(info, i)
    })
}

/// MPI-4.1 (the host's, where it has it).
#[inline]
pub fn get_hw_resource_info(mut env: FunctionEnvMut<MpiEnv>, hw_info: u32) -> Result<i32, Fatal> {
    run(&mut env, "MPI_Get_hw_resource_info", On::Nothing, |cx| {
        cx.require_running()?;
        cx.mem.range(hw_info, 4)?;
        let mut i = host_mpi::null_info();
        cx.host(unsafe { ffi::MPI_Get_hw_resource_info(&mut i.0) })?;
        cx.out_info(hw_info, i)
    })
}

// ---- MPI-4.1 session buffers (`attached.rs`, as the process's) ----

fn attach_session(env: &mut FunctionEnvMut<MpiEnv>, function: &'static str, session: i32, buffer: u32, size: i64, count_size: bool) -> Result<i32, Fatal> {
    run(env, function, On::Session(session), |cx| {
        let s = cx.session(session)?.0;
        attached::attach(cx, Scope::Session(session), buffer, size, |b, n| unsafe {
            if count_size {
                ffi::MPI_Session_attach_buffer_c(s, b, n)
            } else {
                ffi::MPI_Session_attach_buffer(s, b, n as i32)
            }
        })
    })
}

fn detach_session(env: &mut FunctionEnvMut<MpiEnv>, function: &'static str, session: i32, buffer_addr: u32, size: u32, count_size: bool) -> Result<i32, Fatal> {
    run(env, function, On::Session(session), |cx| {
        let s = cx.session(session)?.0;
        let mut addr: *mut std::ffi::c_void = std::ptr::null_mut();
        let (mut n, mut n_c) = (0i32, 0i64);
        attached::detach(cx, Scope::Session(session), buffer_addr, size, count_size, |large| unsafe {
            if large || count_size {
                ffi::MPI_Session_detach_buffer_c(s, &mut addr as *mut _ as *mut _, &mut n_c)
            } else {
                ffi::MPI_Session_detach_buffer(s, &mut addr as *mut _ as *mut _, &mut n)
            }
        })
    })
}

#[inline]
pub fn session_attach_buffer(mut env: FunctionEnvMut<MpiEnv>, session: i32, buffer: u32, size: i32) -> Result<i32, Fatal> {
    attach_session(&mut env, "MPI_Session_attach_buffer", session, buffer, size as i64, false)
}

#[inline]
pub fn session_attach_buffer_c(mut env: FunctionEnvMut<MpiEnv>, session: i32, buffer: u32, size: i64) -> Result<i32, Fatal> {
    attach_session(&mut env, "MPI_Session_attach_buffer_c", session, buffer, size, true)
}

#[inline]
pub fn session_detach_buffer(mut env: FunctionEnvMut<MpiEnv>, session: i32, buffer_addr: u32, size: u32) -> Result<i32, Fatal> {
    detach_session(&mut env, "MPI_Session_detach_buffer", session, buffer_addr, size, false)
}

#[inline]
pub fn session_detach_buffer_c(mut env: FunctionEnvMut<MpiEnv>, session: i32, buffer_addr: u32, size: u32) -> Result<i32, Fatal> {
    detach_session(&mut env, "MPI_Session_detach_buffer_c", session, buffer_addr, size, true)
}

#[inline]
pub fn session_flush_buffer(mut env: FunctionEnvMut<MpiEnv>, session: i32) -> Result<i32, Fatal> {
    run(&mut env, "MPI_Session_flush_buffer", On::Session(session), |cx| {
        let s = cx.session(session)?;
        cx.host(unsafe { ffi::MPI_Session_flush_buffer(s.0) })
    })
}

#[inline]
pub fn session_iflush_buffer(mut env: FunctionEnvMut<MpiEnv>, session: i32, request: u32) -> Result<i32, Fatal> {
    run(&mut env, "MPI_Session_iflush_buffer", On::Session(session), |cx| {
        let s = cx.session(session)?;
        cx.mem.range(request, 4)?;
        let mut r = host_mpi::null_request();
        cx.host(unsafe { ffi::MPI_Session_iflush_buffer(s.0, &mut r.0) })?;
        cx.out_request_marked(request, r, |x| x.session = Some(session))
    })
}
