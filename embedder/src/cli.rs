//! The command line: `embedder [OPTIONS] <MODULE.wasm> [ARGS]...`, plus the
//! `compile` and `inspect` subcommands.
use std::{ffi::OsString, path::PathBuf};

use clap::{Args, Parser, Subcommand, ValueEnum};

#[derive(Parser, Debug)]
#[command(
    name = "embedder",
    version,
    // --version: which sources compiled code comes from (`codegen_sources.rs`),
    // for bug reports and for telling two builds' cache entries apart
    long_version = concat!(env!("CARGO_PKG_VERSION"), "\ncode generator sources: ", env!("EMBEDDER_CODEGEN_SOURCES")),
    about = "Run MPI programs compiled to wasm32-wasi on the host's MPI library",
    long_about = "Run MPI programs compiled to wasm32-wasi on the host's MPI library.\n\n\
        Start one embedder per rank, as you would start the native program:\n  \
        mpirun -np 4 embedder app.wasm --input /data/x\n  \
        srun embedder -d data app.wasm\n\n\
        Everything after MODULE.wasm is passed to the guest unchanged.",
    subcommand_negates_reqs = true,
    override_usage = "embedder [OPTIONS] <MODULE.wasm> [ARGS]...\n       embedder [OPTIONS] <COMMAND>"
)]
pub struct Cli {
    #[command(flatten)]
    pub common: Common,
    #[command(flatten)]
    run: RunArgs,
    #[command(subcommand)]
    sub: Option<Sub>,
}

pub enum Command {
    Run(RunArgs),
    Compile(CompileArgs),
    Inspect(InspectArgs),
}

impl Cli {
    pub fn command(&self) -> Command {
        match &self.sub {
            Some(Sub::Run(a)) => Command::Run(a.clone()),
            Some(Sub::Compile(a)) => Command::Compile(a.clone()),
            Some(Sub::Inspect(a)) => Command::Inspect(a.clone()),
            None => Command::Run(self.run.clone()),
        }
    }
}

/// Options shared by every subcommand.
#[derive(Args, Debug, Clone)]
pub struct Common {
    /// Compiler backend: llvm (fastest code), cranelift (fast compile), singlepass (fastest compile)
    #[arg(long, value_enum, default_value_t = Backend::Llvm, global = true, env = "EMBEDDER_BACKEND")]
    pub backend: Backend,

    /// Directory of the compiled-module cache, yours alone (one others can write is not used)
    /// [default: $XDG_CACHE_HOME/mpi-wasm-embedder]
    #[arg(long, value_name = "DIR", global = true, env = "EMBEDDER_CACHE_DIR")]
    pub cache_dir: Option<PathBuf>,

    /// LLVM: keep every guest memory access, so that one whose value is never used still traps
    /// when out of bounds (Wasmer 4.4's volatile accesses; loops run slower). Without it an
    /// access the program performs traps all the same, but a dead one may be optimized away.
    /// Implies --wrapping-addresses
    #[arg(long, global = true, env = "EMBEDDER_STRICT_TRAPS")]
    pub strict_traps: bool,

    /// LLVM: add addresses in 32 bits, as wasm specifies, so that an address computed past
    /// 4 GiB wraps to the bottom of memory (implied by --strict-traps). Without it a constant
    /// added to an address becomes part of the access (loops run faster), and such an address
    /// traps as out of bounds
    #[arg(long, global = true, env = "EMBEDDER_WRAPPING_ADDRESSES")]
    pub wrapping_addresses: bool,

    /// Compile in memory; neither read nor write the cache
    #[arg(long, global = true)]
    pub no_cache: bool,

    /// Also load compiled modules from DIR, a read-only site cache owned by root (filled with
    /// `embedder --cache-dir DIR compile`); never written
    #[arg(long, value_name = "DIR", global = true, env = "EMBEDDER_TRUSTED_CACHE")]
    pub trusted_cache: Option<PathBuf>,

    /// Print compile/load/instantiate/run times on stderr
    #[arg(long, global = true)]
    pub timings: bool,

    /// The host MPI library to load [default: the one the launcher belongs to (Open MPI's
    /// OMPI_*/PMIX_* or MPICH's HYDRA_*/PMI_* variables), else libmpi.so on the loader path]
    #[arg(long, value_name = "PATH", global = true, env = "EMBEDDER_MPI_LIB")]
    pub mpi_lib: Option<PathBuf>,

    /// More diagnostics on stderr (-v info, -vv debug, -vvv trace); RUST_LOG overrides. A
    /// successful run is silent unless stderr is a terminal or -v is given
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    pub verbose: u8,
}

#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Llvm,
    Cranelift,
    Singlepass,
}

impl Backend {
    pub fn name(self) -> &'static str {
        match self {
            Backend::Llvm => "LLVM",
            Backend::Cranelift => "Cranelift",
            Backend::Singlepass => "Singlepass",
        }
    }
}

#[derive(Subcommand, Debug, Clone)]
enum Sub {
    /// Run a module (the default: `embedder app.wasm` is `embedder run app.wasm`)
    Run(RunArgs),
    /// Compile a module into the cache ahead of a job (e.g. once per node in a job prologue)
    Compile(CompileArgs),
    /// List a module's imports and whether the embedder provides them
    Inspect(InspectArgs),
}

#[derive(Args, Debug, Clone)]
pub struct RunArgs {
    /// Preopen DIR read-write; the guest sees it as /<basename of DIR> and nothing outside it
    #[arg(short = 'd', long = "dir", value_name = "DIR")]
    pub dirs: Vec<PathBuf>,

    /// Preopen HOST read-write at the guest path GUEST
    #[arg(long = "mapdir", value_name = "GUEST:HOST", value_parser = parse_mapdir)]
    pub mapdirs: Vec<(String, PathBuf)>,

    /// Preopen DIR read-only (seen as /<basename of DIR>): no write, create, delete or rename, for WASI and MPI-IO alike
    #[arg(long = "dir-ro", value_name = "DIR")]
    pub dirs_ro: Vec<PathBuf>,

    /// Preopen HOST read-only at the guest path GUEST
    #[arg(long = "mapdir-ro", value_name = "GUEST:HOST", value_parser = parse_mapdir)]
    pub mapdirs_ro: Vec<(String, PathBuf)>,

    /// Set an environment variable in the guest
    #[arg(long = "env", value_name = "KEY=VALUE", value_parser = parse_env)]
    pub envs: Vec<(String, String)>,

    /// Pass host variables whose names match PATTERN (glob, e.g. 'SLURM_*') to the guest
    #[arg(long = "env-inherit", value_name = "PATTERN")]
    pub env_inherit: Vec<String>,

    /// Ask for transparent huge pages on the guest's linear memory (madvise MADV_HUGEPAGE), as
    /// a native program gets under the system's THP setting "madvise" with
    /// GLIBC_TUNABLES=glibc.malloc.hugetlb=1; under "always" the kernel uses them anyway
    #[arg(long, env = "EMBEDDER_HUGE_PAGES")]
    pub huge_pages: bool,

    /// The wasm32-wasi module to run, then the guest's arguments (passed unchanged)
    // One positional list, so nothing after the module is taken for an
    // option or a subcommand.
    #[arg(value_name = "MODULE.wasm [ARGS]", required = true, num_args = 1.., trailing_var_arg = true, allow_hyphen_values = true)]
    command: Vec<OsString>,
}

impl RunArgs {
    pub fn module(&self) -> PathBuf {
        PathBuf::from(&self.command[0])
    }

    pub fn args(&self) -> &[OsString] {
        &self.command[1..]
    }
}

#[derive(Args, Debug, Clone)]
pub struct CompileArgs {
    /// Modules to compile into the cache
    #[arg(value_name = "MODULE.wasm", required = true)]
    pub modules: Vec<PathBuf>,
}

#[derive(Args, Debug, Clone)]
pub struct InspectArgs {
    /// List every MPI function the embedder implements
    #[arg(long)]
    pub provided: bool,

    /// Say which host MPI library would be loaded here, its family and why
    #[arg(long)]
    pub mpi: bool,

    /// The module to inspect
    #[arg(value_name = "MODULE.wasm", required_unless_present_any = ["provided", "mpi"])]
    pub module: Option<PathBuf>,
}

fn parse_mapdir(s: &str) -> Result<(String, PathBuf), String> {
    let (guest, host) = s.split_once(':').ok_or("expected GUEST:HOST")?;
    if guest.is_empty() || host.is_empty() {
        return Err("expected GUEST:HOST with both parts non-empty".into());
    }
    Ok((guest.to_string(), PathBuf::from(host)))
}

fn parse_env(s: &str) -> Result<(String, String), String> {
    let (k, v) = s.split_once('=').ok_or("expected KEY=VALUE")?;
    if k.is_empty() {
        return Err("empty variable name".into());
    }
    Ok((k.to_string(), v.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Cli {
        Cli::try_parse_from(std::iter::once("embedder").chain(args.iter().copied())).unwrap()
    }

    #[test]
    fn guest_arguments_pass_unchanged_even_when_they_look_like_options() {
        let cli = parse(&["-d", "data", "app.wasm", "--in", "/data/x", "-v", "--", "-d"]);
        let Command::Run(run) = cli.command() else { panic!("expected run") };
        assert_eq!(run.module(), PathBuf::from("app.wasm"));
        assert_eq!(run.args(), ["--in", "/data/x", "-v", "--", "-d"]);
        assert_eq!(run.dirs, [PathBuf::from("data")]);
        assert_eq!(cli.common.verbose, 0);
    }

    #[test]
    fn subcommands_and_options() {
        let cli = parse(&["--backend", "cranelift", "compile", "a.wasm", "b.wasm"]);
        assert_eq!(cli.common.backend, Backend::Cranelift);
        let Command::Compile(c) = cli.command() else { panic!("expected compile") };
        assert_eq!(c.modules.len(), 2);
        // a subcommand name after the module is a guest argument
        let Command::Run(r) = parse(&["-v", "app.wasm", "compile", "inspect"]).command() else { panic!("expected run") };
        assert_eq!(r.args(), ["compile", "inspect"]);
        let cli = parse(&["inspect", "--provided"]);
        assert!(matches!(cli.command(), Command::Inspect(InspectArgs { provided: true, .. })));
    }

    #[test]
    fn malformed_options_are_rejected() {
        for bad in [&["--mapdir", "nocolon", "a.wasm"][..], &["--env", "=x", "a.wasm"], &[]] {
            assert!(Cli::try_parse_from(std::iter::once("embedder").chain(bad.iter().copied())).is_err());
        }
        let (k, v) = parse_env("A=b=c").unwrap();
        assert_eq!((k.as_str(), v.as_str()), ("A", "b=c"));
    }
}
