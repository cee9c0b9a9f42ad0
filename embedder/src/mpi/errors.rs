//! MPI errors raised by the bridge, and the guest-visible result of a call.
use std::fmt;

use wasmer::FunctionEnvMut;

use super::MpiEnv;
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

/// Ends the whole job: raised from a host function as a Wasmer user error
/// (`Raised`), unwinds the guest, and is reported once by the runner, which
/// then aborts the job through the host MPI. Boxed so that a
/// `Result<i32, Fatal>` fits two registers between the bridge's functions: a
/// 48-byte error made every MPI call return through memory.
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

/// What a host function hands Wasmer when the job must end: the `Fatal`
/// itself waits in `RAISED` until the runner (or the guest callback it ended)
/// takes it back with `Fatal::from_trap`. Wasmer 4.4's wrapper returned a
/// host function's result through memory (`catch_unwind`; the patched one,
/// patches/README.md, keeps it in registers); a 16-byte `Result<i32, Fatal>`
/// came back as a 4-, an 8- and a 4-byte load over a 4- and an 8-byte
/// store, a store-forwarding stall on every call, where `Result<i32,
/// Raised>` is two 32-bit words.
#[derive(Debug)]
pub struct Raised;

thread_local! {
    static RAISED: std::cell::Cell<Option<Fatal>> = const { std::cell::Cell::new(None) };
}

impl fmt::Display for Raised {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the job must end (the error is reported by the embedder)")
    }
}

impl std::error::Error for Raised {}

/// A host function's result as Wasmer gets it (see `Raised`); functions
/// that cannot fail return their value as it is.
pub trait Raise {
    type Raised;
    fn raise(self) -> Self::Raised;
}

impl<R> Raise for Result<R, Fatal> {
    type Raised = Result<R, Raised>;
    #[inline(always)]
    fn raise(self) -> Result<R, Raised> {
        match self {
            Ok(r) => Ok(r),
            Err(fatal) => Err(set_aside(fatal)),
        }
    }
}

macro_rules! infallible {
    ($($t:ty)*) => {$(
        impl Raise for $t {
            type Raised = $t;
            #[inline(always)]
            fn raise(self) -> $t {
                self
            }
        }
    )*};
}
infallible!(i32 u32 i64 f64);

/// `raisingN(f)`: host function `f`, `Fn(FunctionEnvMut<MpiEnv>, A1..AN) ->
/// R`, as one that returns `R::Raised` (one function per arity, so that the
/// closure's signature is known where Wasmer needs it).
macro_rules! raising {
    ($($name:ident: $($a:ident)*;)*) => {$(
        #[allow(non_snake_case)]
        #[inline(always)]
        pub fn $name<F, R: Raise, $($a),*>(f: F) -> impl Fn(FunctionEnvMut<MpiEnv>, $($a),*) -> R::Raised + Send + Sync + 'static
        where
            F: Fn(FunctionEnvMut<MpiEnv>, $($a),*) -> R + Send + Sync + 'static,
        {
            move |env, $($a),*| f(env, $($a),*).raise()
        }
    )*};
}
raising! {
    raising0: ;
    raising1: A1;
    raising2: A1 A2;
    raising3: A1 A2 A3;
    raising4: A1 A2 A3 A4;
    raising5: A1 A2 A3 A4 A5;
    raising6: A1 A2 A3 A4 A5 A6;
    raising7: A1 A2 A3 A4 A5 A6 A7;
    raising8: A1 A2 A3 A4 A5 A6 A7 A8;
    raising9: A1 A2 A3 A4 A5 A6 A7 A8 A9;
    raising10: A1 A2 A3 A4 A5 A6 A7 A8 A9 A10;
    raising11: A1 A2 A3 A4 A5 A6 A7 A8 A9 A10 A11;
    raising12: A1 A2 A3 A4 A5 A6 A7 A8 A9 A10 A11 A12;
    raising13: A1 A2 A3 A4 A5 A6 A7 A8 A9 A10 A11 A12 A13;
}

#[cold]
#[inline(never)]
fn set_aside(fatal: Fatal) -> Raised {
    RAISED.with(|slot| slot.set(Some(fatal)));
    Raised
}

impl Fatal {
    /// The end of the job a trap carries: a `Fatal` raised as such, or one a
    /// host function set aside (`Raise`); `Err` gives back other traps.
    pub fn from_trap(trap: wasmer::RuntimeError) -> Result<Fatal, wasmer::RuntimeError> {
        let trap = match trap.downcast::<Fatal>() {
            Ok(fatal) => return Ok(fatal),
            Err(trap) => trap,
        };
        if !trap.is::<Raised>() {
            return Err(trap);
        }
        // Set aside by this thread as the trap began to unwind to here.
        Ok(RAISED.with(|slot| slot.take()).unwrap_or_else(|| {
            FatalKind::Callback { function: "the guest", detail: "a fatal error whose report was lost".into() }.into()
        }))
    }

    /// What a trap says: a fatal error's own report (taken back, see
    /// `from_trap`), else the trap's message.
    pub fn trap_message(trap: wasmer::RuntimeError) -> String {
        match Fatal::from_trap(trap) {
            Ok(fatal) => fatal.to_string(),
            Err(trap) => trap.message(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fatal(class: i32) -> Fatal {
        FatalKind::Mpi { function: "MPI_Send", class, detail: "test".into() }.into()
    }

    #[test]
    fn a_raised_fatal_comes_back_from_its_trap() {
        assert!(matches!(Ok::<i32, Fatal>(7).raise(), Ok(7)));
        assert_eq!(5.raise(), 5);
        let raised = Err::<i32, Fatal>(fatal(abi::c::MPI_ERR_RANK)).raise().unwrap_err();
        let back = Fatal::from_trap(wasmer::RuntimeError::user(Box::new(raised))).unwrap();
        assert!(matches!(back.kind(), FatalKind::Mpi { class: abi::c::MPI_ERR_RANK, .. }), "{back}");
        // taken once: a second report of it finds the slot empty
        let again = Fatal::from_trap(wasmer::RuntimeError::user(Box::new(Raised))).unwrap();
        assert!(matches!(again.kind(), FatalKind::Callback { .. }), "{again}");
    }

    /// Where a trap becomes a message (a user reduction function's), a
    /// raised fatal error gives its own report, not `Raised`'s.
    #[test]
    fn a_raised_fatal_is_reported_by_its_message() {
        let raised = Err::<i32, Fatal>(fatal(abi::c::MPI_ERR_RANK)).raise().unwrap_err();
        let message = Fatal::trap_message(wasmer::RuntimeError::user(Box::new(raised)));
        assert_eq!(message, "MPI_Send: MPI_ERR_RANK: test");
        assert_eq!(Fatal::trap_message(wasmer::RuntimeError::new("unreachable")), "unreachable");
    }

    #[test]
    fn traps_that_carry_no_raised_fatal_stay_as_they_are() {
        let direct = Fatal::from_trap(wasmer::RuntimeError::user(Box::new(fatal(abi::c::MPI_ERR_TAG)))).unwrap();
        assert!(matches!(direct.kind(), FatalKind::Mpi { class: abi::c::MPI_ERR_TAG, .. }));
        let other = Fatal::from_trap(wasmer::RuntimeError::new("unreachable")).unwrap_err();
        assert_eq!(other.message(), "unreachable");
    }

    /// The nested case: a raise inside a guest callback is taken back by
    /// the callback's caller before that call raises in turn.
    #[test]
    fn nested_raises_each_carry_their_own_fatal() {
        let inner = Err::<i32, Fatal>(fatal(abi::c::MPI_ERR_COUNT)).raise().unwrap_err();
        let taken = Fatal::from_trap(wasmer::RuntimeError::user(Box::new(inner))).unwrap();
        let outer = Err::<i32, Fatal>(taken).raise().unwrap_err();
        let end = Fatal::from_trap(wasmer::RuntimeError::user(Box::new(outer))).unwrap();
        assert!(matches!(end.kind(), FatalKind::Mpi { class: abi::c::MPI_ERR_COUNT, .. }));
    }
}
