//! Translation between the guest's standard ABI and the host MPI, by kind,
//! as methods of the call context (`Ctx`).
pub(in crate::mpi) mod arrays;
mod buffers;
mod handles;
mod specials;
mod strings;

pub(in crate::mpi) use buffers::SolidSpan;
pub(in crate::mpi) use handles::invalid_request;
