//! Objects a request still needs after the guest freed them. MPI lets a
//! program free a datatype or a reduction operation that pending operations
//! use; they complete as if it were still there (MPI-4.1 2.5.1). Two parts
//! need such an object that long:
//! - the bridge: a user operation's trampoline slot (op.rs), and the guest
//!   handle and layout a user function is given for the datatype;
//! - Open MPI (4.1 and 5): its persistent collectives keep the datatypes
//!   and the operation they were made with but take no reference of their
//!   own. A type freed after
//!   `MPI_Alltoall_init` was read after its free at `MPI_Start` (natively
//!   too: valgrind's invalid reads, and the data laid out by whichever type
//!   reused the memory).
//!
//! So every nonblocking and persistent collective holds its user-defined
//! operation and derived datatypes (a shared `Held` each) until its request
//! is gone (point-to-point requests need not: the host libraries hold
//! their datatypes themselves); `MPI_Op_free`/`MPI_Type_free` of a held object retire the guest
//! handle at once and leave the host object to its last holder. Predefined
//! objects are never held: they are never freed.
use std::{cell::Cell, collections::HashMap, rc::Rc};

use super::{op, state::Bridge};
use crate::{handles::USER_BASE, host_mpi, host_mpi::ffi};

/// What a collective names by guest handle, for its request to hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Of {
    Type(i32),
    Op(i32),
}

impl Of {
    /// Predefined objects are never freed, so never held.
    #[inline(always)]
    pub fn predefined(self) -> bool {
        match self {
            Of::Type(g) | Of::Op(g) => g < USER_BASE,
        }
    }
}

/// One host object and what freeing it takes; shared by the table of live
/// objects (`Holds`) and every request that uses it.
#[derive(Debug)]
pub struct Held {
    what: Of,
    host: usize,
    /// A user operation's trampoline slot.
    slot: Option<usize>,
    /// The guest freed it: the last holder frees it on the host.
    freed: Cell<bool>,
}

impl Drop for Held {
    fn drop(&mut self) {
        if !self.freed.get() || !host_mpi::active() {
            return;
        }
        let mut h = self.host;
        match self.what {
            Of::Type(guest) => {
                unsafe { ffi::MPI_Type_free(&mut h) };
                op::forget_host_type(self.host, guest);
            }
            Of::Op(_) => {
                unsafe { ffi::MPI_Op_free(&mut h) };
                if let Some(slot) = self.slot {
                    op::release_slot(slot);
                }
            }
        }
    }
}

/// The held objects by guest handle: an entry is made when a request first
/// holds the object and goes when the guest frees it.
pub type Holds = HashMap<Of, Rc<Held>>;

/// The shared `Held` of a user-defined object, for a request made with it;
/// None for a predefined one or a handle that names nothing (an argument
/// MPI ignores at this process).
pub fn hold(bridge: &mut Bridge, what: Of) -> Option<Rc<Held>> {
    if what.predefined() {
        return None;
    }
    let (guest, host, slot) = match what {
        Of::Type(g) => (g, bridge.datatypes.get(g)?.host.0, None),
        Of::Op(g) => (g, bridge.ops.get(g)?.0, Some(*bridge.user_op_slots.get(&g)?)),
    };
    let held = bridge.holds.entry(what).or_insert_with(|| Rc::new(Held { what, host, slot, freed: Cell::new(false) }));
    debug_assert_eq!(held.host, host, "{guest:#x}: a held entry outlived its object");
    Some(held.clone())
}

/// The `Held`s of those of `objects` that are user-defined, for a request.
pub fn hold_all(bridge: &mut Bridge, objects: impl IntoIterator<Item = Of>) -> Vec<Rc<Held>> {
    objects.into_iter().filter_map(|o| hold(bridge, o)).collect()
}

/// The guest frees `what`: true if requests still hold it (the host object
/// then stays until the last of them is gone, and the caller must not free
/// it), false if the caller frees it now.
pub fn retire(bridge: &mut Bridge, what: Of) -> bool {
    match bridge.holds.remove(&what) {
        Some(held) if Rc::strong_count(&held) > 1 => {
            held.freed.set(true);
            true
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_freed_object_stays_with_its_holders_and_only_then() {
        let mut bridge = Bridge::new();
        let op = bridge.ops.insert(host_mpi::Op(0x1234));
        bridge.user_op_slots.insert(op, 3);
        // predefined objects, and handles that name nothing, are not held
        assert!(hold(&mut bridge, Of::Op(abi_predefined())).is_none());
        assert!(hold(&mut bridge, Of::Type(op)).is_none());
        // freed with no request holding it: the caller frees it
        assert!(!retire(&mut bridge, Of::Op(op)));
        // a request holds it: the free is left to the request
        let request = hold(&mut bridge, Of::Op(op)).expect("a user operation is held");
        assert_eq!((request.host, request.slot), (0x1234, Some(3)));
        let second = hold(&mut bridge, Of::Op(op)).unwrap();
        assert!(Rc::ptr_eq(&request, &second), "one shared entry per object");
        drop(second);
        assert!(retire(&mut bridge, Of::Op(op)));
        assert!(request.freed.get() && bridge.holds.is_empty());
        // the handle is the guest's again: a new object under it starts anew
        assert!(!retire(&mut bridge, Of::Op(op)));
    }

    fn abi_predefined() -> i32 {
        USER_BASE - 1
    }
}
