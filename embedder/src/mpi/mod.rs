//! The MPI bridge: guest `env.MPI_*` imports implemented on the host MPI.
//!
//! Each family lives in its own file and every function is listed once, in
//! `embedder/gen/functions.py`, from which `generated/mod.rs` derives
//! registration and the inventory that `embedder inspect --provided` prints. Imports the module has but the
//! embedder does not implement still link (so the module instantiates) and
//! end the job with a clear message if called.

/// The `Maker` of MPI host function `$f` of arity N (`$raising` is
/// `raisingN`): a fatal error goes to Wasmer as `errors::Raised`.
macro_rules! host_fn {
    ($raising:ident $f:path) => {
        |s, e| wasmer::Function::new_typed_with_env::<MpiEnv, _, _, _>(s, e, crate::mpi::errors::$raising($f))
    };
}

mod abi_info;
mod attached;
mod attr;
mod binary128;
mod call;
mod callbacks;
mod coll;
mod comm;
mod datatype;
mod environment;
mod errhandler;
mod errors;
mod file;
pub(crate) mod file_nonblocking;
mod generated;
mod grequest;
mod group;
mod held;
mod info;
pub mod karmem;
mod node_segment;
mod op;
mod request;
mod rma;
mod session;
mod state;
mod status;
mod tools;
mod topo;
mod translate;

use std::rc::Rc;

use wasmer::{Function, FunctionEnv, FunctionType, Imports, RuntimeError, Store};

pub use callbacks::GuestFns;
pub use state::Bridge;
pub use errors::{Fatal, FatalKind, TRAP_EXIT};

/// State behind every MPI host function of one instance.
pub struct MpiEnv {
    /// The guest exports the bridge uses (memory, allocator, function
    /// table); set once the module is instantiated.
    fns: Option<Rc<GuestFns>>,
    /// The largest memory size seen (a wasm memory never shrinks): set
    /// whenever a call reads the size, by any view of the memory.
    known_size: std::cell::Cell<u64>,
    bridge: Bridge,
}

// Safety: the guest memory and exports live as long as the store that owns
// this environment; each rank runs its guest on one thread.
unsafe impl Send for MpiEnv {}

impl MpiEnv {
    pub fn new() -> Self {
        Self { fns: None, known_size: std::cell::Cell::new(0), bridge: Bridge::new() }
    }

    /// The guest's memory, once the module is instantiated.
    pub fn memory(&self) -> Option<&wasmer::Memory> {
        self.fns.as_ref().map(|f| &f.memory)
    }

    /// With the guest's arguments (its program name first), which
    /// MPI_INFO_ENV describes.
    pub fn with_args(args: Vec<Vec<u8>>) -> Self {
        let mut env = Self::new();
        env.bridge.guest_args = args;
        env
    }

    /// Connects the bridge to the instance's memory and exports.
    pub fn attach(&mut self, fns: GuestFns) {
        // the size at instantiation: a call whose buffers are all empty
        // reads no size, and would otherwise leave the inline checks
        // (`GuestMemory::range_known`) knowing none for good.
        // Safety: `length` points at the engine's record of the size.
        self.known_size.set(unsafe { fns.length().read() } as u64);
        self.fns = Some(Rc::new(fns));
    }

    /// The guest's preopened directories, for MPI-IO's file names.
    pub fn set_preopens(&mut self, preopens: crate::confined_fs::ConfinedFs) {
        if preopens.has_read_only() {
            crate::host_mpi::spare_read_only_dirs();
        }
        self.bridge.preopens = preopens;
    }

    fn guest_fns(&self) -> Option<Rc<GuestFns>> {
        self.fns.clone()
    }
}

/// A constructor of the host function for one MPI import.
pub type Maker = fn(&mut Store, &FunctionEnv<MpiEnv>) -> Function;

fn all() -> impl Iterator<Item = &'static (&'static str, Maker)> {
    generated::HAND_WRITTEN.iter().chain(generated::FUNCTIONS)
}

/// Every MPI function the embedder implements, sorted.
pub fn provided() -> Vec<&'static str> {
    generated::INVENTORY.iter().map(|(n, _, _)| *n).collect()
}

/// (name, family, generated) of every implemented function, sorted.
pub fn inventory() -> &'static [(&'static str, &'static str, bool)] {
    generated::INVENTORY
}

/// Whether the embedder implements `name` without the host's function of that name.
pub fn needs_no_host_function(name: &str) -> bool {
    generated::NO_HOST_FUNCTION.contains(&name)
}

thread_local! {
    /// The environment of the instance this thread runs (null: none
    /// installed). One load per MPI call instead of Wasmer's lookup of the
    /// environment in the store and its downcast (a virtual `type_id` call
    /// whose 16-byte result stalled when compared).
    static INSTALLED: std::cell::Cell<*mut MpiEnv> = const { std::cell::Cell::new(std::ptr::null_mut()) };
}

/// While alive, MPI calls on this thread reach `env` directly; its store
/// must outlive it (the runner holds both for one `_start`).
pub struct Installed(());

pub fn install(env: &FunctionEnv<MpiEnv>, store: &mut Store) -> Installed {
    INSTALLED.with(|c| c.set(env.as_mut(store)));
    Installed(())
}

impl Drop for Installed {
    fn drop(&mut self) {
        INSTALLED.with(|c| c.set(std::ptr::null_mut()));
    }
}

/// The installed environment, if any.
#[inline]
pub(crate) fn installed() -> Option<*mut MpiEnv> {
    let p = INSTALLED.with(|c| c.get());
    (!p.is_null()).then_some(p)
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
    Function::new(store, ty, move |_args| Err(RuntimeError::user(Box::new(Fatal::from(FatalKind::Unsupported(name.clone()))))))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each hand-written function has the wasm signature the guest mpi.h
    /// gives it (a mismatch would only show when a module is linked).
    #[test]
    fn hand_written_functions_have_the_headers_signatures() {
        let mut store = Store::default();
        let env = FunctionEnv::new(&mut store, MpiEnv::new());
        for (name, make) in generated::HAND_WRITTEN {
            let ty = make(&mut store, &env).ty(&store);
            let (_, params, results) = generated::SIGNATURES.iter().find(|(n, _, _)| n == name).unwrap();
            assert_eq!((ty.params(), ty.results()), (*params, *results), "{name}");
        }
    }

    #[test]
    fn the_inventory_lists_every_registered_function_once() {
        let mut names: Vec<_> = all().map(|(n, _)| *n).collect();
        names.sort_unstable();
        let before = names.len();
        names.dedup();
        assert_eq!(before, names.len(), "a function is registered twice");
        assert_eq!(names, provided());
    }
}
