//! `embedder`: runs MPI programs compiled to wasm32-wasi, one process per rank,
//! on the host's MPI library.

mod abi;
mod cache;
mod cli;
mod confined_fs;
mod engine;
mod guest_memory;
mod handles;
mod host_mpi;
mod inspect;
mod logging;
mod mpi;
mod probestack;
mod rank;
mod reservation;
mod run;
mod wasi;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    logging::init(cli.common.verbose);
    let result = match cli.command() {
        cli::Command::Run(args) => run::run(&cli.common, args),
        cli::Command::Compile(args) => engine::compile_command(&cli.common, &args),
        cli::Command::Inspect(args) => inspect::inspect_command(&cli.common, &args),
    };
    match result {
        Ok(code) => ExitCode::from(code),
        Err(err) => {
            say!("embedder: error: {err:#}");
            ExitCode::from(1)
        }
    }
}
