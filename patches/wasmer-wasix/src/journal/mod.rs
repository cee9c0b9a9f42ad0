#[cfg(feature = "journal")]
mod effector;
#[cfg(not(feature = "journal"))]
#[path = "effector/unimplemented.rs"]
mod effector;

pub use effector::*;
pub use wasmer_journal::*;
