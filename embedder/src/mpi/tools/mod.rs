//! The MPI tool information interface (MPI_T_*), bridged to the host
//! library's own: control variables (cvars), performance variables (pvars)
//! and their sessions, categories, enumerations, and (MPI-4.0) events and
//! event sources.
//!
//! Errors: MPI_T functions return their code and never call an error
//! handler. Host codes become the ABI's MPI_T_ERR_* / MPI_ERR_* classes by
//! name; what the bridge refuses gets an MPI_T class (a guest pointer
//! outside memory or a string too long: MPI_T_ERR_INVALID; a handle that is
//! not one: MPI_T_ERR_INVALID_HANDLE / _SESSION). Before MPI_T_init_thread
//! (or after the last MPI_T_finalize) every other call returns
//! MPI_T_ERR_NOT_INITIALIZED. The interface works with or without MPI_Init
//! (and after MPI_Finalize), except that binding a variable to an MPI
//! object needs that object, so MPI running.
//!
//! Handles: MPI_T handles are pointers in the standard ABI; the guest gets
//! 32-bit values from tables (MPI_T_*_NULL is 0, MPI_T_PVAR_ALL_HANDLES 1).
//! They die with the interface: when the last MPI_T_finalize returns, the
//! host has freed them, and so are the tables. The same host enumeration
//! always gets the same guest handle.
//!
//! Values: verbosity, binding, scope, variable class, callback safety and
//! source ordering are translated by name between host and ABI values;
//! a variable's datatype becomes the guest's predefined handle of that name.
//! Reading and writing a variable converts each element where the guest
//! and the host differ (`unsigned long`, `long` and `MPI_Aint` are 4 bytes
//! in wasm32, 8 on the host: a wider host value saturates); the number of
//! elements is the handle's count. Strings follow the standard's convention
//! (at most `*len - 1` characters and a NUL; `*len` out: the whole string's
//! length plus one; a zero length or a null buffer returns only the
//! length); a null pointer for any other output skips it.
//!
//! Host faults kept out (each also natively, found by tests/e2e/test_tools.py
//! and the fuzzer): an index is checked against the host's count first
//! (MPICH reads past its pvar table, Open MPI at -1); MPI_T_PVAR_ALL_HANDLES
//! is applied handle by handle, as the standard describes it (MPICH 5's
//! standard-ABI library dereferences its own value 1); a control variable
//! of a component Open MPI has unloaded is refused (`storage_mapped`); the
//! host's interface is never finalized to zero (MPICH 4.0 faults once it is
//! initialized again: the bridge holds one reference of its own, frees the
//! guest's handles at the guest's last MPI_T_finalize, and answers
//! MPI_T_ERR_NOT_INITIALIZED itself); Open MPI 4.1's MPI_T_finalize after
//! MPI_Finalize is not passed on.
//!
//! Events: where the host library has none (Open MPI 4.1 and 5, MPI 3.1's
//! interface) the interface reports none: MPI_T_event_get_num,
//! MPI_T_source_get_num and MPI_T_category_get_num_events answer 0, so no
//! event or source index is valid (MPI_T_ERR_INVALID_INDEX, _INVALID_NAME
//! for a name) and no registration exists. On every host, event callbacks
//! are refused (MPI_T_event_register_callback and
//! MPI_T_event_set_dropped_handler return MPI_T_ERR_NOT_SUPPORTED): the
//! host calls them from its own threads, at any time, where guest code
//! cannot run. So no event instance ever reaches the guest, and the
//! functions taking one return MPI_T_ERR_INVALID_HANDLE. The free callback
//! of MPI_T_event_handle_free runs in the guest once the host has freed the
//! registration (the host gets a no-op of its own).
use std::{
    collections::HashMap,
    ffi::{c_char, c_int, c_void},
    sync::OnceLock,
};

use wasmer::FunctionEnvMut;

use super::{
    call::{call, Ctx},
    errors::{Fatal, MpiError, MpiResult},
    MpiEnv,
};
use crate::{abi, handles::Table, host_mpi, host_mpi::ffi};

mod catalog;
mod events;
mod variables;

pub use catalog::*;
pub use events::*;
pub use variables::*;

/// Longest name the guest may pass (variables, categories, events).
const MAX_NAME: usize = 4096;
/// A host string control variable may be longer than the count its handle
/// has (Open MPI copies it whole, with strcpy): host room beyond the count.
const STRING_SLACK: usize = 1 << 16;
/// `MPI_T_event_free_cb_function(MPI_T_event_registration, MPI_T_cb_safety, void *)`.
const FREE_CB_PARAMS: usize = 3;

/// The element type of a variable, as guest and host lay it out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Elem {
    guest: usize,
    host: usize,
    signed: bool,
}

/// A cvar or pvar handle.
pub struct VarEntry {
    host: usize,
    /// The variable's index (cvars: see `storage_mapped`).
    index: i32,
    elem: Elem,
    count: usize,
    /// The guest pvar session (0 for a cvar handle).
    session: i32,
    /// A pvar that is always active, or cannot be written or reset
    /// (what MPI_T_PVAR_ALL_HANDLES skips).
    continuous: bool,
    readonly: bool,
    /// The host copy of the bound object's handle (the host may keep the
    /// pointer it was given).
    #[allow(dead_code)] // held, never read: it only has to live
    object: Box<usize>,
}

/// An event registration.
pub struct EventEntry {
    host: usize,
    #[allow(dead_code)] // held, never read: it only has to live
    object: Box<usize>,
}

/// The tool interface's state in the bridge.
pub struct Tools {
    /// MPI_T_init_thread calls not yet finalized.
    inits: u32,
    enums: Table<usize>,
    enum_ids: HashMap<usize, i32>,
    cvars: Table<VarEntry>,
    sessions: Table<usize>,
    pvars: Table<VarEntry>,
    events: Table<EventEntry>,
}

impl Default for Tools {
    fn default() -> Self {
        Self {
            inits: 0,
            enums: Table::new(0, 1),
            enum_ids: HashMap::new(),
            cvars: Table::new(0, 1),
            sessions: Table::new(0, 1),
            pvars: Table::new(0, 2),
            events: Table::new(0, 1),
        }
    }
}

// ---- errors and values ---------------------------------------------------

fn t_err(class: i32, detail: impl Into<String>) -> MpiError {
    MpiError::new(class, detail)
}

/// Host return code -> ABI class, by name (MPI_T_ERR_* first: the host
/// functions return those); MPI_SUCCESS included.
fn host_classes() -> &'static HashMap<i32, i32> {
    static MAP: OnceLock<HashMap<i32, i32>> = OnceLock::new();
    MAP.get_or_init(|| {
        let ints = &host_mpi::constants().ints;
        let mut map = HashMap::new();
        let mut names: Vec<_> = ints.keys().copied().collect();
        names.sort_unstable();
        for pass in [true, false] {
            for &n in &names {
                let wanted = if pass { n.starts_with("MPI_T_ERR_") } else { n.starts_with("MPI_ERR_") || n == "MPI_SUCCESS" };
                if wanted && n != "MPI_ERR_LASTCODE" {
                    if let Some(v) = abi::value_of(n) {
                        map.entry(ints[n]).or_insert(v);
                    }
                }
            }
        }
        map
    })
}

/// A host MPI_T return code as a result.
fn host(rc: i32) -> MpiResult {
    if rc == host_mpi::SUCCESS {
        return Ok(());
    }
    let class = match host_classes().get(&rc) {
        Some(&c) => c,
        // an MPI error code, not a class: its class while MPI runs
        None if host_mpi::active() => {
            let class = host_mpi::error_class(rc);
            host_classes().get(&class).copied().unwrap_or(abi::c::MPI_ERR_OTHER)
        }
        None => abi::c::MPI_ERR_OTHER,
    };
    Err(MpiError::shared(class, format!("the host MPI returned {rc} ({})", class_name(class))))
}

fn class_name(class: i32) -> &'static str {
    abi::c::ALL
        .iter()
        .find(|(n, k, v)| *k == "int" && *v == class && (n.starts_with("MPI_T_ERR_") || n.starts_with("MPI_ERR_")))
        .map_or("unknown class", |(n, _, _)| n)
}

/// A host enumeration value (`prefix` names its constants) as the ABI's;
/// a value the host's header does not name passes unchanged.
fn to_guest(prefix: &str, value: i32) -> i32 {
    let ints = &host_mpi::constants().ints;
    ints.iter().find(|(n, &v)| n.starts_with(prefix) && v == value).and_then(|(n, _)| abi::value_of(n)).unwrap_or(value)
}

/// An ABI enumeration value as the host's (None: the host has no such).
fn to_host(prefix: &str, value: i32) -> Option<i32> {
    let ints = &host_mpi::constants().ints;
    abi::c::ALL
        .iter()
        .find(|(n, k, v)| *k == "int" && n.starts_with(prefix) && *v == value)
        .and_then(|(n, _, _)| ints.get(n).copied())
}

/// Predefined datatype names, preferred first where the host gives one
/// handle several names (Open MPI's MPI_LONG_LONG is MPI_LONG_LONG_INT).
const TYPE_NAMES: &[&str] = &[
    "MPI_INT", "MPI_UNSIGNED", "MPI_UNSIGNED_LONG", "MPI_UNSIGNED_LONG_LONG", "MPI_COUNT", "MPI_CHAR", "MPI_DOUBLE",
    "MPI_LONG", "MPI_LONG_LONG", "MPI_FLOAT", "MPI_AINT", "MPI_OFFSET", "MPI_C_BOOL", "MPI_SHORT", "MPI_UNSIGNED_SHORT",
    "MPI_SIGNED_CHAR", "MPI_UNSIGNED_CHAR", "MPI_BYTE", "MPI_INT8_T", "MPI_UINT8_T", "MPI_INT16_T", "MPI_UINT16_T",
    "MPI_INT32_T", "MPI_UINT32_T", "MPI_INT64_T", "MPI_UINT64_T",
];

/// The standard name of a host datatype handle (of those above).
fn type_name(host: usize) -> Option<&'static str> {
    let types = &host_mpi::constants().datatypes;
    TYPE_NAMES.iter().copied().find(|n| types.get(n).is_some_and(|d| d.0 == host))
}

/// The guest's handle for a host datatype (MPI_DATATYPE_NULL: none of ours).
fn guest_type(host: usize) -> i32 {
    type_name(host).and_then(abi::value_of).unwrap_or(abi::c::MPI_DATATYPE_NULL)
}

/// How a variable of the named type is laid out.
fn elem_of(name: &str) -> Option<Elem> {
    let long = std::mem::size_of::<std::ffi::c_long>();
    let e = |guest, host, signed| Elem { guest, host, signed };
    Some(match name {
        "MPI_CHAR" | "MPI_SIGNED_CHAR" | "MPI_INT8_T" => e(1, 1, true),
        "MPI_UNSIGNED_CHAR" | "MPI_BYTE" | "MPI_C_BOOL" | "MPI_UINT8_T" => e(1, 1, false),
        "MPI_SHORT" | "MPI_INT16_T" => e(2, 2, true),
        "MPI_UNSIGNED_SHORT" | "MPI_UINT16_T" => e(2, 2, false),
        "MPI_INT" | "MPI_INT32_T" => e(4, 4, true),
        "MPI_UNSIGNED" | "MPI_UINT32_T" | "MPI_FLOAT" => e(4, 4, false),
        "MPI_LONG" => e(4, long, true),
        "MPI_UNSIGNED_LONG" => e(4, long, false),
        "MPI_AINT" => e(4, std::mem::size_of::<usize>(), true),
        "MPI_LONG_LONG" | "MPI_INT64_T" | "MPI_COUNT" | "MPI_OFFSET" => e(8, 8, true),
        "MPI_UNSIGNED_LONG_LONG" | "MPI_UINT64_T" | "MPI_DOUBLE" => e(8, 8, false),
        _ => return None,
    })
}

impl Elem {
    /// Host elements -> guest elements (`count` of them).
    fn to_guest(self, host: &[u8], count: usize) -> Vec<u8> {
        if self.guest == self.host {
            return host[..count * self.host].to_vec();
        }
        let mut out = Vec::with_capacity(count * self.guest);
        for c in host[..count * self.host].chunks_exact(self.host) {
            let wide = i64::from_ne_bytes(c.try_into().expect("8-byte host element"));
            let v = if self.signed {
                wide.clamp(i32::MIN as i64, i32::MAX as i64) as i32 as u32
            } else {
                (wide as u64).min(u32::MAX as u64) as u32
            };
            out.extend_from_slice(&v.to_ne_bytes());
        }
        out
    }

    /// Guest elements -> host elements.
    fn to_host(self, guest: &[u8], count: usize) -> Vec<u8> {
        if self.guest == self.host {
            return guest[..count * self.guest].to_vec();
        }
        let mut out = Vec::with_capacity(count * self.host);
        for c in guest[..count * self.guest].chunks_exact(self.guest) {
            let narrow = u32::from_ne_bytes(c.try_into().expect("4-byte guest element"));
            let wide = if self.signed { narrow as i32 as i64 } else { narrow as i64 };
            out.extend_from_slice(&wide.to_ne_bytes());
        }
        out
    }
}

// ---- the call wrapper ------------------------------------------------------

/// Runs an MPI_T function body: the guest gets MPI_SUCCESS or the error's
/// class, never through an error handler. The bridge's own refusals of a
/// pointer or string (MPI_ERR_BUFFER, MPI_ERR_ARG) are MPI_T_ERR_INVALID.
fn run(env: &mut FunctionEnvMut<MpiEnv>, function: &'static str, initialized: bool, body: impl FnOnce(&mut Ctx) -> MpiResult) -> Result<i32, Fatal> {
    let mut failed = None;
    call(env, function, abi::c::MPI_COMM_NULL, |cx| {
        if initialized && cx.bridge.tools.inits == 0 {
            failed = Some(t_err(abi::c::MPI_T_ERR_NOT_INITIALIZED, "MPI_T_init_thread has not been called"));
            return Ok(());
        }
        failed = body(cx).err();
        Ok(())
    })?;
    Ok(match failed {
        None => abi::c::MPI_SUCCESS,
        Some(e) if !e.shared && (e.class == abi::c::MPI_ERR_BUFFER || e.class == abi::c::MPI_ERR_ARG) => abi::c::MPI_T_ERR_INVALID,
        Some(e) => e.class,
    })
}

/// `run` for the functions that need MPI_T initialized (all but
/// MPI_T_init_thread and MPI_T_finalize).
fn tool(env: &mut FunctionEnvMut<MpiEnv>, function: &'static str, body: impl FnOnce(&mut Ctx) -> MpiResult) -> Result<i32, Fatal> {
    run(env, function, true, body)
}

// ---- guest memory helpers ------------------------------------------------

impl Ctx<'_> {
    /// Checks an optional int output (0: not wanted).
    fn opt_out(&self, ptr: u32, len: u64) -> MpiResult {
        if ptr != 0 {
            self.mem.range(ptr, len)?;
        }
        Ok(())
    }

    fn put_i32(&self, ptr: u32, v: i32) -> MpiResult {
        if ptr != 0 {
            self.mem.write_i32(ptr, v)?;
        }
        Ok(())
    }

    fn put_i64(&self, ptr: u32, v: i64) -> MpiResult {
        if ptr != 0 {
            self.mem.write_bytes(ptr, &v.to_le_bytes())?;
        }
        Ok(())
    }

    /// Checks a string output's length argument (read before the host call).
    fn string_room(&self, len: u32) -> MpiResult<Option<i32>> {
        if len == 0 {
            return Ok(None);
        }
        let n = self.mem.read_i32(len)?;
        if n < 0 {
            return Err(t_err(abi::c::MPI_T_ERR_INVALID, format!("negative string length {n}")));
        }
        Ok(Some(n))
    }

    /// Writes a string as MPI_T returns strings (see the module comment);
    /// one the host has none of is empty, with length 0, as the host says.
    fn put_string(&self, buf: u32, len: u32, room: Option<i32>, s: &HostString) -> MpiResult {
        let Some(room) = room else { return Ok(()) };
        let text = s.as_deref().unwrap_or_default();
        if room > 0 && buf != 0 {
            let mut out = text[..text.len().min(room as usize - 1)].to_vec();
            out.push(0);
            self.mem.write_bytes(buf, &out)?;
        }
        Ok(self.mem.write_i32(len, s.as_ref().map_or(0, |t| t.len() as i32 + 1))?)
    }

    fn name_arg(&self, ptr: u32) -> MpiResult<std::ffi::CString> {
        self.cstr(ptr, MAX_NAME)
    }

    /// A guest MPI_T_enum for a host one (the same host enumeration gets the
    /// same handle).
    fn out_enum(&mut self, host: usize) -> i32 {
        if host == 0 {
            return abi::c::MPI_T_ENUM_NULL;
        }
        let t = &mut self.bridge.tools;
        if let Some(&h) = t.enum_ids.get(&host) {
            return h;
        }
        let h = t.enums.insert(host);
        t.enum_ids.insert(host, h);
        h
    }

    fn enum_arg(&self, handle: i32) -> MpiResult<usize> {
        self.bridge
            .tools
            .enums
            .get(handle)
            .copied()
            .ok_or_else(|| t_err(abi::c::MPI_T_ERR_INVALID_HANDLE, format!("invalid MPI_T_enum {handle:#x}")))
    }

    fn pvar_session(&self, handle: i32) -> MpiResult<usize> {
        self.bridge
            .tools
            .sessions
            .get(handle)
            .copied()
            .ok_or_else(|| t_err(abi::c::MPI_T_ERR_INVALID_SESSION, format!("invalid MPI_T_pvar_session {handle:#x}")))
    }

    /// A pvar handle of `session` (MPI_T_PVAR_ALL_HANDLES only if `all`).
    fn pvar(&self, session: i32, handle: i32, all: bool) -> MpiResult<Option<&VarEntry>> {
        self.pvar_session(session)?;
        if all && handle == abi::c::MPI_T_PVAR_ALL_HANDLES {
            return Ok(None);
        }
        match self.bridge.tools.pvars.get(handle) {
            Some(e) if e.session == session => Ok(Some(e)),
            Some(_) => Err(t_err(abi::c::MPI_T_ERR_INVALID_HANDLE, format!("MPI_T_pvar_handle {handle:#x} belongs to another session"))),
            None => Err(t_err(abi::c::MPI_T_ERR_INVALID_HANDLE, format!("invalid MPI_T_pvar_handle {handle:#x}"))),
        }
    }

    /// The host copy of the object a variable or event binds to (`bind`,
    /// the ABI's kind), from the guest handle at `ptr`.
    fn bound_object(&self, bind: i32, ptr: u32) -> MpiResult<Box<usize>> {
        use abi::c::*;
        if bind == MPI_T_BIND_NO_OBJECT {
            return Ok(Box::new(0));
        }
        let h = self.mem.read_i32(ptr)?;
        let bad = |what: &str| t_err(MPI_T_ERR_INVALID_HANDLE, format!("obj_handle: {h:#x} is not a valid {what}"));
        let host = match bind {
            MPI_T_BIND_MPI_COMM => self.comm(h).map_err(|_| bad("communicator"))?.host.0,
            MPI_T_BIND_MPI_DATATYPE => self.datatype(h).map_err(|_| bad("datatype"))?.host.0,
            MPI_T_BIND_MPI_GROUP => self.group(h).map_err(|_| bad("group"))?.0,
            MPI_T_BIND_MPI_OP => self.op(h).map_err(|_| bad("operation"))?.0,
            MPI_T_BIND_MPI_INFO => self.info(h).map_err(|_| bad("info"))?.0,
            MPI_T_BIND_MPI_REQUEST => self.request(h).map_err(|_| bad("request"))?.0,
            MPI_T_BIND_MPI_FILE => self.file(h).map_err(|_| bad("file"))?.0,
            MPI_T_BIND_MPI_MESSAGE => self.bridge.messages.get(h).ok_or_else(|| bad("message"))?.0,
            MPI_T_BIND_MPI_SESSION => self.bridge.sessions.get(h).ok_or_else(|| bad("session"))?.host.0,
            _ => {
                return Err(t_err(MPI_T_ERR_NOT_SUPPORTED, format!("variables bound to objects of kind {bind} (windows, error handlers) are not supported")))
            }
        };
        Ok(Box::new(host))
    }
}

/// A string the host returned; `None`: it has none (it said length 0,
/// as Open MPI does for a variable without a description).
type HostString = Option<Vec<u8>>;

/// Calls a host query with two string outputs twice: for the lengths, then
/// with room for the whole strings. Returns them without their NULs.
fn two_strings(mut f: impl FnMut(*mut c_char, *mut c_int, *mut c_char, *mut c_int) -> i32) -> MpiResult<(HostString, HostString)> {
    let (mut a, mut b) = (0, 0);
    host(f(std::ptr::null_mut(), &mut a, std::ptr::null_mut(), &mut b))?;
    let mut sa = vec![0u8; a.max(1) as usize + 1];
    let mut sb = vec![0u8; b.max(1) as usize + 1];
    let (mut la, mut lb) = (sa.len() as c_int, sb.len() as c_int);
    host(f(sa.as_mut_ptr() as *mut c_char, &mut la, sb.as_mut_ptr() as *mut c_char, &mut lb))?;
    let cut = |mut s: Vec<u8>, len: c_int| {
        s.truncate(s.iter().position(|&c| c == 0).unwrap_or(s.len()));
        (len > 0).then_some(s)
    };
    Ok((cut(sa, a), cut(sb, b)))
}

/// What an index names.
#[derive(Clone, Copy)]
enum Kind {
    Cvar,
    Pvar,
    Category,
    Event,
    Source,
}

/// An index must be one the host lists: MPICH 4.0 and 5 read past their
/// tables for an index just past the last pvar (a fault, natively too).
fn check_index(kind: Kind, index: i32) -> MpiResult {
    let mut n = 0;
    host(unsafe {
        match kind {
            Kind::Cvar => ffi::MPI_T_cvar_get_num(&mut n),
            Kind::Pvar => ffi::MPI_T_pvar_get_num(&mut n),
            Kind::Category => ffi::MPI_T_category_get_num(&mut n),
            Kind::Event => ffi::MPI_T_event_get_num(&mut n),
            Kind::Source => ffi::MPI_T_source_get_num(&mut n),
        }
    })?;
    if !(0..n).contains(&index) {
        return Err(t_err(abi::c::MPI_T_ERR_INVALID_INDEX, format!("index {index} is not one of the host's {n}")));
    }
    Ok(())
}

fn events_on_host() -> bool {
    host_mpi::library::functions().MPI_T_event_get_num.is_some()
}

fn sources_on_host() -> bool {
    host_mpi::library::functions().MPI_T_source_get_num.is_some()
}

// ---- setup ---------------------------------------------------------------

#[inline]
pub fn init_thread(mut env: FunctionEnvMut<MpiEnv>, required: i32, provided: u32) -> Result<i32, Fatal> {
    run(&mut env, "MPI_T_init_thread", false, |cx| {
        const LEVELS: [&str; 4] = ["MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED", "MPI_THREAD_SERIALIZED", "MPI_THREAD_MULTIPLE"];
        let consts = host_mpi::constants();
        let level = LEVELS.iter().find(|n| abi::value_of(n) == Some(required));
        let Some(level) = level else {
            return Err(t_err(abi::c::MPI_T_ERR_INVALID, format!("invalid thread level {required}")));
        };
        cx.mem.range(provided, 4)?;
        let mut p = 0;
        host(host_mpi::t_init_thread(consts.int(level), &mut p))?;
        static HELD: OnceLock<()> = OnceLock::new();
        if HELD.get().is_none() {
            // the bridge's own reference, never released (see `finalize`)
            let mut q = 0;
            host(host_mpi::t_init_thread(consts.int(level), &mut q))?;
            let _ = HELD.set(());
        }
        cx.bridge.tools.inits += 1;
        let p = LEVELS.iter().find(|n| consts.int(n) == p).and_then(|n| abi::value_of(n)).unwrap_or(abi::c::MPI_THREAD_SINGLE);
        Ok(cx.mem.write_i32(provided, p)?)
    })
}

#[inline]
pub fn finalize(mut env: FunctionEnvMut<MpiEnv>) -> Result<i32, Fatal> {
    tool(&mut env, "MPI_T_finalize", |cx| {
        // Open MPI 4.1 (the family's release without sessions) faults in
        // MPI_T_finalize once MPI_Finalize has run (natively too): its
        // interface is torn down already
        let lib = host_mpi::library::loaded();
        let open_mpi_4 = lib.family == host_mpi::Family::OpenMpi && lib.functions.MPI_Session_init.is_none();
        let torn_down = open_mpi_4 && host_mpi::finalized();
        if cx.bridge.tools.inits == 1 && !torn_down {
            // the guest's last: its handles go, as the host's would (the
            // host's interface stays up on the bridge's reference: MPICH
            // 4.0 faults in MPI_T_pvar_get_num once it has been finalized
            // and initialized again, natively too)
            free_all(&cx.bridge.tools);
        }
        if !torn_down {
            host(unsafe { ffi::MPI_T_finalize() })?;
        }
        let t = &mut cx.bridge.tools;
        t.inits -= 1;
        if t.inits == 0 {
            *t = Tools::default();
        }
        Ok(())
    })
}

/// Frees every host handle the guest holds (best effort: the guest's
/// handles are gone either way).
fn free_all(t: &Tools) {
    for h in t.cvars.user_handles() {
        let mut x = t.cvars.get(h).expect("listed").host;
        unsafe { ffi::MPI_T_cvar_handle_free(&mut x) };
    }
    // a session's handles go with it
    for h in t.sessions.user_handles() {
        let mut x = *t.sessions.get(h).expect("listed");
        unsafe { ffi::MPI_T_pvar_session_free(&mut x) };
    }
    for h in t.events.user_handles() {
        let x = t.events.get(h).expect("listed").host;
        unsafe { ffi::MPI_T_event_handle_free(x, std::ptr::null_mut(), events::host_free_cb as *const c_void) };
    }
}
