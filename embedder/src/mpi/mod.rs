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
mod p2p;
mod status;

use wasmer::{Function, FunctionEnv, FunctionType, Imports, Memory, RuntimeError, Store};

pub use context::Bridge;
pub use errors::Fatal;

/// State behind every MPI host function of one instance.
pub struct MpiEnv {
    memory: Option<Memory>,
    bridge: Bridge,
}

impl MpiEnv {
    pub fn new() -> Self {
        Self { memory: None, bridge: Bridge::new() }
    }

    pub fn set_memory(&mut self, memory: Memory) {
        self.memory = Some(memory);
    }
}

macro_rules! functions {
    ($($name:literal => $f:path),* $(,)?) => {
        /// Every MPI function the embedder implements.
        pub const PROVIDED: &[&str] = &[$($name),*];

        /// Defines every implemented function in `imports` under `env`.
        pub fn register(store: &mut Store, env: &FunctionEnv<MpiEnv>, imports: &mut Imports) {
            $(imports.define("env", $name, Function::new_typed_with_env(store, env, $f));)*
        }
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
    "MPI_Comm_rank" => comm::rank,
    "MPI_Comm_size" => comm::size,
    "MPI_Send" => p2p::send,
    "MPI_Recv" => p2p::recv,
    "MPI_Barrier" => coll::barrier,
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
