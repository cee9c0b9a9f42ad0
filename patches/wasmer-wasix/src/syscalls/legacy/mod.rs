//! These modules provide wrappers and implementations for older version of WASI.
//!
//! If you are relying on legacy WASI, please upgrade for the best experience.

pub mod snapshot0;
