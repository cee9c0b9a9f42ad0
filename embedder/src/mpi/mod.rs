//! The MPI bridge: guest `env.MPI_*` imports implemented on the host MPI.
//!
//! Each family lives in its own file and every function is listed once, in
//! `functions!` below, which derives registration and the inventory that
//! `embedder inspect --provided` prints. Imports the module has but the
//! embedder does not implement still link (so the module instantiates) and
//! end the job with a clear message if called.

mod attr;
mod callbacks;
mod coll;
mod comm;
mod context;
mod datatype;
mod environment;
mod errhandler;
mod errors;
mod generated;
mod group;
mod info;
mod op;
mod request;
mod status;
mod topo;

use std::rc::Rc;

use wasmer::{Function, FunctionEnv, FunctionType, Imports, RuntimeError, Store};

pub use callbacks::GuestFns;
pub use context::Bridge;
pub use errors::{Fatal, TRAP_EXIT};

/// State behind every MPI host function of one instance.
pub struct MpiEnv {
    /// The guest exports the bridge uses (memory, allocator, function
    /// table); set once the module is instantiated.
    fns: Option<Rc<GuestFns>>,
    /// The largest memory size seen (a wasm memory never shrinks).
    known_size: u64,
    bridge: Bridge,
}

// Safety: the guest memory and exports live as long as the store that owns
// this environment; each rank runs its guest on one thread.
unsafe impl Send for MpiEnv {}

impl MpiEnv {
    pub fn new() -> Self {
        Self { fns: None, known_size: 0, bridge: Bridge::new() }
    }

    /// Connects the bridge to the instance's memory and exports.
    pub fn attach(&mut self, fns: GuestFns) {
        self.fns = Some(Rc::new(fns));
    }

    fn guest_fns(&self) -> Option<Rc<GuestFns>> {
        self.fns.clone()
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
    "MPI_Pcontrol" => environment::pcontrol,
    "MPI_Query_thread" => environment::query_thread,
    "MPI_Is_thread_main" => environment::is_thread_main,
    "MPI_Buffer_attach" => environment::buffer_attach,
    "MPI_Buffer_detach" => environment::buffer_detach,
    "MPI_Comm_rank" => comm::rank,
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
    "MPI_Cancel" => request::cancel,
    // error handling
    "MPI_Comm_create_errhandler" => errhandler::comm_create_errhandler,
    "MPI_Comm_set_errhandler" => errhandler::comm_set_errhandler,
    "MPI_Comm_get_errhandler" => errhandler::comm_get_errhandler,
    "MPI_Errhandler_free" => errhandler::errhandler_free,
    "MPI_Comm_call_errhandler" => errhandler::comm_call_errhandler,
    "MPI_Add_error_class" => errhandler::add_error_class,
    "MPI_Add_error_code" => errhandler::add_error_code,
    "MPI_Add_error_string" => errhandler::add_error_string,
    "MPI_Error_class" => errhandler::error_class,
    "MPI_Error_string" => errhandler::error_string,
    "MPI_Comm_dup" => comm::dup,
    "MPI_Comm_dup_with_info" => comm::dup_with_info,
    // derived datatypes
    "MPI_Type_contiguous" => datatype::type_contiguous,
    "MPI_Type_vector" => datatype::type_vector,
    "MPI_Type_create_hvector" => datatype::type_create_hvector,
    "MPI_Type_indexed" => datatype::type_indexed,
    "MPI_Type_create_hindexed" => datatype::type_create_hindexed,
    "MPI_Type_create_indexed_block" => datatype::type_create_indexed_block,
    "MPI_Type_create_hindexed_block" => datatype::type_create_hindexed_block,
    "MPI_Type_create_struct" => datatype::type_create_struct,
    "MPI_Type_create_subarray" => datatype::type_create_subarray,
    "MPI_Type_create_darray" => datatype::type_create_darray,
    "MPI_Type_create_resized" => datatype::type_create_resized,
    "MPI_Type_create_f90_real" => datatype::type_create_f90_real,
    "MPI_Type_create_f90_complex" => datatype::type_create_f90_complex,
    "MPI_Type_create_f90_integer" => datatype::type_create_f90_integer,
    "MPI_Type_dup" => datatype::type_dup,
    "MPI_Type_commit" => datatype::type_commit,
    "MPI_Type_free" => datatype::type_free,
    "MPI_Type_size" => datatype::type_size,
    "MPI_Type_size_x" => datatype::type_size_x,
    "MPI_Type_get_extent" => datatype::type_get_extent,
    "MPI_Type_get_extent_x" => datatype::type_get_extent_x,
    "MPI_Type_get_true_extent" => datatype::type_get_true_extent,
    "MPI_Type_get_true_extent_x" => datatype::type_get_true_extent_x,
    "MPI_Type_extent" => datatype::type_extent,
    "MPI_Type_lb" => datatype::type_lb,
    "MPI_Type_ub" => datatype::type_ub,
    "MPI_Type_get_envelope" => datatype::type_get_envelope,
    "MPI_Type_get_contents" => datatype::type_get_contents,
    "MPI_Type_set_name" => datatype::type_set_name,
    "MPI_Type_get_name" => datatype::type_get_name,
    "MPI_Type_match_size" => datatype::type_match_size,
    "MPI_Get_address" => datatype::get_address,
    "MPI_Aint_add" => datatype::aint_add,
    "MPI_Aint_diff" => datatype::aint_diff,
    "MPI_Pack" => datatype::pack,
    "MPI_Unpack" => datatype::unpack,
    "MPI_Pack_size" => datatype::pack_size,
    "MPI_Pack_external" => datatype::pack_external,
    "MPI_Unpack_external" => datatype::unpack_external,
    "MPI_Pack_external_size" => datatype::pack_external_size,
    // reduction operations
    "MPI_Op_create" => op::op_create,
    "MPI_Op_free" => op::op_free,
    "MPI_Op_commutative" => op::op_commutative,
    // attributes
    "MPI_Comm_create_keyval" => attr::comm_create_keyval,
    "MPI_Comm_free_keyval" => attr::comm_free_keyval,
    "MPI_Comm_set_attr" => attr::comm_set_attr,
    "MPI_Comm_get_attr" => attr::comm_get_attr,
    "MPI_Comm_delete_attr" => attr::comm_delete_attr,
    "MPI_Type_create_keyval" => attr::type_create_keyval,
    "MPI_Type_free_keyval" => attr::type_free_keyval,
    "MPI_Type_set_attr" => attr::type_set_attr,
    "MPI_Type_get_attr" => attr::type_get_attr,
    "MPI_Type_delete_attr" => attr::type_delete_attr,
    "MPI_Win_create_keyval" => attr::win_create_keyval,
    "MPI_Win_free_keyval" => attr::win_free_keyval,
    "MPI_Keyval_create" => attr::keyval_create,
    "MPI_Keyval_free" => attr::keyval_free,
    "MPI_Attr_put" => attr::attr_put,
    "MPI_Attr_get" => attr::attr_get,
    "MPI_Attr_delete" => attr::attr_delete,
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
