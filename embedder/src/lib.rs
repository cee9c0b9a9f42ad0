//! The embedder as a library: the `embedder` binary (main.rs) is a thin
//! command-line front end over it, and tools that must build engines exactly
//! as the embedder does (tools/fuzz-modules) call `engine::make_engine`.

mod abi;
mod cache;
#[cfg(test)]
mod codegen_sources;
pub mod cli;
pub mod engine;
mod guest_memory;
mod host_facts;
mod host_faults;
mod handles;
mod host_mpi;
mod llvm_dump;
pub mod inspect;
pub mod logging;
mod confined_file;
mod confined_fs;
mod mpi;
mod probestack;
mod rank;
mod reservation;
mod segv_chain;
mod shared_memory;
pub mod run;
mod wasi;

/// Records which host MPI library to load (`--mpi-lib`); `None` finds it.
pub fn select_mpi_library(path: Option<std::path::PathBuf>) {
    host_mpi::library::request(path);
}
