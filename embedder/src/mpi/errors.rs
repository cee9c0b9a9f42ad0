//! MPI errors raised by the bridge, and the guest-visible result of a call.
use std::fmt;

use crate::{abi, guest_memory::OutOfBounds};

/// An MPI error: the standard-ABI error class the guest sees, and what went
/// wrong (only built on the error path). Boxed: every translation helper
/// returns an `MpiResult`, which then fits two registers (a 40-byte error
/// sent every result through memory, and reading it back stalled).
#[derive(Debug)]
pub struct MpiError(Box<ErrorDetail>);

#[derive(Debug)]
pub struct ErrorDetail {
    pub class: i32,
    pub detail: String,
    /// Every rank of the call's group sees it (the host returned it, or the
    /// ranks agreed on it); else the bridge refused this rank's arguments
    /// alone, and the other ranks of a collective went ahead.
    pub shared: bool,
}

impl MpiError {
    pub fn new(class: i32, detail: impl Into<String>) -> Self {
        Self(Box::new(ErrorDetail { class, detail: detail.into(), shared: false }))
    }

    pub fn shared(class: i32, detail: impl Into<String>) -> Self {
        Self(Box::new(ErrorDetail { class, detail: detail.into(), shared: true }))
    }

    pub fn into_detail(self) -> String {
        self.0.detail
    }
}

impl std::ops::Deref for MpiError {
    type Target = ErrorDetail;
    fn deref(&self) -> &ErrorDetail {
        &self.0
    }
}

impl std::ops::DerefMut for MpiError {
    fn deref_mut(&mut self) -> &mut ErrorDetail {
        &mut self.0
    }
}

impl From<OutOfBounds> for MpiError {
    fn from(e: OutOfBounds) -> Self {
        MpiError::new(abi::c::MPI_ERR_BUFFER, e.to_string())
    }
}

pub type MpiResult<T = ()> = Result<T, MpiError>;

/// Exit code after a trap, as for a process killed by SIGABRT.
pub const TRAP_EXIT: i32 = 134;

/// Ends the whole job: raised from a host function as a Wasmer user error,
/// unwinds the guest, and is reported once by the runner, which then aborts
/// the job through the host MPI. Boxed so that a host function's
/// `Result<i32, Fatal>` comes back in two registers: a 48-byte error made
/// every MPI call return through memory, and reading it back stalled.
#[derive(Debug)]
pub struct Fatal(Box<FatalKind>);

#[derive(Debug)]
pub enum FatalKind {
    /// An MPI error under MPI_ERRORS_ARE_FATAL.
    Mpi { function: &'static str, class: i32, detail: String },
    /// The guest called an MPI function the embedder does not implement.
    Unsupported(String),
    /// The guest called MPI_Abort while MPI was not running.
    Abort(i32),
    /// A guest callback (error handler, attribute function) trapped.
    Callback { function: &'static str, detail: String },
}

impl From<FatalKind> for Fatal {
    fn from(kind: FatalKind) -> Self {
        Fatal(Box::new(kind))
    }
}

impl Fatal {
    pub fn kind(&self) -> &FatalKind {
        &self.0
    }

    /// The process exit code (and MPI_Abort error code) for this failure.
    pub fn exit_code(&self) -> i32 {
        match self.kind() {
            FatalKind::Mpi { class, .. } => (*class).clamp(1, 255),
            FatalKind::Unsupported(_) => 1,
            FatalKind::Abort(code) => *code,
            FatalKind::Callback { .. } => TRAP_EXIT,
        }
    }
}

impl fmt::Display for Fatal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind() {
            FatalKind::Mpi { function, class, detail } => {
                write!(f, "{function}: {}: {detail}", abi::error_class_name(*class))
            }
            FatalKind::Unsupported(name) => write!(f, "{name} is not supported by this embedder"),
            FatalKind::Abort(code) => write!(f, "MPI_Abort called with error code {code}"),
            FatalKind::Callback { function, detail } => write!(f, "{function}: a guest callback trapped: {detail}"),
        }
    }
}

impl std::error::Error for Fatal {}
