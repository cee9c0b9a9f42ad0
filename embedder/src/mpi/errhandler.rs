//! Error handling: error handlers (predefined and guest callbacks) and
//! error classes, codes and strings, including those the guest adds.
//!
//! The host communicators all use MPI_ERRORS_RETURN; the bridge applies the
//! guest's handler (`call::call`), so a guest handler runs between host
//! calls, never inside the host library; it may call MPI, and raise errors
//! again, up to `callbacks::MAX_NESTING` levels deep (then the job ends).
//! User error classes and codes live only in the bridge: the host never
//! sees them.
use std::collections::BTreeMap;

use wasmer::FunctionEnvMut;

use super::{
    callbacks::GuestFns,
    call::{call, call_on, ErrorsOf}, state::{Bridge, ErrorMode},
    errors::{Fatal, FatalKind, MpiError, MpiResult},
    MpiEnv,
};
use crate::{abi, host_mpi};

const WORLD: i32 = abi::c::MPI_COMM_WORLD;
/// `MPI_Comm_errhandler_function(MPI_Comm *, int *, ...)`: two pointers and
/// the varargs pointer wasm32 C passes after them.
const HANDLER_PARAMS: usize = 3;

#[derive(Clone, Copy, Debug)]
pub struct ErrhandlerEntry {
    pub mode: ErrorMode,
    /// References from the guest handle and from communicators using it.
    refs: u32,
}

impl ErrhandlerEntry {
    /// A new guest handler (function-table index `function`), referenced
    /// by its handle (MPI_Session_create_errhandler, `session.rs`).
    pub(super) fn user(function: u32) -> Self {
        Self { mode: ErrorMode::User(function), refs: 1 }
    }
}

/// Error classes and codes the guest added, with their strings.
#[derive(Default)]
pub struct UserErrors {
    /// code -> (class, string); a class is a code of its own class.
    codes: BTreeMap<i32, (i32, String)>,
}

impl UserErrors {
    /// The largest error code in use (the MPI_LASTUSEDCODE attribute).
    pub fn last_used(&self) -> i32 {
        self.codes.keys().next_back().copied().unwrap_or(abi::c::MPI_ERR_LASTCODE)
    }

    fn add(&mut self, class: Option<i32>) -> i32 {
        let code = self.last_used() + 1;
        self.codes.insert(code, (class.unwrap_or(code), String::new()));
        code
    }

    /// The class of a valid error code.
    pub fn class_of(&self, code: i32) -> Option<i32> {
        match code {
            0..=abi::c::MPI_ERR_LASTCODE => Some(code),
            _ => self.codes.get(&code).map(|c| c.0),
        }
    }

    fn is_class(&self, class: i32) -> bool {
        (0..=abi::c::MPI_ERR_LASTCODE).contains(&class) || self.codes.get(&class).is_some_and(|c| c.0 == class)
    }
}

pub fn predefined_table() -> crate::handles::Table<ErrhandlerEntry> {
    let mut t = crate::handles::Table::new(abi::c::MPI_ERRHANDLER_NULL, 4);
    let entry = |mode| ErrhandlerEntry { mode, refs: 1 };
    t.set_predefined(abi::c::MPI_ERRORS_ARE_FATAL, entry(ErrorMode::Fatal));
    t.set_predefined(abi::c::MPI_ERRORS_ABORT, entry(ErrorMode::Fatal));
    t.set_predefined(abi::c::MPI_ERRORS_RETURN, entry(ErrorMode::Return));
    t
}

impl Bridge {
    /// A new reference to the handler of `comm` (for a communicator made
    /// from it, which inherits it).
    pub fn inherit_errhandler(&mut self, comm: i32) -> i32 {
        let h = self.comms.get(comm).map_or(abi::c::MPI_ERRORS_ARE_FATAL, |c| c.errhandler);
        self.retain_errhandler(h);
        h
    }

    pub fn retain_errhandler(&mut self, handle: i32) {
        if let Some(e) = self.errhandlers.get_mut(handle) {
            e.refs += 1;
        }
    }

    /// Drops one reference; a user handler goes when the last one does.
    pub fn release_errhandler(&mut self, handle: i32) {
        if let Some(e) = self.errhandlers.get_mut(handle) {
            e.refs = e.refs.saturating_sub(1);
            if e.refs == 0 && handle >= crate::handles::USER_BASE {
                self.errhandlers.remove(handle);
            }
        }
    }

    pub(super) fn errhandler(&self, handle: i32) -> MpiResult<ErrhandlerEntry> {
        self.errhandlers
            .get(handle)
            .copied()
            .ok_or_else(|| MpiError::new(abi::c::MPI_ERR_ARG, format!("invalid error handler {handle:#x}")))
    }
}

/// Runs guest error handler `index` for an error with `code` on `comm`:
/// `handler(&comm, &code)`, with both in guest memory.
pub fn invoke(store: &mut impl wasmer::AsStoreMut, fns: &GuestFns, function: &'static str, index: u32, comm: i32, code: i32) -> Result<(), Fatal> {
    let fail = |e: super::callbacks::CallbackError| e.into_fatal(function);
    let args = fns.alloc(store, 8).map_err(fail)?;
    let mem = fns.view(store);
    let written = mem.write_i32(args, comm).and_then(|()| mem.write_i32(args + 4, code));
    written.map_err(|e| FatalKind::Mpi { function, class: abi::c::MPI_ERR_INTERN, detail: format!("error handler arguments: {e}") })?;
    fns.call(store, index, &[args as i32, args as i32 + 4, 0]).map_err(fail)?;
    fns.release(store, args).map_err(fail)
}

#[inline]
pub fn comm_create_errhandler(mut env: FunctionEnvMut<MpiEnv>, function: u32, errhandler: u32) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Comm_create_errhandler", WORLD, |cx| {
        cx.mem.range(errhandler, 4)?;
        cx.check_callback(function, HANDLER_PARAMS, 0)?;
        let h = cx.bridge.errhandlers.insert(ErrhandlerEntry { mode: ErrorMode::User(function), refs: 1 });
        Ok(cx.mem.write_i32(errhandler, h)?)
    })
}

#[inline]
pub fn comm_set_errhandler(mut env: FunctionEnvMut<MpiEnv>, comm: i32, errhandler: i32) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Comm_set_errhandler", comm, |cx| {
        cx.comm(comm)?;
        cx.bridge.errhandler(errhandler)?;
        cx.bridge.retain_errhandler(errhandler);
        let c = cx.bridge.comms.get_mut(comm).expect("checked above");
        let old = std::mem::replace(&mut c.errhandler, errhandler);
        cx.bridge.release_errhandler(old);
        Ok(())
    })
}

/// Returns a new reference to the communicator's handler (freed by the
/// guest with MPI_Errhandler_free).
#[inline]
pub fn comm_get_errhandler(mut env: FunctionEnvMut<MpiEnv>, comm: i32, errhandler: u32) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Comm_get_errhandler", comm, |cx| {
        let h = cx.comm(comm)?.errhandler;
        cx.mem.range(errhandler, 4)?;
        cx.bridge.retain_errhandler(h);
        Ok(cx.mem.write_i32(errhandler, h)?)
    })
}

#[inline]
pub fn errhandler_free(mut env: FunctionEnvMut<MpiEnv>, errhandler: u32) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Errhandler_free", WORLD, |cx| {
        let h = cx.mem.read_i32(errhandler)?;
        cx.bridge.errhandler(h)?;
        cx.bridge.release_errhandler(h);
        Ok(cx.mem.write_i32(errhandler, abi::c::MPI_ERRHANDLER_NULL)?)
    })
}

/// Runs the communicator's handler for `errorcode`, as if a call on it had
/// failed with that code; MPI_SUCCESS once a handler returns.
#[inline]
pub fn comm_call_errhandler(mut env: FunctionEnvMut<MpiEnv>, comm: i32, errorcode: i32) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Comm_call_errhandler", comm, |cx| {
        cx.comm(comm)?;
        if cx.bridge.user_errors.class_of(errorcode).is_none() {
            return Ok(()); // not an error code: nothing to report
        }
        Err(MpiError::new(errorcode, format!("error code {errorcode} raised by the program")))
    })?;
    Ok(abi::c::MPI_SUCCESS)
}

/// The slot that holds a file's or a window's handler.
type Slot = fn(&mut Bridge, i32) -> MpiResult<&mut i32>;

/// MPI_File_create_errhandler and MPI_Win_create_errhandler.
fn create_errhandler(env: &mut FunctionEnvMut<MpiEnv>, name: &'static str, errors: ErrorsOf, function: u32, errhandler: u32) -> Result<i32, Fatal> {
    call_on(env, name, errors, |cx| {
        cx.require_running()?;
        cx.mem.range(errhandler, 4)?;
        cx.check_callback(function, HANDLER_PARAMS, 0)?;
        let h = cx.bridge.errhandlers.insert(ErrhandlerEntry { mode: ErrorMode::User(function), refs: 1 });
        Ok(cx.mem.write_i32(errhandler, h)?)
    })
}

fn set_errhandler(env: &mut FunctionEnvMut<MpiEnv>, name: &'static str, errors: ErrorsOf, slot: Slot, object: i32, errhandler: i32) -> Result<i32, Fatal> {
    call_on(env, name, errors, |cx| {
        cx.require_running()?;
        cx.bridge.errhandler(errhandler)?;
        slot(cx.bridge, object)?;
        cx.bridge.retain_errhandler(errhandler);
        let old = std::mem::replace(slot(cx.bridge, object)?, errhandler);
        cx.bridge.release_errhandler(old);
        Ok(())
    })
}

fn get_errhandler(env: &mut FunctionEnvMut<MpiEnv>, name: &'static str, errors: ErrorsOf, slot: Slot, object: i32, errhandler: u32) -> Result<i32, Fatal> {
    call_on(env, name, errors, |cx| {
        cx.require_running()?;
        let h = *slot(cx.bridge, object)?;
        cx.mem.range(errhandler, 4)?;
        cx.bridge.retain_errhandler(h);
        Ok(cx.mem.write_i32(errhandler, h)?)
    })
}

/// Runs the object's handler for `errorcode` (raised by the program itself:
/// every rank that calls sees it).
fn call_errhandler(env: &mut FunctionEnvMut<MpiEnv>, name: &'static str, errors: ErrorsOf, slot: Slot, object: i32, errorcode: i32) -> Result<i32, Fatal> {
    call_on(env, name, errors, |cx| {
        cx.require_running()?;
        slot(cx.bridge, object)?;
        if cx.bridge.user_errors.class_of(errorcode).is_none() {
            return Ok(());
        }
        Err(MpiError::shared(errorcode, format!("error code {errorcode} raised by the program")))
    })?;
    Ok(abi::c::MPI_SUCCESS)
}

/// The slot that holds a file's handler: MPI_FILE_NULL's is the default
/// for files opened later (and for MPI_File_open's own errors).
fn file_errhandler_slot(bridge: &mut Bridge, file: i32) -> MpiResult<&mut i32> {
    if file == abi::c::MPI_FILE_NULL {
        return Ok(&mut bridge.file_null_errhandler);
    }
    match bridge.files.get_mut(file) {
        Some(f) => Ok(&mut f.errhandler),
        None => Err(MpiError::new(abi::c::MPI_ERR_FILE, format!("invalid file handle {file:#x}"))),
    }
}

fn win_errhandler_slot(bridge: &mut Bridge, win: i32) -> MpiResult<&mut i32> {
    match bridge.wins.get_mut(win) {
        Some(w) => Ok(&mut w.errhandler),
        None => Err(MpiError::new(abi::c::MPI_ERR_WIN, format!("invalid window handle {win:#x}"))),
    }
}

#[inline]
pub fn file_create_errhandler(mut env: FunctionEnvMut<MpiEnv>, function: u32, errhandler: u32) -> Result<i32, Fatal> {
    create_errhandler(&mut env, "MPI_File_create_errhandler", ErrorsOf::File(abi::c::MPI_FILE_NULL), function, errhandler)
}

#[inline]
pub fn file_set_errhandler(mut env: FunctionEnvMut<MpiEnv>, file: i32, errhandler: i32) -> Result<i32, Fatal> {
    set_errhandler(&mut env, "MPI_File_set_errhandler", ErrorsOf::File(file), file_errhandler_slot, file, errhandler)
}

#[inline]
pub fn file_get_errhandler(mut env: FunctionEnvMut<MpiEnv>, file: i32, errhandler: u32) -> Result<i32, Fatal> {
    get_errhandler(&mut env, "MPI_File_get_errhandler", ErrorsOf::File(file), file_errhandler_slot, file, errhandler)
}

#[inline]
pub fn file_call_errhandler(mut env: FunctionEnvMut<MpiEnv>, fh: i32, errorcode: i32) -> Result<i32, Fatal> {
    call_errhandler(&mut env, "MPI_File_call_errhandler", ErrorsOf::File(fh), file_errhandler_slot, fh, errorcode)
}

#[inline]
pub fn win_create_errhandler(mut env: FunctionEnvMut<MpiEnv>, function: u32, errhandler: u32) -> Result<i32, Fatal> {
    create_errhandler(&mut env, "MPI_Win_create_errhandler", ErrorsOf::Comm(WORLD), function, errhandler)
}

#[inline]
pub fn win_set_errhandler(mut env: FunctionEnvMut<MpiEnv>, win: i32, errhandler: i32) -> Result<i32, Fatal> {
    set_errhandler(&mut env, "MPI_Win_set_errhandler", ErrorsOf::Win(win), win_errhandler_slot, win, errhandler)
}

#[inline]
pub fn win_get_errhandler(mut env: FunctionEnvMut<MpiEnv>, win: i32, errhandler: u32) -> Result<i32, Fatal> {
    get_errhandler(&mut env, "MPI_Win_get_errhandler", ErrorsOf::Win(win), win_errhandler_slot, win, errhandler)
}

#[inline]
pub fn win_call_errhandler(mut env: FunctionEnvMut<MpiEnv>, win: i32, errorcode: i32) -> Result<i32, Fatal> {
    call_errhandler(&mut env, "MPI_Win_call_errhandler", ErrorsOf::Win(win), win_errhandler_slot, win, errorcode)
}

#[inline]
pub fn add_error_class(mut env: FunctionEnvMut<MpiEnv>, errorclass: u32) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Add_error_class", WORLD, |cx| {
        cx.require_running()?;
        cx.mem.range(errorclass, 4)?;
        let class = cx.bridge.user_errors.add(None);
        Ok(cx.mem.write_i32(errorclass, class)?)
    })
}

#[inline]
pub fn add_error_code(mut env: FunctionEnvMut<MpiEnv>, errorclass: i32, errorcode: u32) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Add_error_code", WORLD, |cx| {
        cx.require_running()?;
        cx.mem.range(errorcode, 4)?;
        if !cx.bridge.user_errors.is_class(errorclass) {
            return Err(MpiError::new(abi::c::MPI_ERR_ARG, format!("{errorclass} is not an error class")));
        }
        let code = cx.bridge.user_errors.add(Some(errorclass));
        Ok(cx.mem.write_i32(errorcode, code)?)
    })
}

#[inline]
pub fn add_error_string(mut env: FunctionEnvMut<MpiEnv>, errorcode: i32, string: u32) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Add_error_string", WORLD, |cx| {
        let text = cx.cstr(string, abi::c::MPI_MAX_ERROR_STRING as usize - 1)?;
        match cx.bridge.user_errors.codes.get_mut(&errorcode) {
            Some(entry) => {
                entry.1 = text.to_string_lossy().into_owned();
                Ok(())
            }
            None => Err(MpiError::new(abi::c::MPI_ERR_ARG, format!("{errorcode} is not an error code or class added by the program"))),
        }
    })
}

/// MPI-4.1: a class the program added, once no code of it is left.
#[inline]
pub fn remove_error_class(mut env: FunctionEnvMut<MpiEnv>, errorclass: i32) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Remove_error_class", WORLD, |cx| {
        let errors = &mut cx.bridge.user_errors;
        if !errors.codes.get(&errorclass).is_some_and(|c| c.0 == errorclass) {
            return Err(MpiError::new(abi::c::MPI_ERR_ARG, format!("{errorclass} is not an error class added by the program")));
        }
        if errors.codes.iter().any(|(&code, c)| code != errorclass && c.0 == errorclass) {
            return Err(MpiError::new(abi::c::MPI_ERR_ARG, format!("error class {errorclass} still has error codes: remove them first")));
        }
        errors.codes.remove(&errorclass);
        Ok(())
    })
}

/// MPI-4.1: a code the program added (not a class).
#[inline]
pub fn remove_error_code(mut env: FunctionEnvMut<MpiEnv>, errorcode: i32) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Remove_error_code", WORLD, |cx| {
        let errors = &mut cx.bridge.user_errors;
        if !errors.codes.get(&errorcode).is_some_and(|c| c.0 != errorcode) {
            return Err(MpiError::new(abi::c::MPI_ERR_ARG, format!("{errorcode} is not an error code added by the program")));
        }
        errors.codes.remove(&errorcode);
        Ok(())
    })
}

/// MPI-4.1: the string of a code or class the program added.
#[inline]
pub fn remove_error_string(mut env: FunctionEnvMut<MpiEnv>, errorcode: i32) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Remove_error_string", WORLD, |cx| match cx.bridge.user_errors.codes.get_mut(&errorcode) {
        Some(entry) if !entry.1.is_empty() => {
            entry.1.clear();
            Ok(())
        }
        _ => Err(MpiError::new(abi::c::MPI_ERR_ARG, format!("no string was added for error code {errorcode}"))),
    })
}

#[inline]
pub fn error_class(mut env: FunctionEnvMut<MpiEnv>, errorcode: i32, errorclass: u32) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Error_class", WORLD, |cx| {
        let class = cx
            .bridge
            .user_errors
            .class_of(errorcode)
            .ok_or_else(|| MpiError::new(abi::c::MPI_ERR_ARG, format!("invalid error code {errorcode}")))?;
        Ok(cx.mem.write_i32(errorclass, class)?)
    })
}

#[inline]
pub fn error_string(mut env: FunctionEnvMut<MpiEnv>, errorcode: i32, string: u32, resultlen: u32) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Error_string", WORLD, |cx| {
        let text = match cx.bridge.user_errors.codes.get(&errorcode) {
            Some((_, text)) => text.clone(),
            None if errorcode == 0 => "MPI_SUCCESS: no errors".to_string(),
            None => {
                let name = abi::error_class_name(errorcode);
                match host_mpi::constants().ints.get(name) {
                    Some(&host_class) => format!("{name}: {}", host_mpi::error_string(host_class)),
                    None => return Err(MpiError::new(abi::c::MPI_ERR_ARG, format!("invalid error code {errorcode}"))),
                }
            }
        };
        cx.write_string(string, resultlen, &text, abi::c::MPI_MAX_ERROR_STRING)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn added_classes_and_codes_follow_the_last_predefined_code() {
        let mut u = UserErrors::default();
        assert_eq!(u.last_used(), abi::c::MPI_ERR_LASTCODE);
        let class = u.add(None);
        let code = u.add(Some(class));
        assert_eq!((class, code), (abi::c::MPI_ERR_LASTCODE + 1, abi::c::MPI_ERR_LASTCODE + 2));
        assert_eq!(u.class_of(code), Some(class));
        assert_eq!(u.class_of(abi::c::MPI_ERR_RANK), Some(abi::c::MPI_ERR_RANK));
        assert!(u.is_class(class) && !u.is_class(code));
        assert_eq!(u.class_of(code + 1), None);
        assert_eq!(u.last_used(), code);
    }
}
