//! Attributes and keyvals on communicators, datatypes and windows.
//!
//! Attributes live in the bridge, not in the host library: values are guest
//! pointers (32 bits) and the copy/delete callbacks are guest functions,
//! which the bridge runs itself between host calls (on MPI_Comm_dup,
//! MPI_Comm_free, MPI_Type_dup, ..., with nothing borrowed, so a callback
//! may call MPI). The predefined communicator attributes are read from the
//! host and handed to the guest as pointers to ints in guest memory.
use std::collections::HashMap;

use wasmer::FunctionEnvMut;

use super::{
    callbacks::{CallbackError, GuestFns},
    call::{call, call_on, Ctx, ErrorsOf},
    errors::{Fatal, MpiError, MpiResult},
    MpiEnv,
};
use crate::{abi, handles::Table, host_mpi};

/// The object kind a keyval belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    Comm,
    Type,
    Win,
}

/// MPI_*_NULL_COPY_FN / MPI_*_NULL_DELETE_FN and MPI_*_DUP_FN (see the
/// guest mpi.h: the dup callback is 0xFFFFFFFF on wasm32).
const NULL_FN: u32 = 0;
const DUP_FN: u32 = 0xFFFF_FFFF;
/// `int copy(obj, keyval, extra_state, value_in, *value_out, *flag)`.
const COPY_PARAMS: usize = 6;
/// `int delete(obj, keyval, value, extra_state)`.
const DELETE_PARAMS: usize = 4;

#[derive(Clone, Copy, Debug)]
pub struct Keyval {
    kind: Kind,
    copy: u32,
    delete: u32,
    extra_state: u32,
}

/// Keyvals and the attributes set on each object, in the order they were
/// set.
pub struct Attributes {
    keyvals: Table<Keyval>,
    values: HashMap<(Kind, i32), Vec<(i32, u32)>>,
    /// Guest ints the predefined attributes point at (allocated on first use).
    predefined: Option<u32>,
}

impl Attributes {
    pub fn new() -> Self {
        Self { keyvals: Table::new(abi::c::MPI_KEYVAL_INVALID, 0), values: HashMap::new(), predefined: None }
    }

    fn keyval(&self, kind: Kind, keyval: i32) -> MpiResult<Keyval> {
        match self.keyvals.get(keyval) {
            Some(k) if k.kind == kind => Ok(*k),
            Some(k) => Err(MpiError::new(abi::c::MPI_ERR_KEYVAL, format!("keyval {keyval:#x} belongs to {:?} objects, not {kind:?}", k.kind))),
            None => Err(MpiError::new(abi::c::MPI_ERR_KEYVAL, format!("invalid keyval {keyval:#x}"))),
        }
    }

    fn get(&self, kind: Kind, object: i32, keyval: i32) -> Option<u32> {
        self.values.get(&(kind, object))?.iter().find(|(k, _)| *k == keyval).map(|&(_, v)| v)
    }

    fn set(&mut self, kind: Kind, object: i32, keyval: i32, value: u32) {
        let list = self.values.entry((kind, object)).or_default();
        match list.iter_mut().find(|(k, _)| *k == keyval) {
            Some(slot) => slot.1 = value,
            None => list.push((keyval, value)),
        }
    }

    fn remove(&mut self, kind: Kind, object: i32, keyval: i32) {
        if let Some(list) = self.values.get_mut(&(kind, object)) {
            list.retain(|(k, _)| *k != keyval);
        }
    }

    /// The attributes of an object, with their keyvals.
    fn of(&self, kind: Kind, object: i32) -> Vec<(i32, u32, Keyval)> {
        let list = self.values.get(&(kind, object)).map_or(&[][..], |l| &l[..]);
        list.iter().filter_map(|&(k, v)| Some((k, v, *self.keyvals.get(k)?))).collect()
    }
}

/// Whose error handler an attribute call uses: the communicator's or the
/// window's own; MPI_COMM_WORLD's for datatypes.
fn errcomm(kind: Kind, object: i32) -> ErrorsOf {
    match kind {
        Kind::Comm => ErrorsOf::Comm(object),
        Kind::Win => ErrorsOf::Win(object),
        Kind::Type => ErrorsOf::Comm(abi::c::MPI_COMM_WORLD),
    }
}

fn is_predefined_keyval(kind: Kind, keyval: i32) -> bool {
    match kind {
        Kind::Comm => PREDEFINED.iter().any(|(k, _)| *k == keyval),
        Kind::Win => (abi::c::MPI_WIN_BASE..=abi::c::MPI_WIN_MODEL).contains(&keyval),
        Kind::Type => false,
    }
}

/// The predefined communicator attributes and their host names.
const PREDEFINED: [(i32, &str); 7] = [
    (abi::c::MPI_TAG_UB, "MPI_TAG_UB"),
    (abi::c::MPI_HOST, "MPI_HOST"),
    (abi::c::MPI_IO, "MPI_IO"),
    (abi::c::MPI_WTIME_IS_GLOBAL, "MPI_WTIME_IS_GLOBAL"),
    (abi::c::MPI_UNIVERSE_SIZE, "MPI_UNIVERSE_SIZE"),
    (abi::c::MPI_APPNUM, "MPI_APPNUM"),
    (abi::c::MPI_LASTUSEDCODE, "MPI_LASTUSEDCODE"),
];

impl Ctx<'_> {
    /// The guest object an attribute call names, checked.
    fn object(&self, kind: Kind, handle: i32) -> MpiResult {
        match kind {
            Kind::Comm => self.comm(handle).map(drop),
            Kind::Type => self.datatype(handle).map(drop),
            Kind::Win => self.win(handle).map(drop),
        }
    }

    /// A predefined attribute's value as the guest sees it, if set.
    fn predefined_value(&self, comm: i32, keyval: i32) -> MpiResult<Option<i32>> {
        let host = self.comm(comm)?.host;
        let name = PREDEFINED.iter().find(|(k, _)| *k == keyval).expect("a predefined keyval").1;
        if keyval == abi::c::MPI_LASTUSEDCODE {
            return Ok(Some(self.bridge.user_errors.last_used()));
        }
        let value = host_mpi::comm_attr_int(host, host_mpi::constants().int(name));
        // MPI_HOST and MPI_IO hold ranks or the special rank values
        Ok(value.map(|v| if keyval == abi::c::MPI_HOST || keyval == abi::c::MPI_IO { self.rank_out(v) } else { v }))
    }

    /// Guest memory for the predefined attributes' ints.
    fn predefined_slots(&mut self) -> MpiResult<u32> {
        if let Some(at) = self.bridge.attributes.predefined {
            return Ok(at);
        }
        let at = self.guest_alloc(4 * PREDEFINED.len() as u32)?;
        self.bridge.attributes.predefined = Some(at);
        Ok(at)
    }
}

fn create_keyval(env: &mut FunctionEnvMut<MpiEnv>, function: &'static str, kind: Kind, copy: u32, delete: u32, keyval: u32, extra_state: u32) -> Result<i32, Fatal> {
    call(env, function, abi::c::MPI_COMM_WORLD, |cx| {
        cx.require_running()?;
        cx.mem.range(keyval, 4)?;
        if copy != NULL_FN && copy != DUP_FN {
            cx.check_callback(copy, COPY_PARAMS, 1)?;
        }
        if delete != NULL_FN {
            cx.check_callback(delete, DELETE_PARAMS, 1)?;
        }
        let k = cx.bridge.attributes.keyvals.insert(Keyval { kind, copy, delete, extra_state });
        Ok(cx.mem.write_i32(keyval, k)?)
    })
}

/// The keyval handle becomes MPI_KEYVAL_INVALID; attributes set with it
/// keep their callbacks until they are deleted.
fn free_keyval(env: &mut FunctionEnvMut<MpiEnv>, function: &'static str, kind: Kind, keyval: u32) -> Result<i32, Fatal> {
    call(env, function, abi::c::MPI_COMM_WORLD, |cx| {
        let k = cx.mem.read_i32(keyval)?;
        if is_predefined_keyval(kind, k) {
            return Err(MpiError::new(abi::c::MPI_ERR_KEYVAL, "predefined keyvals cannot be freed"));
        }
        cx.bridge.attributes.keyval(kind, k)?;
        Ok(cx.mem.write_i32(keyval, abi::c::MPI_KEYVAL_INVALID)?)
    })
}

fn get_attr(env: &mut FunctionEnvMut<MpiEnv>, function: &'static str, kind: Kind, object: i32, keyval: i32, value: u32, flag: u32) -> Result<i32, Fatal> {
    let errcomm = errcomm(kind, object);
    call_on(env, function, errcomm, |cx| {
        cx.object(kind, object)?;
        cx.mem.range(value, 4)?;
        cx.mem.range(flag, 4)?;
        let found = if kind == Kind::Comm && is_predefined_keyval(kind, keyval) {
            match cx.predefined_value(object, keyval)? {
                Some(v) => {
                    let index = PREDEFINED.iter().position(|(k, _)| *k == keyval).unwrap() as u32;
                    let slot = cx.predefined_slots()? + 4 * index;
                    cx.mem.write_i32(slot, v)?;
                    Some(slot)
                }
                None => None,
            }
        } else if kind == Kind::Win && is_predefined_keyval(kind, keyval) {
            cx.win_attribute(object, keyval)?
        } else {
            cx.bridge.attributes.keyval(kind, keyval)?;
            cx.bridge.attributes.get(kind, object, keyval)
        };
        if let Some(v) = found {
            cx.mem.write_i32(value, v as i32)?;
        }
        Ok(cx.mem.write_i32(flag, found.is_some() as i32)?)
    })
}

/// Looks up what setting or deleting an attribute replaces: its old value
/// and the keyval's delete callback.
fn existing(env: &mut FunctionEnvMut<MpiEnv>, function: &'static str, kind: Kind, object: i32, keyval: i32, errcomm: ErrorsOf) -> Result<Result<Option<(u32, Keyval)>, i32>, Fatal> {
    let mut old = None;
    let rc = call_on(env, function, errcomm, |cx| {
        cx.object(kind, object)?;
        if is_predefined_keyval(kind, keyval) {
            return Err(MpiError::new(abi::c::MPI_ERR_KEYVAL, "predefined attributes cannot be set or deleted"));
        }
        let k = cx.bridge.attributes.keyval(kind, keyval)?;
        old = cx.bridge.attributes.get(kind, object, keyval).map(|v| (v, k));
        Ok(())
    })?;
    Ok(if rc == abi::c::MPI_SUCCESS { Ok(old) } else { Err(rc) })
}

fn set_attr(env: &mut FunctionEnvMut<MpiEnv>, function: &'static str, kind: Kind, object: i32, keyval: i32, value: u32) -> Result<i32, Fatal> {
    let errcomm = errcomm(kind, object);
    let old = match existing(env, function, kind, object, keyval, errcomm)? {
        Ok(old) => old,
        Err(rc) => return Ok(rc),
    };
    if let Some((v, k)) = old {
        let rc = run_delete(env, function, object, keyval, v, &k, errcomm)?;
        if rc != abi::c::MPI_SUCCESS {
            return Ok(rc);
        }
    }
    call_on(env, function, errcomm, |cx| {
        cx.bridge.attributes.set(kind, object, keyval, value);
        Ok(())
    })
}

fn delete_attr(env: &mut FunctionEnvMut<MpiEnv>, function: &'static str, kind: Kind, object: i32, keyval: i32) -> Result<i32, Fatal> {
    let errcomm = errcomm(kind, object);
    let old = match existing(env, function, kind, object, keyval, errcomm)? {
        Ok(Some(old)) => old,
        Ok(None) => return call_on(env, function, errcomm, |_| Err(MpiError::new(abi::c::MPI_ERR_KEYVAL, "no attribute is set with this keyval"))),
        Err(rc) => return Ok(rc),
    };
    let rc = run_delete(env, function, object, keyval, old.0, &old.1, errcomm)?;
    if rc != abi::c::MPI_SUCCESS {
        return Ok(rc);
    }
    call_on(env, function, errcomm, |cx| {
        cx.bridge.attributes.remove(kind, object, keyval);
        Ok(())
    })
}

pub(super) fn guest_fns(env: &FunctionEnvMut<MpiEnv>, function: &'static str) -> Result<std::rc::Rc<GuestFns>, Fatal> {
    env.data().guest_fns().ok_or_else(|| super::call::not_instantiated(function))
}

/// A callback's non-zero return code fails the MPI call that ran it.
fn callback_failed(env: &mut FunctionEnvMut<MpiEnv>, function: &'static str, errcomm: ErrorsOf, what: &str, rc: i32) -> Result<i32, Fatal> {
    call_on(env, function, errcomm, |_| Err(MpiError::new(rc, format!("the attribute {what} function returned {rc}"))))
}

/// Runs a keyval's delete callback; its return code (or the error the
/// failure raised) is the result.
fn run_delete(env: &mut FunctionEnvMut<MpiEnv>, function: &'static str, object: i32, keyval: i32, value: u32, k: &Keyval, errcomm: ErrorsOf) -> Result<i32, Fatal> {
    if k.delete == NULL_FN {
        return Ok(abi::c::MPI_SUCCESS);
    }
    let fns = guest_fns(env, function)?;
    let args = [object, keyval, value as i32, k.extra_state as i32];
    let rc = fns.call(env, k.delete, &args).map_err(|e| e.into_fatal(function))?.unwrap_or(0);
    if rc != abi::c::MPI_SUCCESS {
        return callback_failed(env, function, errcomm, "delete", rc);
    }
    Ok(rc)
}

/// Runs the delete callbacks of every attribute on an object being freed,
/// newest first, and forgets them.
#[inline]
pub fn delete_all(env: &mut FunctionEnvMut<MpiEnv>, function: &'static str, kind: Kind, object: i32) -> Result<i32, Fatal> {
    let errcomm = errcomm(kind, object);
    let attrs = env.data().bridge.attributes.of(kind, object);
    for (keyval, value, k) in attrs.into_iter().rev() {
        let rc = run_delete(env, function, object, keyval, value, &k, errcomm)?;
        if rc != abi::c::MPI_SUCCESS {
            return Ok(rc);
        }
        env.data_mut().bridge.attributes.remove(kind, object, keyval);
    }
    env.data_mut().bridge.attributes.values.remove(&(kind, object));
    Ok(abi::c::MPI_SUCCESS)
}

/// Copies the attributes of `old` to its duplicate `new` through their
/// keyvals' copy callbacks.
#[inline]
pub fn copy_all(env: &mut FunctionEnvMut<MpiEnv>, function: &'static str, kind: Kind, old: i32, new: i32) -> Result<i32, Fatal> {
    let errcomm = errcomm(kind, old);
    let attrs = env.data().bridge.attributes.of(kind, old);
    if attrs.is_empty() {
        return Ok(abi::c::MPI_SUCCESS);
    }
    let fns = guest_fns(env, function)?;
    let fail = |e: CallbackError| e.into_fatal(function);
    for (keyval, value, k) in attrs {
        let copied = match k.copy {
            NULL_FN => None,
            DUP_FN => Some(value),
            f => {
                // value_out and flag live in guest memory for the callback
                let out = fns.alloc(env, 8).map_err(fail)?;
                let args = [old, keyval, k.extra_state as i32, value as i32, out as i32, out as i32 + 4];
                let rc = fns.call(env, f, &args).map_err(fail)?.unwrap_or(0);
                let (v, flag) = (fns.read_i32(env, out), fns.read_i32(env, out + 4));
                fns.release(env, out).map_err(fail)?;
                if rc != abi::c::MPI_SUCCESS {
                    return callback_failed(env, function, errcomm, "copy", rc);
                }
                match (v, flag) {
                    (Some(v), Some(flag)) => (flag != 0).then_some(v as u32),
                    _ => None,
                }
            }
        };
        if let Some(v) = copied {
            env.data_mut().bridge.attributes.set(kind, new, keyval, v);
        }
    }
    Ok(abi::c::MPI_SUCCESS)
}

macro_rules! attribute_functions {
    ($kind:expr, $create:ident, $free:ident, $set:ident, $get:ident, $delete:ident, $obj:literal) => {
        pub fn $create(mut env: FunctionEnvMut<MpiEnv>, copy: u32, delete: u32, keyval: u32, extra_state: u32) -> Result<i32, Fatal> {
            create_keyval(&mut env, concat!("MPI_", $obj, "_create_keyval"), $kind, copy, delete, keyval, extra_state)
        }
        pub fn $free(mut env: FunctionEnvMut<MpiEnv>, keyval: u32) -> Result<i32, Fatal> {
            free_keyval(&mut env, concat!("MPI_", $obj, "_free_keyval"), $kind, keyval)
        }
        pub fn $set(mut env: FunctionEnvMut<MpiEnv>, object: i32, keyval: i32, value: u32) -> Result<i32, Fatal> {
            set_attr(&mut env, concat!("MPI_", $obj, "_set_attr"), $kind, object, keyval, value)
        }
        pub fn $get(mut env: FunctionEnvMut<MpiEnv>, object: i32, keyval: i32, value: u32, flag: u32) -> Result<i32, Fatal> {
            get_attr(&mut env, concat!("MPI_", $obj, "_get_attr"), $kind, object, keyval, value, flag)
        }
        pub fn $delete(mut env: FunctionEnvMut<MpiEnv>, object: i32, keyval: i32) -> Result<i32, Fatal> {
            delete_attr(&mut env, concat!("MPI_", $obj, "_delete_attr"), $kind, object, keyval)
        }
    };
}

attribute_functions!(Kind::Comm, comm_create_keyval, comm_free_keyval, comm_set_attr, comm_get_attr, comm_delete_attr, "Comm");
attribute_functions!(Kind::Type, type_create_keyval, type_free_keyval, type_set_attr, type_get_attr, type_delete_attr, "Type");

attribute_functions!(Kind::Win, win_create_keyval, win_free_keyval, win_set_attr, win_get_attr, win_delete_attr, "Win");

// MPI-1 names (deprecated, still used): the communicator functions.
#[inline]
pub fn keyval_create(mut env: FunctionEnvMut<MpiEnv>, copy: u32, delete: u32, keyval: u32, extra_state: u32) -> Result<i32, Fatal> {
    create_keyval(&mut env, "MPI_Keyval_create", Kind::Comm, copy, delete, keyval, extra_state)
}

#[inline]
pub fn keyval_free(mut env: FunctionEnvMut<MpiEnv>, keyval: u32) -> Result<i32, Fatal> {
    free_keyval(&mut env, "MPI_Keyval_free", Kind::Comm, keyval)
}

#[inline]
pub fn attr_put(mut env: FunctionEnvMut<MpiEnv>, comm: i32, keyval: i32, value: u32) -> Result<i32, Fatal> {
    set_attr(&mut env, "MPI_Attr_put", Kind::Comm, comm, keyval, value)
}

#[inline]
pub fn attr_get(mut env: FunctionEnvMut<MpiEnv>, comm: i32, keyval: i32, value: u32, flag: u32) -> Result<i32, Fatal> {
    get_attr(&mut env, "MPI_Attr_get", Kind::Comm, comm, keyval, value, flag)
}

#[inline]
pub fn attr_delete(mut env: FunctionEnvMut<MpiEnv>, comm: i32, keyval: i32) -> Result<i32, Fatal> {
    delete_attr(&mut env, "MPI_Attr_delete", Kind::Comm, comm, keyval)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keyval(a: &mut Attributes, kind: Kind, copy: u32) -> i32 {
        a.keyvals.insert(Keyval { kind, copy, delete: NULL_FN, extra_state: 0 })
    }

    #[test]
    fn a_keyval_works_only_on_its_own_kind_of_object() {
        // a datatype keyval's callbacks must never run with communicator arguments
        let mut a = Attributes::new();
        let k = keyval(&mut a, Kind::Type, DUP_FN);
        assert_eq!(a.keyval(Kind::Type, k).unwrap().copy, DUP_FN);
        assert_eq!(a.keyval(Kind::Comm, k).unwrap_err().class, abi::c::MPI_ERR_KEYVAL);
        assert_eq!(a.keyval(Kind::Win, k).unwrap_err().class, abi::c::MPI_ERR_KEYVAL);
        for bad in [abi::c::MPI_KEYVAL_INVALID, k + 1, -1, i32::MIN] {
            assert_eq!(a.keyval(Kind::Type, bad).unwrap_err().class, abi::c::MPI_ERR_KEYVAL, "{bad:#x}");
        }
    }

    #[test]
    fn attributes_are_per_object_replaced_in_place_and_kept_in_set_order() {
        let mut a = Attributes::new();
        let (k1, k2) = (keyval(&mut a, Kind::Comm, NULL_FN), keyval(&mut a, Kind::Comm, DUP_FN));
        a.set(Kind::Comm, 5, k2, 0x200);
        a.set(Kind::Comm, 5, k1, 0x100);
        a.set(Kind::Comm, 5, k2, 0x300);
        // the same handle number as a datatype is another object
        a.set(Kind::Type, 5, k1, 0x999);
        assert_eq!(a.get(Kind::Comm, 5, k2), Some(0x300));
        assert_eq!(a.get(Kind::Comm, 6, k2), None);
        let of: Vec<(i32, u32)> = a.of(Kind::Comm, 5).iter().map(|&(k, v, _)| (k, v)).collect();
        assert_eq!(of, [(k2, 0x300), (k1, 0x100)]);
        a.remove(Kind::Comm, 5, k2);
        assert_eq!(a.get(Kind::Comm, 5, k2), None);
        assert_eq!(a.get(Kind::Type, 5, k1), Some(0x999));
        a.remove(Kind::Comm, 42, k1); // nothing set: nothing happens
    }

    #[test]
    fn predefined_keyvals_are_known_per_kind() {
        assert!(is_predefined_keyval(Kind::Comm, abi::c::MPI_TAG_UB));
        assert!(is_predefined_keyval(Kind::Comm, abi::c::MPI_LASTUSEDCODE));
        assert!(!is_predefined_keyval(Kind::Type, abi::c::MPI_TAG_UB));
        assert!(is_predefined_keyval(Kind::Win, abi::c::MPI_WIN_BASE));
        let mut a = Attributes::new();
        let user = keyval(&mut a, Kind::Comm, NULL_FN);
        assert!(!is_predefined_keyval(Kind::Comm, user));
        assert_eq!(errcomm(Kind::Comm, 7), ErrorsOf::Comm(7));
        assert_eq!(errcomm(Kind::Win, 7), ErrorsOf::Win(7));
        assert_eq!(errcomm(Kind::Type, 7), ErrorsOf::Comm(abi::c::MPI_COMM_WORLD));
    }
}
