//! Diagnostics go to stderr through `tracing`; `-v` raises the level and
//! `RUST_LOG` (EnvFilter syntax) overrides it.
use tracing_subscriber::EnvFilter;

pub fn init(verbosity: u8) {
    let default = match verbosity {
        0 => "warn",
        1 => "info,wasmer_wasix=warn",
        2 => "debug,wasmer_wasix=info,cranelift_codegen=info",
        _ => "trace",
    };
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(default));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_target(false)
        .init();
}
