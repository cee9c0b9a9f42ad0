//! The MPI bridge: guest `env.MPI_*` imports implemented on the host MPI.
//!
//! Each family lives in its own file and every function is listed once, in
//! `functions!` below, which derives registration and the inventory that
//! `embedder inspect --provided` prints. Imports the module has but the
//! embedder does not implement still link (so the module instantiates) and
//! end the job with a clear message if called.

mod coll;
mod comm;
mod context;
mod datatype;
mod environment;
mod errors;
mod generated;
mod group;
mod info;
mod request;
mod status;
mod topo;

use wasmer::{Function, FunctionEnv, FunctionType, Imports, Memory, RuntimeError, Store};

pub use context::Bridge;
pub use errors::Fatal;

/// State behind every MPI host function of one instance.
pub struct MpiEnv {
    memory: Option<Memory>,
    /// The memory's base (fixed: static memory) and the largest size seen.
    base: *mut u8,
    known_size: u64,
    /// The guest's exported allocator, for MPI_Alloc_mem/MPI_Free_mem.
    malloc: Option<Function>,
    free: Option<Function>,
    bridge: Bridge,
}

// Safety: `base` points into the instance's linear memory, which lives as
// long as the store that owns this environment; each rank runs its guest on
// one thread.
unsafe impl Send for MpiEnv {}

impl MpiEnv {
    pub fn new() -> Self {
        Self { memory: None, base: std::ptr::null_mut(), known_size: 0, malloc: None, free: None, bridge: Bridge::new() }
    }

    /// Connects the bridge to the instance's memory and allocator.
    pub fn attach(&mut self, memory: Memory, base: *mut u8, malloc: Option<Function>, free: Option<Function>) {
        self.memory = Some(memory);
        self.base = base;
        self.malloc = malloc;
        self.free = free;
    }

    fn guest_malloc(&self) -> Option<Function> {
        self.malloc.clone()
    }

    fn guest_free(&self) -> Option<Function> {
        self.free.clone()
    }
}

/// A constructor of the host function for one MPI import.
pub type Maker = fn(&mut Store, &FunctionEnv<MpiEnv>) -> Function;

macro_rules! functions {
    ($($name:literal => $f:path),* $(,)?) => {
        /// The functions written by hand (semantics beyond their parameters).
        const HAND_WRITTEN: &[(&str, Maker)] = &[
            $(($name, |s, e| Function::new_typed_with_env(s, e, $f)),)*
        ];
    };
}

functions! {
    "MPI_Init" => environment::init,
    "MPI_Init_thread" => environment::init_thread,
    "MPI_Finalize" => environment::finalize,
    "MPI_Initialized" => environment::initialized,
    "MPI_Finalized" => environment::finalized,
    "MPI_Abort" => environment::abort,
    "MPI_Wtime" => environment::wtime,
    "MPI_Get_processor_name" => environment::get_processor_name,
    "MPI_Get_version" => environment::get_version,
    "MPI_Get_library_version" => environment::get_library_version,
    "MPI_Wtick" => environment::wtick,
    "MPI_Error_class" => environment::error_class,
    "MPI_Error_string" => environment::error_string,
    "MPI_Pcontrol" => environment::pcontrol,
    "MPI_Query_thread" => environment::query_thread,
    "MPI_Is_thread_main" => environment::is_thread_main,
    "MPI_Buffer_attach" => environment::buffer_attach,
    "MPI_Buffer_detach" => environment::buffer_detach,
    "MPI_Comm_rank" => comm::rank,
    "MPI_Comm_set_errhandler" => comm::set_errhandler,
    "MPI_Comm_free" => comm::free,
    "MPI_Comm_idup" => comm::idup,
    "MPI_Comm_set_name" => comm::set_name,
    "MPI_Comm_get_name" => comm::get_name,
    "MPI_Group_free" => group::free,
    "MPI_Info_create" => info::create,
    "MPI_Info_dup" => info::dup,
    "MPI_Info_free" => info::free,
    "MPI_Info_set" => info::set,
    "MPI_Info_get" => info::get,
    "MPI_Info_delete" => info::delete,
    "MPI_Info_get_valuelen" => info::get_valuelen,
    "MPI_Info_get_nkeys" => info::get_nkeys,
    "MPI_Info_get_nthkey" => info::get_nthkey,
    "MPI_Alltoallw" => coll::alltoallw,
    "MPI_Ialltoallw" => coll::ialltoallw,
    "MPI_Alloc_mem" => environment::alloc_mem,
    "MPI_Free_mem" => environment::free_mem,
    "MPI_Group_translate_ranks" => group::translate_ranks,
    "MPI_Comm_get_errhandler" => comm::get_errhandler,
    "MPI_Wait" => request::wait,
    "MPI_Test" => request::test,
    "MPI_Waitall" => request::waitall,
    "MPI_Testall" => request::testall,
    "MPI_Waitany" => request::waitany,
    "MPI_Testany" => request::testany,
    "MPI_Waitsome" => request::waitsome,
    "MPI_Testsome" => request::testsome,
    "MPI_Request_free" => request::request_free,
    "MPI_Request_get_status" => request::request_get_status,
    "MPI_Start" => request::start,
    "MPI_Startall" => request::startall,
    "MPI_Neighbor_alltoallw" => topo::neighbor_alltoallw,
    "MPI_Ineighbor_alltoallw" => topo::ineighbor_alltoallw,
}

fn all() -> impl Iterator<Item = &'static (&'static str, Maker)> {
    HAND_WRITTEN.iter().chain(generated::FUNCTIONS)
}

/// Every MPI function the embedder implements, sorted.
pub fn provided() -> Vec<&'static str> {
    let mut names: Vec<_> = all().map(|(n, _)| *n).collect();
    names.sort_unstable();
    names
}

/// Defines every implemented function in `imports` under `env`, also under
/// its profiling name (PMPI_*).
pub fn register(store: &mut Store, env: &FunctionEnv<MpiEnv>, imports: &mut Imports) {
    for (name, make) in all() {
        imports.define("env", name, make(store, env));
        imports.define("env", &format!("P{name}"), make(store, env));
    }
}

/// True for imports that name an MPI function (and so get a stub if absent).
pub fn is_mpi_import(module: &str, name: &str) -> bool {
    module == "env" && (name.starts_with("MPI_") || name.starts_with("PMPI_"))
}

/// A function with the import's own signature that ends the job when called.
pub fn unsupported_stub(store: &mut Store, name: &str, ty: &FunctionType) -> Function {
    let name = name.to_string();
    Function::new(store, ty, move |_args| Err(RuntimeError::user(Box::new(Fatal::Unsupported(name.clone())))))
}
