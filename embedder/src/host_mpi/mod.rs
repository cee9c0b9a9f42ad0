//! The narrow layer over the host MPI library: the only module that calls
//! into it. Everything here speaks host types and host constant values; the
//! bridge (`mpi::*`) translates from and to the guest's standard ABI.
//!
//! The library is chosen and loaded at run time (`library`), its functions
//! are called through one generated table (`functions`, `ffi::MPI_*`), and
//! its constants come from its family's profile (`profile`). Building the
//! embedder needs no MPI headers and links no MPI.
mod functions;
pub mod library;
mod profile;
mod types;

use std::{
    collections::HashMap,
    ffi::{c_char, c_int, c_void},
    sync::OnceLock,
};

pub use functions::ffi;
pub use library::Family;
pub use types::{read_handle, status_in, HandleArray, HandleVec, StatusVec, MAX_STATUS};

macro_rules! host_handle {
    ($($name:ident),* $(,)?) => {$(
        /// A host handle (pointer-sized whatever the library; see `types`).
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        #[repr(transparent)]
        pub struct $name(pub types::Handle);
    )*};
}
host_handle!(Comm, Datatype, Op, Errhandler, Request, Message, Group, Info, File, Session, Win);

pub type Status = types::MPI_Status;

/// The host library's constants, resolved once for the loaded library.
pub struct HostConstants {
    pub datatypes: HashMap<&'static str, Datatype>,
    pub ops: HashMap<&'static str, Op>,
    pub ints: HashMap<&'static str, i32>,
    pub ptrs: HashMap<&'static str, usize>,
    pub status: StatusLayout,
    pub comm_world: Comm,
    pub comm_self: Comm,
    pub errors_return: Errhandler,
    comm_null: Comm,
    request_null: Request,
    message_null: Message,
    message_no_proc: Message,
    group_null: Group,
    group_empty: Group,
    info_null: Info,
    info_env: Info,
    datatype_null: Datatype,
    file_null: File,
    win_null: Win,
    /// None where the library has no sessions (Open MPI 4).
    session_null: Option<Session>,
}

/// Size and public-field offsets of the host `MPI_Status`.
#[derive(Clone, Copy, Debug)]
pub struct StatusLayout {
    pub size: usize,
    pub source: usize,
    pub tag: usize,
    pub error: usize,
}

pub fn constants() -> &'static HostConstants {
    static CONSTANTS: OnceLock<HostConstants> = OnceLock::new();
    CONSTANTS.get_or_init(|| {
        let lib = library::loaded();
        read_constants(lib).unwrap_or_else(|e| {
            crate::say!("embedder: error: {e}");
            std::process::exit(1)
        })
    })
}

fn read_constants(lib: &library::Loaded) -> Result<HostConstants, String> {
    let p = profile::read(lib)?;
    let h = |name: &str| p.handle(name);
    Ok(HostConstants {
        datatypes: p.of_kind("datatype").map(|(n, v)| (n, Datatype(v as usize))).collect(),
        ops: p.of_kind("op").map(|(n, v)| (n, Op(v as usize))).collect(),
        ints: p.of_kind("int").map(|(n, v)| (n, v as i32)).collect(),
        ptrs: p.of_kind("ptr").map(|(n, v)| (n, v as usize)).collect(),
        status: p.status,
        comm_world: Comm(h("MPI_COMM_WORLD")?),
        comm_self: Comm(h("MPI_COMM_SELF")?),
        errors_return: Errhandler(h("MPI_ERRORS_RETURN")?),
        comm_null: Comm(h("MPI_COMM_NULL")?),
        request_null: Request(h("MPI_REQUEST_NULL")?),
        message_null: Message(h("MPI_MESSAGE_NULL")?),
        message_no_proc: Message(h("MPI_MESSAGE_NO_PROC")?),
        group_null: Group(h("MPI_GROUP_NULL")?),
        group_empty: Group(h("MPI_GROUP_EMPTY")?),
        info_null: Info(h("MPI_INFO_NULL")?),
        info_env: Info(h("MPI_INFO_ENV")?),
        datatype_null: Datatype(p.get("datatype", "MPI_DATATYPE_NULL").ok_or("MPI_DATATYPE_NULL missing")? as usize),
        file_null: File(h("MPI_FILE_NULL")?),
        win_null: Win(h("MPI_WIN_NULL")?),
        session_null: p.get("handle", "MPI_SESSION_NULL").map(|v| Session(v as types::Handle)),
    })
}

/// What `embedder inspect --mpi` prints: the library that would serve
/// here, its family, and why it was chosen.
pub fn describe() -> Result<String, String> {
    let l = library::try_loaded()?;
    let c = read_constants(l)?;
    let provided = l.functions.provided().len();
    Ok(format!(
        "library\t{}\nfamily\t{}\nversion\t{}\nchosen\t{}\nstatus\t{} bytes\nhandles\t{} bytes\nfunctions\t{provided} of the standard's {} found in the library\n",
        l.path,
        l.family,
        l.version_line(),
        l.reason,
        c.status.size,
        library::handle_width(),
        functions::Functions::default().len(),
    ))
}

/// The names of the functions the host library provides (for the
/// inventory), or why no library could be loaded.
pub fn host_functions() -> Result<std::collections::HashSet<&'static str>, String> {
    Ok(library::try_loaded()?.functions.provided().into_iter().collect())
}

/// `MPI_Get_library_version` (callable before MPI_Init).
pub fn library_version() -> String {
    library::loaded().version.clone()
}

/// Whether the host library is MPICH underneath (with its own ABI or the
/// MPI-5 standard ABI's): where the bridge steps around MPICH's bugs.
pub fn is_mpich() -> bool {
    library::loaded().mpich
}

impl HostConstants {
    pub fn int(&self, name: &str) -> i32 {
        *self.ints.get(name).unwrap_or_else(|| panic!("host constant {name} missing from the host ABI profile"))
    }
}

pub const SUCCESS: i32 = 0;

/// A zeroed status for the host to fill.
pub fn empty_status() -> Status {
    Status::zeroed()
}

pub fn null_request() -> Request {
    constants().request_null
}

pub fn null_message() -> Message {
    constants().message_null
}

pub fn message_no_proc() -> Message {
    constants().message_no_proc
}

pub fn null_communicator() -> Comm {
    constants().comm_null
}

pub fn null_group() -> Group {
    constants().group_null
}

pub fn group_empty() -> Group {
    constants().group_empty
}

pub fn null_info() -> Info {
    constants().info_null
}

pub fn info_env() -> Info {
    constants().info_env
}

pub fn null_file() -> File {
    constants().file_null
}

pub fn null_win() -> Win {
    constants().win_null
}

/// The host's MPI_SESSION_NULL (None: the library has no sessions).
pub fn null_session() -> Option<Session> {
    constants().session_null
}

/// The host's MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY (addresses).
pub fn weight_sentinels() -> (usize, usize) {
    let c = constants();
    (c.ptrs["MPI_UNWEIGHTED"], c.ptrs["MPI_WEIGHTS_EMPTY"])
}

pub fn null_datatype() -> Datatype {
    constants().datatype_null
}

pub fn null_op() -> Op {
    constants().ops["MPI_OP_NULL"]
}

/// The integer a host attribute (MPI_TAG_UB, ...) points at, if set.
pub fn comm_attr_int(comm: Comm, keyval: i32) -> Option<i32> {
    let (mut value, mut flag): (*mut c_int, c_int) = (std::ptr::null_mut(), 0);
    let rc = unsafe { ffi::MPI_Comm_get_attr(comm.0, keyval, &mut value as *mut _ as *mut c_void, &mut flag) };
    (rc == SUCCESS && flag != 0 && !value.is_null()).then(|| unsafe { *value })
}

pub fn is_null_request(r: Request) -> bool {
    r.0 == null_request().0
}

// ---- environment ----

pub fn init() -> i32 {
    before_library_init();
    unsafe { ffi::MPI_Init(std::ptr::null_mut(), std::ptr::null_mut()) }
}

pub fn init_thread(required: i32, provided: &mut i32) -> i32 {
    before_library_init();
    unsafe { ffi::MPI_Init_thread(std::ptr::null_mut(), std::ptr::null_mut(), required, provided) }
}

/// MPI_Session_init: like MPI_Init, the first session reads Open MPI's
/// parameters, so the containment below is set first.
pub fn session_init(info: Info, errhandler: Errhandler, session: &mut Session) -> i32 {
    before_library_init();
    unsafe { ffi::MPI_Session_init(info.0, errhandler.0, &mut session.0) }
}

/// MPI_T_init_thread: Open MPI reads its parameters there if it comes
/// before MPI_Init, so the containment below is set first.
pub fn t_init_thread(required: i32, provided: &mut i32) -> i32 {
    before_library_init();
    unsafe { ffi::MPI_T_init_thread(required, provided) }
}

/// Environment the library reads when it initializes (every way in: Init,
/// Init_thread, Session_init, T_init_thread).
fn before_library_init() {
    contain_truncation();
    keep_fault_reports();
}

/// Open MPI's single-copy protocols copy a whole message into a receive
/// buffer that is too small for it and only then report MPI_ERR_TRUNCATE:
/// past a guest's buffer, or past one of Open MPI's own host buffers (a
/// nonblocking collective's scratch), which corrupted the host heap. The
/// copy-in/copy-out protocols check the size first. So before Open MPI
/// reads its parameters, the process's own sends take no RDMA `get`/`put`
/// (btl self) and the node's shared memory no single copy (4.x: btl vader's
/// mechanism; 5.x: the smsc components, CMA here, XPMEM and KNEM on some
/// clusters — a truncated receive from a peer wrote past the guest's buffer
/// on Open MPI 5): one more copy for large messages on a node, the price of
/// the sandbox, made smaller by sizing the copy protocol for it
/// (`COPY_PROTOCOL`). The containment overrides the launcher's settings of
/// the same parameters; the sizes leave them be.
fn contain_truncation() {
    let lib = library::loaded();
    if lib.family == Family::OpenMpi {
        std::env::set_var("OMPI_MCA_btl_self_flags", "send,inplace");
        std::env::set_var("OMPI_MCA_btl_vader_single_copy_mechanism", "none");
        std::env::set_var("OMPI_MCA_smsc", "^cma,xpmem,knem");
        size_copy_protocol(shared_memory_btl(lib.version_line()));
        // Open MPI 4.1's treematch topology component livelocked in
        // ompi_comm_nextcid inside MPI_Dist_graph_create in about one 8-rank
        // run in ten under the embedder (never natively): its MPI_Comm_free
        // keeps a freed communicator until an MPI_Ibarrier agreement
        // completes (`mpi::comm::close`). The basic component takes
        // `reorder` as the hint the standard allows it to be. A launcher's or
        // user's own choice stands.
        if std::env::var_os("OMPI_MCA_topo").is_none() {
            std::env::set_var("OMPI_MCA_topo", "^treematch");
        }
    }
}

/// The copy-in/copy-out protocol's sizes in Open MPI's shared-memory BTL,
/// which carries every message on a node once `contain_truncation` turned
/// single copy off. Its defaults suit single copy, which takes every message
/// past the 4 KiB eager limit after a handshake: without it, a 4–32 KiB
/// message still waits for the receiver's acknowledgement, and the rest of
/// a larger one moves in 32 KiB fragments, each copied in and out. Open MPI
/// itself uses a 32 KiB eager limit where its single copy needs no
/// handshake (XPMEM); 32 KiB is also the part of every larger message sent
/// ahead of matching already (`rndv_eager_limit`), so no more data waits
/// unmatched at a receiver than before, and truncation is reported at every
/// size (`hostile_p2p.c`). Fragments of 128 KiB: Open MPI 4.1 tells its
/// fragment lists apart by size, so this must differ from the eager limit.
/// IMB-style, native with these settings against native with the
/// containment alone (README, "Compared with native"): over 11 benchmarks
/// and 24 sizes on 2 processes, 1.23 → 1.14 of the time with single copy
/// (Open MPI 4.1), 1.24 → 1.16 (5.0). btl self keeps its sizes: a larger
/// eager limit there was as fast again for a rank's messages to itself, but
/// Open MPI's eager self path does not report truncation (up to 1 KiB
/// natively too), so it would have hidden `MPI_ERR_TRUNCATE` up to 32 KiB.
pub const COPY_PROTOCOL: [(&str, &str); 2] = [("eager_limit", "32768"), ("max_send_size", "131072")];

/// The shared-memory BTL's name in the parameters: `vader` up to Open MPI
/// 4.x, `sm` from 5.0 (which still reads `vader` as an alias). `version` is
/// the library's version line ("Open MPI v4.1.4, package: ...").
fn shared_memory_btl(version: &str) -> &'static str {
    let major = version.split_once(" v").and_then(|(_, v)| v.split('.').next()?.parse::<u32>().ok());
    if major.is_some_and(|m| m >= 5) { "sm" } else { "vader" }
}

/// Sets `COPY_PROTOCOL` for the shared-memory BTL (named `btl`), each
/// parameter unless the launcher or the user set it (by either name).
fn size_copy_protocol(btl: &str) {
    for (name, value) in COPY_PROTOCOL {
        let set = |b: &str| std::env::var_os(format!("OMPI_MCA_btl_{b}_{name}")).is_some();
        if !set("vader") && !set("sm") {
            std::env::set_var(format!("OMPI_MCA_btl_{btl}_{name}"), value);
        }
    }
}

/// Why the host library cannot make windows over guest memory, if it
/// cannot: Open MPI 4's one-sided component (osc rdma) needs the
/// single-copy and self-RDMA transports that `contain_truncation` turns
/// off, and no setting of Open MPI 4.1 gives both windows and contained
/// truncated receives (docs/security.md). Open MPI 5 and MPICH serve.
pub fn windows_unavailable() -> Option<&'static str> {
    let lib = library::loaded();
    (lib.family == Family::OpenMpi && lib.version_line().contains("v4.")).then_some(
        "Open MPI 4's one-sided communication needs the single-copy transports the embedder turns off to contain \
         truncated receives (see docs/security.md); run on Open MPI 5 or an MPICH-family library for windows",
    )
}

/// Open MPI loads UCX (`pml ucx`, the InfiniBand path) as a plugin at
/// MPI_Init, after the engine installed its fault handlers, and UCX then
/// installs its own SIGSEGV/SIGBUS handlers: a guest's out-of-bounds access,
/// which the engine turns into a trap, first reached UCX, which printed
/// "Caught signal 11" and a backtrace that reads like a host crash. Not for
/// MPICH: it links UCX itself, whose settings were read when the library was
/// loaded (before the engine's handlers, so they never see a guest fault
/// first), and UCX would warn on stdout that the variable went unused. A
/// user's own UCX_ERROR_SIGNALS stands.
fn keep_fault_reports() {
    if library::loaded().family == Family::OpenMpi && std::env::var_os("UCX_ERROR_SIGNALS").is_none() {
        std::env::set_var("UCX_ERROR_SIGNALS", "");
    }
}

/// Open MPI's shared-file-pointer component `lockedfile` probes every file
/// opened, read-only too, by creating and unlinking `<file>.locktest.<rank>`
/// beside it: in a read-only preopen, a write (and a removal) whose name the
/// guest chooses. With a read-only preopen it is left out, before Open MPI
/// reads its parameters; shared file pointers then use the `sm` component
/// (one node) or `individual`.
pub fn spare_read_only_dirs() {
    if library::loaded().family == Family::OpenMpi {
        std::env::set_var("OMPI_MCA_sharedfp", "^lockedfile");
    }
}

pub fn finalize() -> i32 {
    unsafe { ffi::MPI_Finalize() }
}

pub fn initialized() -> bool {
    let mut flag = 0;
    unsafe { ffi::MPI_Initialized(&mut flag) };
    flag != 0
}

pub fn finalized() -> bool {
    let mut flag = 0;
    unsafe { ffi::MPI_Finalized(&mut flag) };
    flag != 0
}

/// True between MPI_Init and MPI_Finalize, when MPI calls are allowed.
pub fn active() -> bool {
    initialized() && !finalized()
}

pub fn abort(comm: Comm, code: i32) -> ! {
    // Give the launcher time to forward what this process just wrote: MPICH's
    // Hydra can kill the job before it has read the failing rank's stderr.
    std::thread::sleep(std::time::Duration::from_millis(100));
    unsafe { ffi::MPI_Abort(comm.0, code) };
    // MPI_Abort does not return on either MPI; make sure of it.
    std::process::exit(if code == 0 { 1 } else { code & 0xff })
}

pub fn wtime() -> f64 {
    unsafe { ffi::MPI_Wtime() }
}

pub fn processor_name() -> (i32, Vec<u8>) {
    let mut buf = vec![0u8; constants().int("MPI_MAX_PROCESSOR_NAME") as usize + 1];
    let mut len = 0;
    let rc = unsafe { ffi::MPI_Get_processor_name(buf.as_mut_ptr() as *mut c_char, &mut len) };
    buf.truncate(len.max(0) as usize);
    (rc, buf)
}

pub fn error_class(code: i32) -> i32 {
    let mut class = 0;
    if unsafe { ffi::MPI_Error_class(code, &mut class) } != SUCCESS {
        return constants().int("MPI_ERR_UNKNOWN");
    }
    class
}

pub fn error_string(code: i32) -> String {
    let mut buf = vec![0u8; constants().int("MPI_MAX_ERROR_STRING") as usize + 1];
    let mut len = 0;
    if unsafe { ffi::MPI_Error_string(code, buf.as_mut_ptr() as *mut c_char, &mut len) } != SUCCESS {
        return format!("host MPI error {code}");
    }
    buf.truncate(len.max(0) as usize);
    String::from_utf8_lossy(&buf).into_owned()
}

pub fn comm_set_errhandler(comm: Comm, eh: Errhandler) -> i32 {
    unsafe { ffi::MPI_Comm_set_errhandler(comm.0, eh.0) }
}

// ---- datatypes ----

/// (lower bound, extent) of a host datatype.
pub fn type_true_extent(dt: Datatype) -> Result<(i64, i64), i32> {
    let (mut lb, mut extent) = (0, 0);
    match unsafe { ffi::MPI_Type_get_true_extent(dt.0, &mut lb, &mut extent) } {
        SUCCESS => Ok((lb as i64, extent as i64)),
        rc => Err(rc),
    }
}

pub fn type_size(dt: Datatype) -> Result<i64, i32> {
    let mut size: ffi::MPI_Count = 0;
    match unsafe { ffi::MPI_Type_size_x(dt.0, &mut size) } {
        SUCCESS => Ok(size as i64),
        rc => Err(rc),
    }
}

pub fn type_extent(dt: Datatype) -> Result<(i64, i64), i32> {
    let (mut lb, mut extent) = (0, 0);
    match unsafe { ffi::MPI_Type_get_extent(dt.0, &mut lb, &mut extent) } {
        SUCCESS => Ok((lb as i64, extent as i64)),
        rc => Err(rc),
    }
}

// ---- communicators ----

pub fn comm_rank(comm: Comm, rank: &mut i32) -> i32 {
    unsafe { ffi::MPI_Comm_rank(comm.0, rank) }
}

pub fn comm_size(comm: Comm, size: &mut i32) -> i32 {
    unsafe { ffi::MPI_Comm_size(comm.0, size) }
}

pub fn comm_remote_size(comm: Comm, size: &mut i32) -> i32 {
    unsafe { ffi::MPI_Comm_remote_size(comm.0, size) }
}

pub fn comm_test_inter(comm: Comm, flag: &mut i32) -> i32 {
    unsafe { ffi::MPI_Comm_test_inter(comm.0, flag) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shared_memory_btl_is_named_by_the_open_mpi_version() {
        assert_eq!(shared_memory_btl("Open MPI v4.1.4, package: Debian OpenMPI, ident: 4.1.4, repo rev: v4.1.4"), "vader");
        assert_eq!(shared_memory_btl("Open MPI v3.1.3, package: ..."), "vader");
        assert_eq!(shared_memory_btl("Open MPI v5.0.11, package: Open MPI Distribution"), "sm");
        assert_eq!(shared_memory_btl("Open MPI v6.0.0"), "sm");
        assert_eq!(shared_memory_btl("something else"), "vader");
    }

    #[test]
    fn the_copy_protocol_sizes_leave_a_launchers_choice_be() {
        // the process environment is shared by the tests: no other test
        // touches these names
        let var = |btl: &str, name: &str| std::env::var(format!("OMPI_MCA_btl_{btl}_{name}")).ok();
        let clear = || {
            for (name, _) in COPY_PROTOCOL {
                for btl in ["vader", "sm"] {
                    std::env::remove_var(format!("OMPI_MCA_btl_{btl}_{name}"));
                }
            }
        };
        clear();
        std::env::set_var("OMPI_MCA_btl_sm_eager_limit", "8192");
        size_copy_protocol("vader");
        assert_eq!(var("vader", "eager_limit"), None, "set by its other name");
        assert_eq!(var("vader", "max_send_size").as_deref(), Some("131072"));
        std::env::set_var("OMPI_MCA_btl_vader_max_send_size", "65536");
        size_copy_protocol("vader");
        assert_eq!(var("vader", "max_send_size").as_deref(), Some("65536"));
        assert_eq!(var("sm", "eager_limit").as_deref(), Some("8192"));
        clear();
        size_copy_protocol("sm");
        assert_eq!((var("sm", "eager_limit").as_deref(), var("vader", "eager_limit")), (Some("32768"), None));
        clear();
    }
}
