//! `embedder`: runs MPI programs compiled to wasm32-wasi, one process per rank,
//! on the host's MPI library.

use std::process::ExitCode;

use clap::Parser;
use embedder::{cli, engine, inspect, logging, run, say};

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    logging::init(cli.common.verbose);
    embedder::select_mpi_library(cli.common.mpi_lib.clone());
    let result = match cli.command() {
        cli::Command::Run(args) => run::run(&cli.common, args),
        cli::Command::Compile(args) => engine::compile_command(&cli.common, &args),
        cli::Command::Inspect(args) => {
            // a listing piped into `head` ends quietly, as other tools' do
            unsafe { libc::signal(libc::SIGPIPE, libc::SIG_DFL) };
            inspect::inspect_command(&cli.common, &args)
        }
    };
    match result {
        Ok(code) => ExitCode::from(code),
        Err(err) => {
            say!("embedder: error: {err:#}");
            ExitCode::from(1)
        }
    }
}
