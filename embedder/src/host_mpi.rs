//! The narrow layer over the host MPI library: the only module that calls
//! into it. Everything here speaks host types and host constant values; the
//! bridge (`mpi::*`) translates from and to the guest's standard ABI.
//!
//! Today the library is linked through rsmpi's raw FFI (`mpi::ffi`); to serve
//! OpenMPI and MPICH from one binary this module can load the library with
//! `libloading` instead, without the bridge changing.
use std::{
    collections::HashMap,
    ffi::{c_char, c_int, c_void, CStr},
    sync::OnceLock,
};

/// The host library's C API, for the generated bridge functions
/// (`mpi::generated`), which call it with already-translated arguments.
pub use mpi::ffi;

macro_rules! host_handle {
    ($($name:ident => $ffi:ty),* $(,)?) => {$(
        /// A host handle. OpenMPI's are pointers to library globals, which
        /// are shared by design, so they may move between threads.
        #[derive(Clone, Copy, Debug)]
        #[repr(transparent)]
        pub struct $name(pub $ffi);
        unsafe impl Send for $name {}
        unsafe impl Sync for $name {}
    )*};
}
host_handle!(
    Comm => ffi::MPI_Comm,
    Datatype => ffi::MPI_Datatype,
    Op => ffi::MPI_Op,
    Errhandler => ffi::MPI_Errhandler,
    Request => ffi::MPI_Request,
    Message => ffi::MPI_Message,
    Group => ffi::MPI_Group,
    Info => ffi::MPI_Info,
);

pub type Status = ffi::MPI_Status;

/// The host library's constants, read once from `csrc/host_constants.c`.
pub struct HostConstants {
    pub datatypes: HashMap<&'static str, Datatype>,
    #[allow(dead_code)] // reductions come with the collectives family
    pub ops: HashMap<&'static str, Op>,
    pub ints: HashMap<&'static str, i32>,
    #[allow(dead_code)] // MPI_IN_PLACE / MPI_BOTTOM come with the collectives family
    pub ptrs: HashMap<&'static str, usize>,
    pub status: StatusLayout,
    pub comm_world: Comm,
    pub comm_self: Comm,
    pub errors_return: Errhandler,
}

/// Size and public-field offsets of the host `MPI_Status`.
#[derive(Clone, Copy, Debug)]
pub struct StatusLayout {
    pub size: usize,
    pub source: usize,
    pub tag: usize,
    pub error: usize,
}

#[repr(C)]
struct Named<T> {
    name: *const c_char,
    value: T,
}

extern "C" {
    fn emb_host_datatypes(len: *mut usize) -> *const Named<ffi::MPI_Datatype>;
    fn emb_host_ops(len: *mut usize) -> *const Named<ffi::MPI_Op>;
    fn emb_host_ints(len: *mut usize) -> *const Named<c_int>;
    fn emb_host_ptrs(len: *mut usize) -> *const Named<*mut c_void>;
    fn emb_host_flavor() -> *const c_char;
    fn emb_host_info_env() -> ffi::MPI_Info;
    fn emb_host_weight_sentinels(unweighted: *mut *mut c_int, empty: *mut *mut c_int);
    fn emb_host_status_layout(size: *mut usize, source: *mut usize, tag: *mut usize, error: *mut usize);
}

fn read_table<T: Copy, U>(f: unsafe extern "C" fn(*mut usize) -> *const Named<T>, wrap: impl Fn(T) -> U) -> HashMap<&'static str, U> {
    let mut len = 0;
    let entries = unsafe { std::slice::from_raw_parts(f(&mut len), len) };
    entries
        .iter()
        .map(|e| (unsafe { CStr::from_ptr(e.name) }.to_str().expect("ASCII constant name"), wrap(e.value)))
        .collect()
}

pub fn constants() -> &'static HostConstants {
    static CONSTANTS: OnceLock<HostConstants> = OnceLock::new();
    CONSTANTS.get_or_init(|| {
        check_flavor();
        let mut s = StatusLayout { size: 0, source: 0, tag: 0, error: 0 };
        unsafe { emb_host_status_layout(&mut s.size, &mut s.source, &mut s.tag, &mut s.error) };
        assert_eq!(s.size, std::mem::size_of::<Status>(), "csrc and rsmpi see different mpi.h");
        HostConstants {
            datatypes: read_table(emb_host_datatypes, Datatype),
            ops: read_table(emb_host_ops, Op),
            ints: read_table(emb_host_ints, |v| v),
            ptrs: read_table(emb_host_ptrs, |v| v as usize),
            status: s,
            comm_world: Comm(unsafe { ffi::RSMPI_COMM_WORLD }),
            comm_self: Comm(unsafe { ffi::RSMPI_COMM_SELF }),
            errors_return: Errhandler(unsafe { ffi::RSMPI_ERRORS_RETURN }),
        }
    })
}

/// The constants were compiled against one MPI's header and the library
/// linked may be another's (rsmpi's build script does not notice a changed
/// `MPICC`): refuse to run rather than pass wrong handles.
fn check_flavor() {
    let built = unsafe { CStr::from_ptr(emb_host_flavor()) }.to_string_lossy().into_owned();
    let version = library_version();
    if !built.is_empty() && !version.contains(built.as_str()) {
        crate::say!(
            "embedder: error: built with {built}'s mpi.h but linked to \"{}\"; rebuild with `make build MPI=...`",
            version.lines().next().unwrap_or("")
        );
        std::process::exit(1);
    }
}

/// `MPI_Get_library_version` (callable before MPI_Init).
pub fn library_version() -> String {
    let mut buf = vec![0u8; 8192];
    let mut len = 0;
    unsafe { ffi::MPI_Get_library_version(buf.as_mut_ptr() as *mut c_char, &mut len) };
    buf.truncate(len.clamp(0, 8192) as usize);
    String::from_utf8_lossy(&buf).trim_end_matches('\0').to_string()
}

impl HostConstants {
    pub fn int(&self, name: &str) -> i32 {
        *self.ints.get(name).unwrap_or_else(|| panic!("host constant {name} missing from csrc/host_constants.c"))
    }
}

pub const SUCCESS: i32 = ffi::MPI_SUCCESS as i32;

/// A zeroed status for the host to fill.
pub fn empty_status() -> Status {
    unsafe { std::mem::MaybeUninit::<Status>::zeroed().assume_init() }
}

pub fn null_request() -> Request {
    Request(unsafe { ffi::RSMPI_REQUEST_NULL })
}

pub fn null_message() -> Message {
    Message(unsafe { ffi::RSMPI_MESSAGE_NULL })
}

pub fn message_no_proc() -> Message {
    Message(unsafe { ffi::RSMPI_MESSAGE_NO_PROC })
}

pub fn null_communicator() -> Comm {
    Comm(unsafe { ffi::RSMPI_COMM_NULL })
}

pub fn null_group() -> Group {
    Group(unsafe { ffi::RSMPI_GROUP_NULL })
}

pub fn group_empty() -> Group {
    Group(unsafe { ffi::RSMPI_GROUP_EMPTY })
}

pub fn null_info() -> Info {
    Info(unsafe { ffi::RSMPI_INFO_NULL })
}

pub fn info_env() -> Info {
    Info(unsafe { emb_host_info_env() })
}

/// The host's MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY (addresses).
pub fn weight_sentinels() -> (usize, usize) {
    let (mut unweighted, mut empty) = (std::ptr::null_mut(), std::ptr::null_mut());
    unsafe { emb_host_weight_sentinels(&mut unweighted, &mut empty) };
    (unweighted as usize, empty as usize)
}

pub fn null_datatype() -> Datatype {
    Datatype(unsafe { ffi::RSMPI_DATATYPE_NULL })
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
    contain_truncation();
    unsafe { ffi::MPI_Init(std::ptr::null_mut(), std::ptr::null_mut()) }
}

pub fn init_thread(required: i32, provided: &mut i32) -> i32 {
    contain_truncation();
    unsafe { ffi::MPI_Init_thread(std::ptr::null_mut(), std::ptr::null_mut(), required, provided) }
}

/// Open MPI 4.1's single-copy protocols copy a whole message into a receive
/// buffer that is too small for it and only then report MPI_ERR_TRUNCATE:
/// past a guest's buffer, or past one of Open MPI's own host buffers (a
/// nonblocking collective's scratch), which corrupted the host heap. The
/// copy-in/copy-out protocols check the size first. So before Open MPI
/// reads its parameters, the process's own sends take no RDMA `get`/`put`
/// (btl self) and the node's shared memory no single copy (btl vader): one
/// more copy for large messages on a node, the price of the sandbox. These
/// override the launcher's settings of the same parameters.
fn contain_truncation() {
    if library_version().contains("Open MPI") {
        std::env::set_var("OMPI_MCA_btl_self_flags", "send,inplace");
        std::env::set_var("OMPI_MCA_btl_vader_single_copy_mechanism", "none");
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
    unsafe { ffi::RSMPI_Wtime() }
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
