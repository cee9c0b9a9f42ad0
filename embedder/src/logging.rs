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

/// Prints one line on stderr with a single write, so lines from ranks that
/// share the launcher's stderr stay whole (`eprintln!` may split a line
/// into several writes).
pub fn line(msg: std::fmt::Arguments) {
    use std::io::Write;
    let mut s = msg.to_string();
    s.push('\n');
    let _ = std::io::stderr().lock().write_all(s.as_bytes());
}

/// `eprintln!` with `line`'s single write.
#[macro_export]
macro_rules! say {
    ($($arg:tt)*) => { $crate::logging::line(format_args!($($arg)*)) };
}
