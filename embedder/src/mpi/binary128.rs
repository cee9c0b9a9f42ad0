//! The guest's `long double`: IEEE binary128 on wasm32. The host MPI moves
//! these types as its own 16-byte `long double` (and the complex and pair
//! types built on it), which have the same size, extent and alignment on
//! 64-bit hosts, so transfers, sizes and element counts are the host's. Its
//! arithmetic is another matter (x86-64's `long double` is 80-bit extended),
//! so reductions with predefined operations run in `csrc/binary128.c`
//! through host user operations, one per predefined operation.
use std::ffi::{c_int, c_void};

use super::{
    datatype::{Contents, DatatypeEntry},
    errors::{MpiError, MpiResult},
    op, state::Bridge,
};
use crate::{abi, handles::USER_BASE, host_mpi, host_mpi::ffi};

extern "C" {
    fn embedder_binary128_reduce(op: c_int, kind: c_int, inv: *const c_void, inout: *mut c_void, len: c_int) -> c_int;
}

/// The guest's binary128 types, with the kernel's kind (and the host's
/// size each must have for the layouts to agree).
pub const TYPES: [(i32, &str, c_int, i64); 4] = [
    (abi::c::MPI_LONG_DOUBLE, "MPI_LONG_DOUBLE", 0, 16),
    (abi::c::MPI_C_LONG_DOUBLE_COMPLEX, "MPI_C_LONG_DOUBLE_COMPLEX", 1, 32),
    (abi::c::MPI_CXX_LONG_DOUBLE_COMPLEX, "MPI_CXX_LONG_DOUBLE_COMPLEX", 1, 32),
    (abi::c::MPI_LONG_DOUBLE_INT, "MPI_LONG_DOUBLE_INT", 2, 32),
];

/// The predefined operations the kernel computes, in its numbering.
const OPS: [i32; 6] = [abi::c::MPI_SUM, abi::c::MPI_PROD, abi::c::MPI_MIN, abi::c::MPI_MAX, abi::c::MPI_MINLOC, abi::c::MPI_MAXLOC];

pub fn is_binary128(guest: i32) -> bool {
    TYPES.iter().any(|t| t.0 == guest)
}

/// Whether the host's type of that name has the wasm32 extent: if not (a host
/// whose `long double` is 8 bytes), the guest type is left unmapped.
pub fn host_layout_agrees(name: &str, host_size: i64) -> bool {
    TYPES.iter().find(|t| t.1 == name).is_none_or(|t| t.3 == host_size)
}

type HostUserFn = unsafe extern "C" fn(*mut c_void, *mut c_void, *mut c_int, *mut ffi::MPI_Datatype);

unsafe extern "C" fn reduce<const OP: c_int>(inv: *mut c_void, inout: *mut c_void, len: *mut c_int, dt: *mut ffi::MPI_Datatype) {
    let host = host_mpi::read_handle(dt as *const c_void);
    let datatypes = &host_mpi::constants().datatypes;
    let kind = TYPES.iter().find(|t| datatypes.get(t.1).is_some_and(|d| d.0 == host)).map(|t| t.2);
    let done = kind.is_some_and(|kind| embedder_binary128_reduce(OP, kind, inv, inout, *len) == 0);
    if !done {
        op::abort_job("a long double reduction was called with another datatype")
    }
}

const KERNELS: [HostUserFn; 6] = [reduce::<0>, reduce::<1>, reduce::<2>, reduce::<3>, reduce::<4>, reduce::<5>];

/// Host operations standing in for the predefined ones on binary128 types,
/// made on first use (all commutative).
#[derive(Default)]
pub struct HostOps(Option<[host_mpi::Op; 6]>);

impl HostOps {
    fn get(&mut self, index: usize) -> MpiResult<host_mpi::Op> {
        if self.0.is_none() {
            let mut ops = [host_mpi::null_op(); 6];
            for (op, kernel) in ops.iter_mut().zip(KERNELS) {
                let rc = unsafe { ffi::MPI_Op_create(kernel as ffi::Callback, 1, &mut op.0) };
                if rc != 0 {
                    return Err(MpiError::new(abi::c::MPI_ERR_INTERN, "cannot create the long double reduction operations"));
                }
            }
            self.0 = Some(ops);
        }
        Ok(self.0.as_ref().expect("just made")[index])
    }
}

/// Whether a derived type made of `contents` holds binary128 data anywhere.
pub fn holds_binary128(contents: &Contents) -> bool {
    contents.basic_types().into_iter().any(is_binary128)
}

impl Bridge {
    /// The host operation for a reduction of `datatype` (whose entry is
    /// `dt`) with guest `op`: the host's own, except predefined operations
    /// on binary128 data.
    #[inline]
    pub fn reduction_op(&mut self, op: i32, host: host_mpi::Op, datatype: i32, dt: &DatatypeEntry) -> MpiResult<host_mpi::Op> {
        if op >= USER_BASE || !dt.binary128() {
            return Ok(host);
        }
        self.binary128_op(op, datatype)
    }

    #[inline(never)]
    fn binary128_op(&mut self, op: i32, datatype: i32) -> MpiResult<host_mpi::Op> {
        let Some(&(_, tname, kind, _)) = TYPES.iter().find(|t| t.0 == datatype) else {
            return Err(MpiError::new(
                abi::c::MPI_ERR_OP,
                "predefined operations on derived datatypes of long double are not supported: use a user operation",
            ));
        };
        let index = OPS.iter().position(|&o| o == op);
        let defined = index.is_some_and(|i| match kind {
            0 => i <= 3,
            1 => i <= 1,
            _ => i >= 4,
        });
        match index {
            Some(i) if defined => self.binary128_ops.get(i),
            _ => Err(MpiError::new(abi::c::MPI_ERR_OP, format!("{} is not defined on {tname}", abi::op_name(op)))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // binary128 bit patterns: sign, 15-bit exponent (bias 16383), 112-bit fraction
    const ONE: u128 = 0x3fff << 112;
    const MINUS_ONE: u128 = 0xbfff << 112;
    const TWO: u128 = 0x4000 << 112;
    const ONE_PLUS_2_POW_MINUS_100: u128 = ONE | 1 << 12;
    const TWO_PLUS_2_POW_MINUS_100: u128 = TWO | 1 << 11;

    fn reduce(op: c_int, kind: c_int, inv: &[u128], inout: &mut [u128]) -> c_int {
        let len = inv.len() as c_int / if kind == 0 { 1 } else { 2 };
        unsafe { embedder_binary128_reduce(op, kind, inv.as_ptr().cast(), inout.as_mut_ptr().cast(), len) }
    }

    #[test]
    fn sums_keep_binary128_precision() {
        // 1 + 2^-100 needs 101 bits of significand: lost in 80-bit extended
        let mut acc = [ONE];
        assert_eq!(reduce(0, 0, &[ONE_PLUS_2_POW_MINUS_100], &mut acc), 0);
        assert_eq!(acc, [TWO_PLUS_2_POW_MINUS_100]);
        let mut acc = [ONE_PLUS_2_POW_MINUS_100];
        assert_eq!(reduce(2, 0, &[ONE], &mut acc), 0, "MIN");
        assert_eq!(acc, [ONE]);
        assert_eq!(reduce(3, 0, &[ONE_PLUS_2_POW_MINUS_100], &mut acc), 0, "MAX");
        assert_eq!(acc, [ONE_PLUS_2_POW_MINUS_100]);
    }

    #[test]
    fn complex_products_and_pairs() {
        // (0 + 1i)(0 + 1i) = -1 + 0i
        let i = [0, ONE];
        let mut acc = [0, ONE];
        assert_eq!(reduce(1, 1, &i, &mut acc), 0);
        assert_eq!(acc, [MINUS_ONE, 0]);
        // MINLOC of equal values keeps the lower index (the int at byte 16)
        let mut acc = [ONE, 7];
        assert_eq!(reduce(4, 2, &[ONE, 3], &mut acc), 0);
        assert_eq!(acc, [ONE, 3]);
        assert_eq!(reduce(5, 2, &[TWO, 9], &mut acc), 0, "MAXLOC");
        assert_eq!(acc, [TWO, 9]);
    }

    #[test]
    fn operations_mpi_does_not_define_are_refused() {
        let mut acc = [ONE, 0];
        assert_eq!(reduce(2, 1, &[ONE, 0], &mut acc), -1, "MIN on complex");
        assert_eq!(reduce(0, 2, &[ONE, 0], &mut acc), -1, "SUM on pairs");
        assert_eq!(reduce(4, 0, &[ONE, 0], &mut acc), -1, "MINLOC on reals");
    }
}
